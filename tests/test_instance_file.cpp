// CEC 2010 instance files (io/instance_file.hpp): what chainsaw writes reads back bit for bit in
// both formats, HDF5 files written by other tools (h5py, MATLAB converts) are read with their own
// types and a 1-based P, the format is told by the file's signature, and every bad file is one
// error line naming the file and the problem.
#include <hdf5.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "fitness/cec2010/cec2010_instance.hpp"
#include "fitness/host_fitness.hpp"
#include "fitness/problem.hpp"
#include "io/instance_file.hpp"
#include "temp_dir_test.hpp"
#include "test_support.hpp"

namespace chainsaw {
namespace {

namespace fs = std::filesystem;
constexpr int kM = kCecGroup;

std::string name_of(int n) { return "cec2010-f" + std::to_string(n); }

// An HDF5 file as another tool would write it: datasets at the root, no chainsaw attributes,
// contiguous (unchunked) storage, whatever types the caller picks.
class ForeignFile {
 public:
  explicit ForeignFile(const std::string& path)
      : file_(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)) {}
  ~ForeignFile() { H5Fclose(file_); }
  ForeignFile(const ForeignFile&) = delete;
  ForeignFile& operator=(const ForeignFile&) = delete;

  template <class T>
  hid_t dataset(const std::string& name, hid_t file_type, hid_t memory_type,
                const std::vector<hsize_t>& dims, const std::vector<T>& values) {
    const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    const hid_t d = H5Dcreate2(file_, name.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT,
                               H5P_DEFAULT);
    H5Dwrite(d, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    H5Sclose(space);
    return d;  // the caller closes it (after adding attributes)
  }
  template <class T>
  void add(const std::string& name, hid_t file_type, hid_t memory_type,
           const std::vector<hsize_t>& dims, const std::vector<T>& values) {
    H5Dclose(dataset(name, file_type, memory_type, dims, values));
  }
  static void int_attribute(hid_t object, const std::string& name, std::int64_t value) {
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t a = H5Acreate2(object, name.c_str(), H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_INT64, &value);
    H5Aclose(a);
    H5Sclose(space);
  }
  hid_t root() const { return file_; }

 private:
  hid_t file_;
};

class InstanceFiles : public test::TempDirTest {
 protected:
  std::string p(const std::string& name) const { return path_in_dir(name); }
  // The UserError of reading `path` as an instance of `function` with D = dim ("" if none).
  static std::string error_of(const std::string& path, const std::string& function = "cec2010-f9",
                              Dim dim = 200) {
    try {
      read_instance_file(path, function_info(function), dim, 1);
    } catch (const UserError& e) {
      return e.what();
    }
    return "";
  }
  void expect_refused(const std::string& path, const std::string& must_contain,
                      const std::string& function = "cec2010-f9", Dim dim = 200) {
    const std::string e = error_of(path, function, dim);
    EXPECT_EQ(e.rfind("--instance = " + path + ": ", 0), 0u) << e;
    EXPECT_NE(e.find(must_contain), std::string::npos) << "'" << must_contain << "' not in: " << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
};

// Written by chainsaw, read back with another seed (a generated part would then differ): every
// function's o, P and M, in both formats, bit for bit; so is f at a random point.
TEST_F(InstanceFiles, WrittenInstancesReadBackBitForBitInBothFormats) {
  for (int n = 1; n <= 20; ++n) {
    const FunctionInfo& info = function_info(name_of(n));
    const Problem written = Problem::make(info.name, 200, 7);
    for (const char* file : {"i.h5", "i.txt"}) {
      SCOPED_TRACE(std::string(info.name) + " " + file);
      write_instance_file("-o", p(file), *written.cec, info, "test");
      const Problem read = make_problem(info.name, 200, 8, p(file));
      EXPECT_TRUE(read.cec->same_as(*written.cec));
      EXPECT_EQ(read.cec->perm.empty(), n <= 3 || n >= 19);
      std::mt19937_64 gen(static_cast<std::uint64_t>(n));
      const std::vector<real_t> x = test::random_point(written, gen);
      EXPECT_EQ(evaluate_host(read, x.data()), evaluate_host(written, x.data()));
    }
    EXPECT_FALSE(Problem::make(info.name, 200, 8).cec->same_as(*written.cec));
  }
}

TEST_F(InstanceFiles, TheHdf5LayoutIsTheDocumentedOne) {
  const Problem p9 = Problem::make("cec2010-f9", 200, 3);
  write_instance_file("-o", p("i.h5"), *p9.cec, function_info("cec2010-f9"), "test source");
  h5::Handle file = h5::open_file_read_only(p("i.h5"));
  const hid_t root = file.get();
  EXPECT_EQ(h5::read_string_attribute(root, "format"), "chainsaw cec2010 instance");
  EXPECT_EQ(h5::read_int_attribute(root, "format_version"), 1);
  EXPECT_EQ(h5::read_string_attribute(root, "function"), "cec2010-f9");
  EXPECT_EQ(h5::read_int_attribute(root, "dim"), 200);
  EXPECT_EQ(h5::read_string_attribute(root, "source"), "test source");
  h5::Handle o = h5::open_dataset(root, "o");
  h5::Handle perm = h5::open_dataset(root, "P");
  h5::Handle m = h5::open_dataset(root, "M");
  EXPECT_EQ(h5::dataset_dims(o.get()), (std::vector<hsize_t>{200}));
  EXPECT_EQ(h5::dataset_type(o.get()).type_class, H5T_FLOAT);
  EXPECT_EQ(h5::dataset_type(o.get()).size, 8u);
  EXPECT_EQ(h5::dataset_dims(perm.get()), (std::vector<hsize_t>{200}));
  EXPECT_EQ(h5::dataset_type(perm.get()).type_class, H5T_INTEGER);
  EXPECT_EQ(h5::read_int_attribute(perm.get(), "base"), 0);
  EXPECT_EQ(h5::dataset_dims(m.get()), (std::vector<hsize_t>{50, 50}));
  std::vector<std::int32_t> stored(200);
  h5::read_all(perm.get(), H5T_NATIVE_INT32, stored.data());
  EXPECT_EQ(stored, p9.cec->perm);
}

// Published data converted by another tool: float32 o, a 1-based int64 P declared by the
// attribute base = 1, M as float64; no chainsaw attributes.
TEST_F(InstanceFiles, ForeignHdf5WithOneBasedPermutationIsRead) {
  const Dim d = 200;
  std::vector<float> o(d);
  std::vector<std::int64_t> perm(d);
  for (Dim j = 0; j < d; ++j) {
    o[j] = static_cast<float>(j - 100) / 8.0f;
    perm[j] = d - j;  // 1-based: position k holds variable D - k
  }
  const std::vector<double> rotation = Problem::make("cec2010-f14", d, 99).cec->rotation;
  {
    ForeignFile f(p("published.h5"));
    f.add("o", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {static_cast<hsize_t>(d)}, o);
    const hid_t pd = f.dataset("P", H5T_STD_I64LE, H5T_NATIVE_INT64, {static_cast<hsize_t>(d)}, perm);
    ForeignFile::int_attribute(pd, "base", 1);
    H5Dclose(pd);
    f.add("M", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {50, 50}, rotation);
  }
  const Problem prob = make_problem("cec2010-f14", d, 5, p("published.h5"));
  for (Dim j = 0; j < d; ++j) {
    EXPECT_EQ(prob.cec->o[j], static_cast<real_t>(o[j]));
    EXPECT_EQ(prob.cec->perm[j], d - 1 - j);
  }
  EXPECT_EQ(prob.cec->rotation, rotation);
  EXPECT_NEAR(evaluate_host(prob, prob.cec->o.data()), 0.0, 1e-12);

  // Without the attribute an HDF5 P is 0-based: 1..D is then not a permutation of 0..D-1.
  {
    ForeignFile f(p("unmarked.h5"));
    f.add("P", H5T_STD_I64LE, H5T_NATIVE_INT64, {static_cast<hsize_t>(d)}, perm);
  }
  expect_refused(p("unmarked.h5"), "permutation is not a permutation of 0..199: value 1 = 200",
                 "cec2010-f14");
}

// The file's signature decides, not its name.
TEST_F(InstanceFiles, TheFormatIsToldByTheSignatureNotTheName) {
  const Problem p1 = Problem::make("cec2010-f1", 100, 4);
  write_instance_file("-o", p("real.h5"), *p1.cec, function_info("cec2010-f1"), "test");
  fs::copy_file(p("real.h5"), p("named.txt"));
  EXPECT_TRUE(make_problem("cec2010-f1", 100, 5, p("named.txt")).cec->same_as(*p1.cec));
  write_instance_file("-o", p("real.txt"), *p1.cec, function_info("cec2010-f1"), "test");
  fs::copy_file(p("real.txt"), p("named.h5"));
  EXPECT_TRUE(make_problem("cec2010-f1", 100, 5, p("named.h5")).cec->same_as(*p1.cec));
  // An HDF5 file behind a 512-byte user block.
  {
    const hid_t create = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_userblock(create, 512);
    const hid_t file = H5Fcreate(p("userblock.h5").c_str(), H5F_ACC_TRUNC, create, H5P_DEFAULT);
    H5Pclose(create);
    write_instance_group(file, *p1.cec, function_info("cec2010-f1"), "test", 64);
    H5Fclose(file);
  }
  EXPECT_TRUE(h5::has_hdf5_signature(p("userblock.h5")));
  EXPECT_TRUE(make_problem("cec2010-f1", 100, 5, p("userblock.h5")).cec->same_as(*p1.cec));
}

// Every way an HDF5 file can be wrong: one line naming the file and what is wrong; the checks
// shared with text files (domain, permutation, orthogonality) are the same code.
TEST_F(InstanceFiles, BadHdf5FilesAreRefusedWithOneClearLine) {
  const Dim d = 200;
  const Problem good = Problem::make("cec2010-f9", d, 3);
  const auto& info = function_info("cec2010-f9");
  write_instance_file("-o", p("good.h5"), *good.cec, info, "test");

  fs::copy_file(p("good.h5"), p("cut.h5"));
  fs::resize_file(p("cut.h5"), fs::file_size(p("cut.h5")) / 2);
  expect_refused(p("cut.h5"), "cannot be opened as an HDF5 file");

  {
    ForeignFile f(p("alien.h5"));
    f.add("x", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {4}, std::vector<double>(4, 1.0));
  }
  expect_refused(p("alien.h5"), "without the datasets o, P or M: not a CEC 2010 instance");

  {
    ForeignFile f(p("other_format.h5"));
    h5::write_attribute(f.root(), "format", std::string("chainsaw checkpoint"));
    f.add("o", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {static_cast<hsize_t>(d)},
          std::vector<double>(d, 0.5));
  }
  expect_refused(p("other_format.h5"), "of format 'chainsaw checkpoint', not a CEC 2010 instance");

  expect_refused(p("good.h5"), "an instance of cec2010-f9, not of cec2010-f10", "cec2010-f10");
  expect_refused(p("good.h5"), "dim 200 does not match --dim = 300", "cec2010-f9", 300);

  const std::vector<double> o(static_cast<size_t>(d), 1.0);
  std::vector<std::int32_t> identity(static_cast<size_t>(d));
  for (Dim k = 0; k < d; ++k) identity[k] = static_cast<std::int32_t>(k);
  const hsize_t n = static_cast<hsize_t>(d);
  auto with = [&](const std::string& name, const std::function<void(ForeignFile&)>& fill) {
    ForeignFile f(p(name));
    fill(f);
    return p(name);
  };
  expect_refused(with("short_o.h5",
                      [&](ForeignFile& f) {
                        f.add("o", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {n - 50},
                              std::vector<double>(d - 50, 1.0));
                      }),
                 "dataset o has 150 values, --dim = 200");
  expect_refused(with("string_o.h5",
                      [&](ForeignFile& f) {
                        f.add("o", H5T_STD_I32LE, H5T_NATIVE_INT32, {n}, identity);
                      }),
                 "dataset o does not hold floating-point numbers");
  expect_refused(with("float_p.h5",
                      [&](ForeignFile& f) {
                        f.add("P", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {n}, o);
                      }),
                 "dataset P does not hold integers");
  expect_refused(with("matrix_p.h5",
                      [&](ForeignFile& f) {
                        f.add("P", H5T_STD_I32LE, H5T_NATIVE_INT32, {2, n / 2}, identity);
                      }),
                 "dataset P has 2 dimensions, expected 1");
  expect_refused(with("three_m.h5",
                      [&](ForeignFile& f) {
                        f.add("M", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {3, 50, 50},
                              std::vector<double>(3 * kM * kM, 0.0));
                      }),
                 "dataset M is 3 x 50 x 50, not 50 x 50");
  std::vector<double> skew(static_cast<size_t>(kM * kM), 0.0);
  for (int i = 0; i < kM; ++i) skew[i * kM + i] = i == 7 ? 1.01 : 1.0;
  expect_refused(with("skew_m.h5",
                      [&](ForeignFile& f) {
                        f.add("M", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {50, 50}, skew);
                      }),
                 "rotation is not orthogonal: max |M M^T - I| = 0.0201");
  std::vector<std::int32_t> repeated = identity;
  repeated[10] = 9;
  expect_refused(with("repeated_p.h5",
                      [&](ForeignFile& f) {
                        f.add("P", H5T_STD_I32LE, H5T_NATIVE_INT32, {n}, repeated);
                      }),
                 "permutation is not a permutation of 0..199: value 11 = 9");
  std::vector<double> outside = o;
  outside[42] = -100.5;
  expect_refused(with("outside_o.h5",
                      [&](ForeignFile& f) {
                        f.add("o", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {n}, outside);
                      }),
                 "shift value 43 = -100.500000 is outside the domain of cec2010-f9");
  expect_refused(with("base_two.h5",
                      [&](ForeignFile& f) {
                        const hid_t pd =
                            f.dataset("P", H5T_STD_I32LE, H5T_NATIVE_INT32, {n}, identity);
                        ForeignFile::int_attribute(pd, "base", 2);
                        H5Dclose(pd);
                      }),
                 "P's attribute base = 2: 0 or 1");
}

// A flipped byte inside o's chunk fails its Fletcher-32 checksum.
TEST_F(InstanceFiles, AFlippedByteFailsTheChecksum) {
  const Problem good = Problem::make("cec2010-f1", 5000, 3);
  write_instance_file("-o", p("i.h5"), *good.cec, function_info("cec2010-f1"), "test");
  haddr_t address = 0;
  hsize_t size = 0;
  {
    h5::Handle file = h5::open_file_read_only(p("i.h5"));
    h5::Handle o = h5::open_dataset(file.get(), "o");
    const hid_t space = H5Dget_space(o.get());
    hsize_t offset[1];
    unsigned mask = 0;
    ASSERT_GE(H5Dget_chunk_info(o.get(), space, 0, offset, &mask, &address, &size), 0);
    H5Sclose(space);
  }
  ASSERT_GT(size, 1000u);
  test::flip_byte(p("i.h5"), address + size / 2, 0x21);
  expect_refused(p("i.h5"), "dataset o fails its checksum", "cec2010-f1", 5000);
}

TEST_F(InstanceFiles, TheTextFileNamesItsSectionsAndSource) {
  const Problem p4 = Problem::make("cec2010-f4", 100, 6);
  write_instance_file("-o", p("i.txt"), *p4.cec, function_info("cec2010-f4"),
                      "generated from problem seed 6");
  std::ifstream in(p("i.txt"));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char* part : {"# chainsaw cec2010 instance", "cec2010-f4, D = 100; generated from "
                           "problem seed 6", "\ndim 100\n", "\nshift\n", "\npermutation  # 0-based\n",
                           "\nrotation  # 50 x 50"})
    EXPECT_NE(text.find(part), std::string::npos) << part;
}

}  // namespace
}  // namespace chainsaw
