#include "io/checkpoint/state_arrays.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "io/checkpoint/checkpoint_file.hpp"

namespace chainsaw::state_arrays {

namespace {

using checkpoint_file::damaged;

hid_t memory_type(Element e) {
  switch (e) {
    case Element::kGenes: return h5::native_type<real_t>();
    case Element::kFloat64: return h5::native_type<double>();
    case Element::kInt32: return h5::native_type<std::int32_t>();
    case Element::kUint8: return h5::native_type<std::uint8_t>();
  }
  return h5::native_type<std::uint8_t>();
}

std::size_t blocks_per_row(const NamedArray& a) {
  if (a.columns == 0) return 0;
  const std::size_t width = std::max<std::size_t>(1, a.block_columns);
  return (a.columns + width - 1) / width;
}

std::size_t block_count(const NamedArray& a) { return std::max<std::size_t>(1, a.rows) * blocks_per_row(a); }

Block block_at(const NamedArray& a, std::size_t index) {
  const std::size_t per_row = blocks_per_row(a);
  const std::size_t width = std::max<std::size_t>(1, a.block_columns);
  const std::size_t first = index % per_row * width;
  return {index / per_row, first, std::min(width, a.columns - first)};
}

std::vector<hsize_t> dims_of(const NamedArray& a) {
  if (a.rows == 0) return {static_cast<hsize_t>(a.columns)};
  return {static_cast<hsize_t>(a.rows), static_cast<hsize_t>(a.columns)};
}

// Chunks of at most kBlockElements along a row, so that a streamed block fills whole chunks.
std::vector<hsize_t> chunk_of(const NamedArray& a) {
  const auto width = static_cast<hsize_t>(std::clamp<std::size_t>(a.columns, 1, kBlockElements));
  if (a.rows == 0) return {width};
  return {1, width};
}

}  // namespace

std::size_t element_size(Element e) {
  switch (e) {
    case Element::kGenes: return sizeof(real_t);
    case Element::kFloat64: return 8;
    case Element::kInt32: return 4;
    case Element::kUint8: return 1;
  }
  return 1;
}

const char* element_name(Element e) {
  switch (e) {
    case Element::kGenes: return checkpoint_file::genes_type_name();
    case Element::kFloat64: return "float64";
    case Element::kInt32: return "int32";
    case Element::kUint8: return "uint8";
  }
  return "?";
}

void write_arrays(hid_t group, const std::vector<NamedArray>& arrays, BlockCursor& cursor) {
  for (; cursor.array < arrays.size(); ++cursor.array, cursor.block = 0) {
    const NamedArray& a = arrays[cursor.array];
    const hid_t type = memory_type(a.element);
    h5::Handle dataset = h5::create_dataset(group, a.name, type, dims_of(a), chunk_of(a));
    while (cursor.block < block_count(a)) {
      const Block b = block_at(a, cursor.block);
      const void* data = a.save(b);
      ++cursor.block;  // made: a failed write below leaves the saves after it to drain_saves
      h5::write_block(dataset.get(), type, b.row, b.first, b.count, data);
    }
  }
}

void drain_saves(const std::vector<NamedArray>& arrays, BlockCursor& cursor) {
  for (; cursor.array < arrays.size(); ++cursor.array, cursor.block = 0)
    for (; cursor.block < block_count(arrays[cursor.array]); ++cursor.block)
      arrays[cursor.array].save(block_at(arrays[cursor.array], cursor.block));
}

void check_arrays(const std::string& path, hid_t group, const std::string& where,
                  const std::vector<NamedArray>& arrays) {
  for (const NamedArray& a : arrays) {
    const std::string name = where + "/" + a.name;
    try {
      h5::Handle dataset = h5::open_dataset(group, a.name);
      const std::vector<hsize_t> dims = h5::dataset_dims(dataset.get());
      const h5::StoredType type = h5::dataset_type(dataset.get());
      const bool floating = a.element == Element::kGenes || a.element == Element::kFloat64;
      const bool shape_ok = a.any_length ? dims.size() == 1 : dims == dims_of(a);
      if (!shape_ok)
        damaged(path, a.rows == 0 ? fmt::format("dataset {} does not hold {} values", name, a.columns)
                                  : fmt::format("dataset {} is not {} x {}", name, a.rows, a.columns));
      if (type.type_class != (floating ? H5T_FLOAT : H5T_INTEGER) ||
          type.size != element_size(a.element))
        damaged(path, fmt::format("dataset {} holds {}-byte values, not {}", name, type.size,
                                  element_name(a.element)));
    } catch (const h5::Error& e) {
      damaged(path, "dataset " + name + " " + e.what());
    }
  }
}

namespace {

// Columns [begin, end) of every row, one chunk (kBlockElements along a row) per read.
void read_array(hid_t dataset, const NamedArray& a) {
  const std::size_t begin = std::min(a.read_begin, a.columns);
  const std::size_t end = std::min(a.read_end, a.columns);
  const std::size_t width = std::max<std::size_t>(1, a.block_columns);
  for (std::size_t row = 0; row < std::max<std::size_t>(1, a.rows); ++row) {
    for (std::size_t piece = begin / width * width; piece < end; piece += width) {
      const std::size_t first = std::max(piece, begin);
      const Block b{row, first, std::min(piece + width, end) - first};
      h5::read_block(dataset, memory_type(a.element), b.row, b.first, b.count, a.load(b));
      if (a.loaded) a.loaded(b);
    }
  }
}

}  // namespace

void read_arrays(const std::string& path, hid_t group, const std::string& where,
                 const std::vector<NamedArray>& arrays) {
  check_arrays(path, group, where, arrays);
  for (NamedArray a : arrays) {
    try {
      h5::Handle dataset = h5::open_dataset(group, a.name);
      if (a.any_length) {
        a.columns = static_cast<std::size_t>(h5::dataset_dims(dataset.get())[0]);
        a.block_columns = a.columns;
        a.resize(a.columns);
      }
      read_array(dataset.get(), a);
    } catch (const h5::Error& e) {
      damaged(path, "dataset " + where + "/" + a.name + " " + e.what());
    }
  }
}

}  // namespace chainsaw::state_arrays
