// What every GPU test starts with: skip (not fail) where there is no usable GPU, as in CI.
#pragma once

#include <gtest/gtest.h>

#include "core/gpu/device_info.hpp"

#define REQUIRE_GPU()                                                             \
  do {                                                                            \
    if (!::chainsaw::query_cuda_device().available) GTEST_SKIP() << "no CUDA GPU"; \
  } while (0)
