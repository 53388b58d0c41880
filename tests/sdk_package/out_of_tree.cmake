# cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=... -P out_of_tree.cmake
# Fails (FATAL_ERROR) with the step and its output when any step fails.
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE out TIMEOUT 300)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "out-of-tree example: ${what} failed (${rc}):\n${out}")
  endif()
  message(STATUS "${what}: ok")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
step("install Strata to ${prefix}"
     "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")
step("configure the example against the installed package"
     "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}/build" -G "${GENERATOR}"
     -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
step("build the example" "${CMAKE_COMMAND}" --build "${WORK_DIR}/build")

file(GLOB plugin "${WORK_DIR}/build/libstrata_example.so")
if(NOT plugin)
  message(FATAL_ERROR "out-of-tree example: no libstrata_example.so in ${WORK_DIR}/build")
endif()

set(ENV{STRATA_PLUGIN_PATH} "${WORK_DIR}/build")
step("load it with the installed strata info" "${prefix}/bin/strata" info)
if(NOT step_output MATCHES "example/all_reduce/host_sum")
  message(FATAL_ERROR "out-of-tree example: strata info does not list "
                      "example/all_reduce/host_sum:\n${step_output}")
endif()
step("run the installed conformance suite on it"
     "${prefix}/bin/strata-conformance" --plugin "${plugin}" --quick --gtest_brief=1)
message(STATUS "out-of-tree example: built, loaded and conformant")
