// The release that wrote a result file. It comes from project(VERSION) in CMakeLists.txt, not
// from git, so a build from a tarball names itself the same way as one from a clone.
#pragma once

#ifndef CHAINSAW_VERSION
#error "CHAINSAW_VERSION is defined by CMakeLists.txt from project(VERSION)"
#endif

namespace chainsaw {
inline constexpr const char* kVersion = CHAINSAW_VERSION;
}  // namespace chainsaw
