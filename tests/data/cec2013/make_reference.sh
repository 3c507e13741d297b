#!/usr/bin/env bash
# Makes reference.txt: f of the official CEC 2013 LSGO code (github dmolina/cec2013lsgo, folder
# cec2013lsgo: Benchmarks.cpp, F1.cpp .. F15.cpp and cdatafiles/) at the points of README.md,
# for every function at its official D (1000; 905 for F13 and F14). The official code is not
# part of this repository: give its folder.
#   tests/data/cec2013/make_reference.sh /path/to/cec2013lsgo > tests/data/cec2013/reference.txt
set -euo pipefail
official=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/driver.cpp" <<'CPP'
// Evaluates the official functions at the reference points (README.md): two uniform points of
// the domain, two near the optimum, x = 0, and the optimum itself, in double.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "Header.h"

namespace {

std::uint64_t next(std::uint64_t& s) {
  s += 0x9e3779b97f4a7c15ULL;
  std::uint64_t z = s;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
double unit(std::uint64_t& s) { return static_cast<double>(next(s) >> 11) / 9007199254740992.0; }

std::vector<double> numbers(const std::string& file) {
  std::ifstream in("cdatafiles/" + file);
  std::vector<double> v;
  std::string token;
  while (std::getline(in, token, ',')) {
    std::istringstream lines(token);
    for (std::string w; lines >> w;) v.push_back(std::stod(w));
  }
  return v;
}

// The optimum's position per variable: o (F12: o + 1); F14: the o of the first group that
// holds the variable (its groups want different values of the shared ones).
std::vector<double> centre(int f, int dim) {
  const std::string n = "F" + std::to_string(f) + "-";
  std::vector<double> o = numbers(n + "xopt.txt");
  if (f == 12)
    for (double& v : o) v += 1.0;
  if (f != 14) return o;
  const std::vector<double> s = numbers(n + "s.txt"), p = numbers(n + "p.txt");
  std::vector<double> c(dim, 0.0);
  std::vector<char> set(dim, 0);
  int start = 0, offset = 0;
  for (double size : s) {
    for (int k = 0; k < static_cast<int>(size); ++k) {
      const int j = static_cast<int>(p[start + k]) - 1;
      if (!set[j]) c[j] = o[offset + k], set[j] = 1;
    }
    start += static_cast<int>(size) - 5;
    offset += static_cast<int>(size);
  }
  return c;
}

}  // namespace

int main() {
  const double bound[16] = {0, 100, 5, 32, 100, 5, 32, 100, 100, 5, 32, 100, 100, 100, 100, 100};
  const char* kinds[4] = {"uniform-a", "uniform-b", "near", "nearer"};
  const double spread[4] = {0.0, 0.0, 1e-2, 1e-4};
  std::printf("# function point f (official code, %%.17g)\n");
  for (int f = 1; f <= 15; ++f) {
    Benchmarks* fp = generateFuncObj(f);
    fp->nextRun();
    const int dim = f == 13 || f == 14 ? 905 : 1000;
    const double lower = -bound[f], width = 2.0 * bound[f];
    const std::vector<double> c = centre(f, dim);
    std::vector<double> x(dim);
    for (int k = 0; k < 4; ++k) {
      std::uint64_t s = 0x5eed0000ULL + 100ULL * f + k;
      for (int j = 0; j < dim; ++j) {
        const double u = unit(s);
        const double v = k < 2 ? lower + width * u : c[j] + spread[k] * width * (2.0 * u - 1.0);
        x[j] = static_cast<float>(v);  // the genes' precision: the points are floats
      }
      std::printf("%d %s %.17g\n", f, kinds[k], fp->compute(x.data()));
    }
    std::vector<double> zero(dim, 0.0), optimum = c;
    std::printf("%d zero %.17g\n", f, fp->compute(zero.data()));
    std::printf("%d optimum %.17g\n", f, fp->compute(optimum.data()));
    delete fp;
  }
  return 0;
}
CPP

sources=(Benchmarks.cpp F1.cpp F2.cpp F3.cpp F4.cpp F5.cpp F6.cpp F7.cpp F8.cpp F9.cpp F10.cpp
         F11.cpp F12.cpp F13.cpp F14.cpp F15.cpp eval_func.cpp)
( cd "$official" && g++ -std=c++11 -O2 -I. -o "$work/driver" "${sources[@]}" "$work/driver.cpp" )
cd "$official"  # the official code reads cdatafiles/ from the working directory
"$work/driver"
