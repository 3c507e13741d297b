// An algorithm's arrays as a checkpoint stores them: named datasets of one group, each read and
// written in blocks of rows through callbacks. An engine's population (MA-SW-Chains' genes and
// bias vectors, on the GPU or sharded over ranks) streams block by block; a host array is the
// simple case of one block (in_memory). The writer and the reader (checkpoint_writer.cpp,
// checkpoint_reader.cpp) are the only code that touches the datasets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/types.hpp"
#include "io/checkpoint/hdf5_file.hpp"

namespace chainsaw::state_arrays {

// Genes per streamed block and per HDF5 chunk along a row: 4 MiB of float32, so that the host
// holds one block of a population of any size and every write fills whole chunks.
inline constexpr std::size_t kBlockElements = std::size_t{1} << 20;

enum class Element { kGenes, kFloat64, kInt32, kUint8 };

// `count` elements of row `row`, from column `first` on (row 0 of a 1-D array).
struct Block {
  std::size_t row = 0;
  std::size_t first = 0;
  std::size_t count = 0;
};

struct NamedArray {
  std::string name;
  Element element = Element::kFloat64;
  std::size_t rows = 0;     // 0: a 1-D array
  std::size_t columns = 0;  // a row's length (a 1-D array's)
  // Columns per block: kBlockElements for a streamed array, the whole row for a host one.
  std::size_t block_columns = kBlockElements;
  // The stored length is the array's own (a 1-D array the reader does not know the size of):
  // the reader calls `resize` with it before the blocks.
  bool any_length = false;
  std::function<void(std::size_t)> resize;
  // The columns a reader restores, [read_begin, read_end): a sharded rank's slice.
  std::size_t read_begin = 0;
  std::size_t read_end = static_cast<std::size_t>(-1);
  // The writer's side: the block's elements, valid until the next save (a streamed array's
  // save may be collective: every rank of a sharded engine makes the same saves in order).
  std::function<const void*(const Block&)> save;
  // The reader's side: where the block's elements go, and (optional) what takes them once read.
  std::function<void*(const Block&)> load;
  std::function<void(const Block&)> loaded;
};

std::size_t element_size(Element e);
const char* element_name(Element e);

// A 1-D host array: one block, written from `values` and read into it. With any_length the
// stored length is taken as it is (the algorithm checks it); otherwise it must be values.size().
template <class T>
constexpr Element element_of() {
  if constexpr (std::is_same_v<T, real_t>) return Element::kGenes;
  else if constexpr (std::is_same_v<T, double>) return Element::kFloat64;
  else if constexpr (std::is_same_v<T, std::int32_t>) return Element::kInt32;
  else {
    static_assert(std::is_same_v<T, std::uint8_t>, "a checkpoint stores no other element");
    return Element::kUint8;
  }
}

template <class T>
NamedArray in_memory(const std::string& name, std::vector<T>& values, bool any_length = false) {
  NamedArray a;
  a.name = name;
  a.element = element_of<T>();
  a.columns = values.size();
  a.block_columns = values.size();
  a.any_length = any_length;
  a.resize = [&values](std::size_t n) { values.resize(n); };
  a.save = [&values](const Block& b) -> const void* { return values.data() + b.first; };
  a.load = [&values](const Block& b) -> void* { return values.data() + b.first; };
  return a;
}

// Where a sequence of saves stands: the writer consumes blocks in order, and a collective
// writer whose file failed drains the rest, so every rank makes the same saves.
struct BlockCursor {
  std::size_t array = 0;
  std::size_t block = 0;
};

// Creates every array under `group` and fills it from its saves, chunked (1 x block) with
// Fletcher-32. Throws h5::Error; `cursor` says which saves were made.
void write_arrays(hid_t group, const std::vector<NamedArray>& arrays, BlockCursor& cursor);
// Makes the saves from `cursor` to the end without writing (ranks other than the writer's).
void drain_saves(const std::vector<NamedArray>& arrays, BlockCursor& cursor);

// Throws UserError ("checkpoint PATH: ...") unless `group` holds each array with its shape and
// element type; `where` names the group in the message.
void check_arrays(const std::string& path, hid_t group, const std::string& where,
                  const std::vector<NamedArray>& arrays);
// Reads each array's columns [read_begin, read_end) of every row into its restores, one chunk
// per read, verifying every checksum. UserError naming the dataset on any failure.
void read_arrays(const std::string& path, hid_t group, const std::string& where,
                 const std::vector<NamedArray>& arrays);

}  // namespace chainsaw::state_arrays
