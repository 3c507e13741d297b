// A thin RAII layer over HDF5's C API (Debian's libhdf5-dev): every hid_t has one owner that
// closes it, and every failed call throws h5::Error naming what failed, so the checkpoint code
// reads as the file layout it writes.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace chainsaw::h5 {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer close, const std::string& what);  // throws Error when id < 0
  ~Handle() { reset(); }
  Handle(Handle&& other) noexcept : id_(other.id_), close_(other.close_) {
    other.id_ = H5I_INVALID_HID;
  }
  Handle& operator=(Handle&& other) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  hid_t get() const { return id_; }
  // Closes now and reports a failure (a file's close is where HDF5 writes what it buffered).
  void close(const std::string& what);

 private:
  void reset();
  hid_t id_ = H5I_INVALID_HID;
  Closer close_ = nullptr;
};

// Throws Error(what) when an HDF5 call returned a negative status.
void check(herr_t status, const std::string& what);
// HDF5 prints its error stack to stderr by default; chainsaw reports one line of its own.
void silence_library_errors();

template <class T>
hid_t native_type();

Handle create_file(const std::string& path);  // truncates
Handle open_file_read_only(const std::string& path);
Handle create_group(hid_t parent, const std::string& name);
Handle open_group(hid_t parent, const std::string& name);
bool has_link(hid_t parent, const std::string& name);

void write_attribute(hid_t object, const std::string& name, const std::string& value);
void write_attribute(hid_t object, const std::string& name, std::int64_t value);
void write_attribute(hid_t object, const std::string& name, double value);
bool has_attribute(hid_t object, const std::string& name);
std::string read_string_attribute(hid_t object, const std::string& name);
std::int64_t read_int_attribute(hid_t object, const std::string& name);
double read_double_attribute(hid_t object, const std::string& name);

// A chunked dataset with the Fletcher-32 checksum filter on every chunk.
Handle create_dataset(hid_t parent, const std::string& name, hid_t file_type,
                      const std::vector<hsize_t>& dims, const std::vector<hsize_t>& chunk);
Handle open_dataset(hid_t parent, const std::string& name);
std::vector<hsize_t> dataset_dims(hid_t dataset);
// Class (H5T_INTEGER, H5T_FLOAT, ...), size in bytes and signedness of a dataset's stored type.
struct StoredType {
  H5T_class_t type_class = H5T_NO_CLASS;
  std::size_t size = 0;
  bool is_signed = false;
};
StoredType dataset_type(hid_t dataset);

// count elements at [row, first) of a 2-D dataset, or at [first) of a 1-D one (row ignored).
void write_block(hid_t dataset, hid_t memory_type, hsize_t row, hsize_t first, hsize_t count,
                 const void* data);
void read_block(hid_t dataset, hid_t memory_type, hsize_t row, hsize_t first, hsize_t count,
                void* data);
// The whole dataset, converted to `memory_type`; `data` holds as many elements as it has.
void read_all(hid_t dataset, hid_t memory_type, void* data);
// Whether the file starts with HDF5's signature (at offset 0 or after a user block of 512,
// 1024, 2048, ... bytes): the file's own say, whatever its name.
bool has_hdf5_signature(const std::string& path);

}  // namespace chainsaw::h5
