# The suite's own test: runs strata-conformance on the faulty plugin and
# checks that every deliberate bug is reported as the rule it breaks, that
# the correct algorithm passes, and that a decline is not counted as a pass.
#   cmake -DCONFORMANCE=<exe> -DPLUGIN=<libstrata_faulty.so> -DJSON=<out> -P check_faulty.cmake
execute_process(
  COMMAND "${CONFORMANCE}" --plugin "${PLUGIN}" --world-sizes 1,2,3 --counts 0,5
          --dtypes f32,f16,i32 --redops sum,max --timeout 0.5 --json "${JSON}"
          --gtest_brief=1
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT status EQUAL 1)
  message(FATAL_ERROR "expected exit status 1 (tests failed), got ${status}")
endif()
file(READ "${JSON}" json)

string(JSON rows LENGTH "${json}" summary)
math(EXPR last "${rows} - 1")
foreach(i RANGE ${last})
  string(JSON id GET "${json}" summary ${i} algorithm)
  string(REPLACE "faulty/" "" id "${id}")
  string(MAKE_C_IDENTIFIER "${id}" key)  # all_reduce_correct
  foreach(field passed failed declined first_failure)
    string(JSON value GET "${json}" summary ${i} ${field})
    set(${key}_${field} "${value}")
  endforeach()
  string(JSON value ERROR_VARIABLE missing GET "${json}" summary ${i} not_run)
  set(${key}_not_run "${value}")
endforeach()

macro(fail what)
  message(FATAL_ERROR "conformance self-test: ${what}")
endmacro()
# Algorithm `key` passed at least once and never failed.
macro(expect_passes key what)
  if(NOT ${key}_passed GREATER 0 OR NOT ${key}_failed EQUAL 0)
    fail("${what}")
  endif()
endmacro()
# Algorithm `key`'s first failure cites `rule`.
macro(expect_cites key rule what)
  if(NOT ${key}_first_failure MATCHES "violates rule ${rule}")
    fail("${what}")
  endif()
endmacro()

expect_passes(all_reduce_correct "the correct algorithm must pass")
expect_cites(all_reduce_off_by_one 10 "a wrong result must cite rule 10")
set(mismatch "replica 0 output\\[0\\]: expected [-0-9.e+]+, actual")
if(NOT all_reduce_off_by_one_first_failure MATCHES "${mismatch}")
  fail("a mismatch must name replica, element, expected and actual value")
endif()
expect_cites(all_reduce_throws 2 "an exception must cite rule 2")
if(NOT all_reduce_throws_first_failure MATCHES "rule 2\\): the backend threw")
  fail("the rule-2 report must keep the exception's own text ('the backend threw')")
endif()
expect_cites(all_reduce_bad_status 4 "an unknown status must cite rule 4")
expect_cites(broadcast_hangs 7 "a hang must end at the deadline and cite rule 7")
expect_cites(reduce_scribbles 8 "writing a non-root reduce output must cite rule 8")
expect_cites(reduce_scatter_overruns 8 "writing past the end of a buffer must cite rule 8")
expect_passes(all_gather_declines_f16
              "declines must be counted as declined and the rest must pass")
if(NOT all_gather_declines_f16_declined GREATER 0)
  fail("declines must be counted as declined and the rest must pass")
endif()
expect_passes(all_reduce_runs_in_parts
              "a correct algorithm that starts through run() and ends through test() must pass")
expect_cites(all_reduce_run_loses_op 4
             "run() answering IN_PROGRESS without an operation must cite rule 4")
if(NOT all_reduce_multi_process_not_run MATCHES "CROSS_PROCESS")
  fail("a CROSS_PROCESS algorithm must be skipped with its reason")
endif()
foreach(bad nan negative drifts)
  expect_cites(all_reduce_estimate_${bad} 5 "estimate (${bad}) must cite rule 5")
  if(NOT all_reduce_estimate_${bad}_first_failure MATCHES "^estimate_n1: estimate for n=1 ")
    fail("the estimate check must name the team and the call shape (${bad})")
  endif()
endforeach()
if(NOT all_reduce_estimate_nan_first_failure MATCHES "answered nan seconds, which is not a time"
   OR NOT all_reduce_estimate_negative_first_failure MATCHES "answered -[0-9.e-]+ seconds"
   OR NOT all_reduce_estimate_drifts_first_failure MATCHES "then [0-9.e-]+ when asked again")
  fail("the estimate check must say what was wrong with the answer")
endif()
if(NOT faulty_passed EQUAL 1 OR NOT faulty_failed EQUAL 0)
  fail("the faulty plugin, built by strata_add_plugin(), must export strata_plugin_entry alone")
endif()
message(STATUS "every deliberate bug was reported with the rule it breaks")
