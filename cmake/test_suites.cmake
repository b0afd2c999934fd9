# fathom_add_suite_tests(TARGET WORKING_DIRECTORY DIR [PROPERTIES name value ...])
#
# Registers one ctest test per gtest test *suite* of TARGET, named "Suite.*" and run as
# `TARGET --gtest_filter=Suite.*`, where gtest_discover_tests registers one per test. For a
# program that links LibTorch: every process of it spends ~1 s loading LibTorch and its ~290
# shared libraries (0.7-1.1 s measured for an empty main(); 1.9 s a test on average under
# `ctest -j 2`), which was over half of the 347 LibTorch tests' time in CI. A suite's tests
# then share one process, as they do when the program is run by hand.
#
# A suite passes when gtest exits 0, skipped tests included: ctest's SKIP_REGULAR_EXPRESSION
# cannot tell "one of 30 skipped" from "all skipped" and would hide a failure beside a skip, so
# scripts/test-summary.sh lists every skipped gtest test, with its reason, after ctest.
#
# The suites are listed after each build of TARGET (`--gtest_list_tests`), so a new suite needs
# no CMake change; ${TARGET}_TESTS holds the registered names for include files that set more
# properties on them (as gtest_discover_tests' variable of the same name).
set(FATHOM_LIST_SUITES_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/list_test_suites.cmake)

function(fathom_add_suite_tests target)
  cmake_parse_arguments(arg "" "WORKING_DIRECTORY" "PROPERTIES" ${ARGN})
  set(listing ${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.txt)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -D program=$<TARGET_FILE:${target}> -D listing=${listing}
            -P ${FATHOM_LIST_SUITES_SCRIPT}
    BYPRODUCTS ${listing}
    WORKING_DIRECTORY ${arg_WORKING_DIRECTORY}
    COMMENT "Listing the test suites of ${target}"
    VERBATIM)
  set(properties "")
  foreach(value IN LISTS arg_PROPERTIES)
    string(APPEND properties " [==[${value}]==]")
  endforeach()
  # Read by ctest when it starts (TEST_INCLUDE_FILES), after the listing exists.
  file(GENERATE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake CONTENT
"set(${target}_TESTS \"\")
if(EXISTS [==[${listing}]==])
  file(STRINGS [==[${listing}]==] lines)
  foreach(line IN LISTS lines)
    # A suite's line starts at column 0: \"Suite.\" or \"Prefix/Suite.  # TypeParam = ...\".
    if(line MATCHES \"^([^ .#]+)\\\\.\")
      set(name \"\${CMAKE_MATCH_1}.*\")
      add_test(\"\${name}\" [==[$<TARGET_FILE:${target}>]==] \"--gtest_filter=\${name}\")
      set_tests_properties(\"\${name}\" PROPERTIES WORKING_DIRECTORY [==[${arg_WORKING_DIRECTORY}]==]${properties})
      list(APPEND ${target}_TESTS \"\${name}\")
    endif()
  endforeach()
else()
  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)
endif()
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES
               ${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake)
endfunction()
