# cmake -D program=P -D listing=F -P list_test_suites.cmake: writes `P --gtest_list_tests` to F
# (cmake/test_suites.cmake reads the suites from it), failing the build when P cannot list.
execute_process(COMMAND "${program}" --gtest_list_tests
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 60)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${program} --gtest_list_tests failed (${rc}):\n${out}${err}")
endif()
file(WRITE "${listing}" "${out}")
