#include "io/checkpoint/hdf5_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>

#include "io/results/write_faults.hpp"

namespace chainsaw::h5 {

namespace {

// HDF5's file drivers record the system's errno in the error stack ("..., errno = 28, error
// message = 'No space left on device'"): the cause a user can act on, found by walking it.
herr_t find_system_error(unsigned, const H5E_error2_t* entry, void* found) {
  const char* at = entry->desc != nullptr ? std::strstr(entry->desc, "errno = ") : nullptr;
  if (at != nullptr && *static_cast<int*>(found) == 0)
    *static_cast<int*>(found) = std::atoi(at + std::strlen("errno = "));
  return 0;
}

// `what`, with the system's cause of the failure when the error stack holds one.
std::string with_cause(const std::string& what) {
  int err = 0;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, find_system_error, &err);
  return err > 0 ? what + " (" + std::strerror(err) + ")" : what;
}

// A write point of the fault-injection hook (io/results/write_faults.hpp).
void count_write(const std::string& what) {
  if (write_fault_injected()) throw Error(what + " (" + std::strerror(ENOSPC) + ")");
}

}  // namespace

Handle::Handle(hid_t id, Closer close, const std::string& what) : id_(id), close_(close) {
  if (id < 0) throw Error(with_cause(what));
}

Handle& Handle::operator=(Handle&& other) noexcept {
  if (this != &other) {
    reset();
    id_ = other.id_;
    close_ = other.close_;
    other.id_ = H5I_INVALID_HID;
  }
  return *this;
}

void Handle::reset() {
  if (id_ >= 0 && close_) close_(id_);
  id_ = H5I_INVALID_HID;
}

void Handle::close(const std::string& what) {
  const hid_t id = id_;
  id_ = H5I_INVALID_HID;
  if (id < 0 || !close_) return;
  if (write_fault_injected()) {
    close_(id);
    throw Error(what + " (" + std::strerror(ENOSPC) + ")");
  }
  check(close_(id), what);
}

void check(herr_t status, const std::string& what) {
  if (status < 0) throw Error(with_cause(what));
}

void silence_library_errors() {
  static std::once_flag once;
  std::call_once(once, [] { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); });
}

template <>
hid_t native_type<float>() { return H5T_NATIVE_FLOAT; }
template <>
hid_t native_type<double>() { return H5T_NATIVE_DOUBLE; }
template <>
hid_t native_type<std::int32_t>() { return H5T_NATIVE_INT32; }
template <>
hid_t native_type<std::int64_t>() { return H5T_NATIVE_INT64; }
template <>
hid_t native_type<std::uint8_t>() { return H5T_NATIVE_UINT8; }

Handle create_file(const std::string& path) {
  silence_library_errors();
  count_write("cannot create the HDF5 file");
  return Handle(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose,
                "cannot create the HDF5 file");
}

Handle open_file_read_only(const std::string& path) {
  silence_library_errors();
  return Handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose,
                "cannot be opened as an HDF5 file (truncated or damaged)");
}

Handle create_group(hid_t parent, const std::string& name) {
  count_write("cannot create group " + name);
  return Handle(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                "cannot create group " + name);
}

Handle open_group(hid_t parent, const std::string& name) {
  if (!has_link(parent, name)) throw Error("has no group " + name);
  return Handle(H5Gopen2(parent, name.c_str(), H5P_DEFAULT), H5Gclose,
                "cannot open group " + name);
}

bool has_link(hid_t parent, const std::string& name) {
  return H5Lexists(parent, name.c_str(), H5P_DEFAULT) > 0;
}

namespace {

void write_scalar_attribute(hid_t object, const std::string& name, hid_t type, const void* value) {
  count_write("cannot write attribute " + name);
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "cannot create a dataspace");
  Handle attribute(H5Acreate2(object, name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                   H5Aclose, "cannot create attribute " + name);
  check(H5Awrite(attribute.get(), type, value), "cannot write attribute " + name);
}

Handle open_attribute(hid_t object, const std::string& name) {
  if (!has_attribute(object, name)) throw Error("has no attribute " + name);
  return Handle(H5Aopen(object, name.c_str(), H5P_DEFAULT), H5Aclose,
                "cannot open attribute " + name);
}

}  // namespace

void write_attribute(hid_t object, const std::string& name, const std::string& value) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose, "cannot copy a string type");
  check(H5Tset_size(type.get(), std::max<std::size_t>(1, value.size())),
        "cannot size a string type");
  check(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), "cannot pad a string type");
  write_scalar_attribute(object, name, type.get(), value.empty() ? "" : value.c_str());
}

void write_attribute(hid_t object, const std::string& name, std::int64_t value) {
  write_scalar_attribute(object, name, H5T_NATIVE_INT64, &value);
}

void write_attribute(hid_t object, const std::string& name, double value) {
  write_scalar_attribute(object, name, H5T_NATIVE_DOUBLE, &value);
}

bool has_attribute(hid_t object, const std::string& name) {
  return H5Aexists(object, name.c_str()) > 0;
}

std::string read_string_attribute(hid_t object, const std::string& name) {
  Handle attribute = open_attribute(object, name);
  Handle type(H5Aget_type(attribute.get()), H5Tclose, "cannot read the type of " + name);
  if (H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) != 0)
    throw Error("attribute " + name + " is not a fixed-length string");
  const std::size_t size = H5Tget_size(type.get());
  std::string value(size, '\0');
  check(H5Aread(attribute.get(), type.get(), value.data()), "cannot read attribute " + name);
  value.resize(value.find('\0') == std::string::npos ? size : value.find('\0'));
  return value;
}

std::int64_t read_int_attribute(hid_t object, const std::string& name) {
  Handle attribute = open_attribute(object, name);
  Handle type(H5Aget_type(attribute.get()), H5Tclose, "cannot read the type of " + name);
  if (H5Tget_class(type.get()) != H5T_INTEGER) throw Error("attribute " + name + " is not an integer");
  std::int64_t value = 0;
  check(H5Aread(attribute.get(), H5T_NATIVE_INT64, &value), "cannot read attribute " + name);
  return value;
}

double read_double_attribute(hid_t object, const std::string& name) {
  Handle attribute = open_attribute(object, name);
  Handle type(H5Aget_type(attribute.get()), H5Tclose, "cannot read the type of " + name);
  if (H5Tget_class(type.get()) != H5T_FLOAT) throw Error("attribute " + name + " is not a number");
  double value = 0.0;
  check(H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, &value), "cannot read attribute " + name);
  return value;
}

Handle create_dataset(hid_t parent, const std::string& name, hid_t file_type,
                      const std::vector<hsize_t>& dims, const std::vector<hsize_t>& chunk) {
  count_write("cannot create dataset " + name);
  const int rank = static_cast<int>(dims.size());
  Handle space(H5Screate_simple(rank, dims.data(), nullptr), H5Sclose,
               "cannot create the dataspace of " + name);
  Handle properties(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "cannot create dataset properties");
  check(H5Pset_chunk(properties.get(), rank, chunk.data()), "cannot chunk " + name);
  check(H5Pset_fletcher32(properties.get()), "cannot checksum " + name);
  return Handle(H5Dcreate2(parent, name.c_str(), file_type, space.get(), H5P_DEFAULT,
                           properties.get(), H5P_DEFAULT),
                H5Dclose, "cannot create dataset " + name);
}

Handle open_dataset(hid_t parent, const std::string& name) {
  if (!has_link(parent, name)) throw Error("has no dataset " + name);
  return Handle(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), H5Dclose,
                "cannot open dataset " + name);
}

std::vector<hsize_t> dataset_dims(hid_t dataset) {
  Handle space(H5Dget_space(dataset), H5Sclose, "cannot read a dataspace");
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) throw Error("cannot read a dataspace's rank");
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  check(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) < 0 ? -1 : 0,
        "cannot read a dataspace's dimensions");
  return dims;
}

StoredType dataset_type(hid_t dataset) {
  Handle type(H5Dget_type(dataset), H5Tclose, "cannot read a dataset's type");
  StoredType t;
  t.type_class = H5Tget_class(type.get());
  t.size = H5Tget_size(type.get());
  t.is_signed = t.type_class == H5T_INTEGER && H5Tget_sign(type.get()) == H5T_SGN_2;
  return t;
}

namespace {

// The file and memory dataspaces of a block, and the transfer itself.
template <class Transfer>
void transfer_block(hid_t dataset, hsize_t row, hsize_t first, hsize_t count, Transfer transfer) {
  Handle file_space(H5Dget_space(dataset), H5Sclose, "cannot read a dataspace");
  const int rank = H5Sget_simple_extent_ndims(file_space.get());
  const hsize_t start2[2] = {row, first}, count2[2] = {1, count};
  const hsize_t* start = rank == 2 ? start2 : start2 + 1;
  const hsize_t* counts = rank == 2 ? count2 : count2 + 1;
  check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, counts, nullptr),
        "cannot select a block");
  Handle memory_space(H5Screate_simple(1, &count, nullptr), H5Sclose, "cannot create a dataspace");
  transfer(memory_space.get(), file_space.get());
}

}  // namespace

void write_block(hid_t dataset, hid_t memory_type, hsize_t row, hsize_t first, hsize_t count,
                 const void* data) {
  count_write("cannot write a block");
  transfer_block(dataset, row, first, count, [&](hid_t memory, hid_t file) {
    check(H5Dwrite(dataset, memory_type, memory, file, H5P_DEFAULT, data), "cannot write a block");
  });
}

void read_block(hid_t dataset, hid_t memory_type, hsize_t row, hsize_t first, hsize_t count,
                void* data) {
  transfer_block(dataset, row, first, count, [&](hid_t memory, hid_t file) {
    check(H5Dread(dataset, memory_type, memory, file, H5P_DEFAULT, data),
          "fails its checksum or cannot be read");
  });
}

void read_all(hid_t dataset, hid_t memory_type, void* data) {
  check(H5Dread(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data),
        "fails its checksum or cannot be read");
}

bool has_hdf5_signature(const std::string& path) {
  static constexpr char kSignature[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
  std::ifstream in(path, std::ios::binary);
  char head[8];
  for (std::streamoff at = 0; in; at = at == 0 ? 512 : 2 * at) {
    in.seekg(at);
    if (!in.read(head, sizeof head)) return false;
    if (std::memcmp(head, kSignature, sizeof head) == 0) return true;
  }
  return false;
}

}  // namespace chainsaw::h5
