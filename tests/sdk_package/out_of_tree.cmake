# cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DCONSUMER_DIR=... -DWORK_DIR=... -DGENERATOR=...
#       -P out_of_tree.cmake
# Fails (FATAL_ERROR) with the step and its output when any step fails.
# spdlog and fmt are core's private dependencies: the out-of-tree projects
# are configured with both hidden from find_package, as on a machine that
# has only Strata's own package.
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
set(hide_private_deps -DCMAKE_DISABLE_FIND_PACKAGE_spdlog=ON -DCMAKE_DISABLE_FIND_PACKAGE_fmt=ON)
step("configure the example against the installed package (no spdlog, no fmt)"
     "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}/build" -G "${GENERATOR}"
     -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release ${hide_private_deps})
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
step("run the installed conformance suite on it (exports checked too, rule 1)"
     "${prefix}/bin/strata-conformance" --plugin "${plugin}" --quick --gtest_brief=1)
if(NOT step_output MATCHES "\nexample +1 +0 +0 +0 *\n")
  message(FATAL_ERROR "out-of-tree example: the exports check (rule 1) did not pass:\n"
                      "${step_output}")
endif()

# The docs name example configs as configs/<file>.yaml: installed under
# share/strata/configs, and StrataConfig.cmake says where (STRATA_CONFIGS_DIR).
if(NOT EXISTS "${prefix}/share/strata/configs/mirrored_cpu.yaml")
  message(FATAL_ERROR "out-of-tree example: configs/ is not installed in ${prefix}/share/strata")
endif()
unset(ENV{STRATA_PLUGIN_PATH})
step("configure a Strata::core program against the installed package (no spdlog, no fmt)"
     "${CMAKE_COMMAND}" -S "${CONSUMER_DIR}" -B "${WORK_DIR}/consumer" -G "${GENERATOR}"
     -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release ${hide_private_deps})
step("build it" "${CMAKE_COMMAND}" --build "${WORK_DIR}/consumer")
step("run it" "${WORK_DIR}/consumer/core_consumer")
if(NOT step_output MATCHES
   "share/strata/configs/mirrored_cpu.yaml loaded; algorithms:.* hierarchical_copy/all_reduce/")
  message(FATAL_ERROR "out-of-tree example: the Strata::core program did not find the "
                      "installed config and plugins:\n${step_output}")
endif()
message(STATUS "out-of-tree example: built, loaded and conformant; Strata::core usable")
