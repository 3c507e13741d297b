# ctest OutsideProject: installs the build tree (cmake --install) into a temporary prefix, then
# configures, builds and runs tests/outside_project against it with find_package(chainsaw).
# -D BUILD_DIR=<chainsaw build> -D SOURCE_DIR=<tests/outside_project> -D WORK_DIR=<scratch>
#    -D GENERATOR=<the build's generator>
file(REMOVE_RECURSE "${WORK_DIR}")
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()
step("cmake --install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
step("configuring the outside project" "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}/build"
     -G "${GENERATOR}" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix")
step("building the outside project" "${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
step("running the outside project" "${WORK_DIR}/build/app")
message("${step_output}")
if(NOT step_output MATCHES ": ok")
  message(FATAL_ERROR "the outside project did not report ok")
endif()
if(NOT EXISTS "${WORK_DIR}/prefix/bin/chainsaw")
  message(FATAL_ERROR "cmake --install did not install the chainsaw CLI")
endif()
