# An algorithm that hangs in one dtype only: the one call that timed out is
# the one failure, named (with rule 7) as the first failure; every case of
# the algorithm after it is "not run", counted apart from "failed"; and the
# run still fails (exit status 1), since those cases verified nothing.
#   cmake -DCONFORMANCE=<exe> -DPLUGIN=<libstrata_faulty.so> -DJSON=<out> -P check_not_run.cmake
execute_process(
  COMMAND "${CONFORMANCE}" --plugin "${PLUGIN}" --algorithm faulty/all_reduce/hangs_f64
          --world-sizes 1,2 --counts 0,5 --dtypes f32,f64,i32 --redops sum --timeout 0.2
          --json "${JSON}" --gtest_brief=1
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
macro(fail what)
  message(FATAL_ERROR "conformance not-run check: ${what}")
endmacro()
if(NOT status EQUAL 1)
  fail("expected exit status 1, got ${status}")
endif()
file(READ "${JSON}" json)
string(JSON rows LENGTH "${json}" summary)
math(EXPR last "${rows} - 1")
set(found FALSE)
foreach(i RANGE ${last})
  string(JSON id GET "${json}" summary ${i} algorithm)
  if(NOT id STREQUAL "faulty/all_reduce/hangs_f64")
    continue()
  endif()
  set(found TRUE)
  foreach(field passed failed not_run_tests first_failure)
    string(JSON ${field} GET "${json}" summary ${i} ${field})
  endforeach()
endforeach()
if(NOT found)
  fail("no summary row for faulty/all_reduce/hangs_f64")
endif()
# 18 cases (2 world sizes; count 0 out of place only, count 5 both ways; 3 dtypes):
# n1_c0_f32 passes, n1_c0_f64 times out, the other 16 are not run.
if(NOT passed EQUAL 1 OR NOT failed EQUAL 1 OR NOT not_run_tests EQUAL 16)
  fail("expected 1 passed, 1 failed, 16 not run; got ${passed}, ${failed}, ${not_run_tests}")
endif()
if(NOT first_failure MATCHES "^n1_c0_f64_sum_outofplace: .*TIMED_OUT: violates rule 7")
  fail("the first failure must be the f64 call that timed out, citing rule 7: ${first_failure}")
endif()
if(NOT out MATCHES "faulty/all_reduce/hangs_f64 +1 +1 +16 +0  n1_c0_f64_sum_outofplace")
  fail("the summary table must show 1 passed, 1 failed, 16 not run and name the failure")
endif()
if(NOT out MATCHES "[0-9]+ test\\(s\\) in [0-9.e+-]+ s; 1 FAILED, 16 not run")
  fail("the last line must count the failure and the tests not run apart")
endif()
message(STATUS "a hang in one dtype: 1 failure named, 16 cases not run, counted apart")
