# Runs COMMAND (a ;-list) and fails unless it exits with status EXPECT and,
# when given, prints EXPECT_OUTPUT (a regular expression) on stdout or stderr.
#   cmake -DEXPECT=2 "-DCOMMAND=prog;--flag" [-DEXPECT_OUTPUT=regex] -P expect_exit.cmake
execute_process(COMMAND ${COMMAND}
                RESULT_VARIABLE status
                OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message("${out}${err}")
if(NOT "${status}" STREQUAL "${EXPECT}")
  message(FATAL_ERROR "expected exit status ${EXPECT}, got ${status}")
endif()
if(DEFINED EXPECT_OUTPUT AND NOT "${out}${err}" MATCHES "${EXPECT_OUTPUT}")
  message(FATAL_ERROR "output does not match '${EXPECT_OUTPUT}'")
endif()
