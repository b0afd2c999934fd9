# Unity builds (docs/performance.md, "Clean build time"): a library compiles its files in batches of
# FATHOM_UNITY_BATCH, one translation unit each, so what its files share -- LibTorch's inline
# code, CLI11 (header-only), Qt and QCustomPlot -- is parsed and code-generated once a batch
# instead of once a file. Files keep their own anonymous namespaces' names apart by naming
# them distinctly (a clash is a compile error, never a silent merge).
option(FATHOM_UNITY_BUILD "Compile each library's files in batches (faster clean builds)" ON)
set(FATHOM_UNITY_BATCH 48 CACHE STRING "files per unity batch")
# Test programs (one per test directory, tests/CMakeLists.txt) batch their files too.
set(FATHOM_TEST_UNITY_BATCH 48 CACHE STRING "test files per unity batch")

# The batches are made apart for the files that include LibTorch and those that do not (GROUP
# mode, groups torch_<k> and plain_<k>), so that fathom_use_torch_pch can keep the precompiled
# <torch/torch.h> out of the torch-free batches: CMake gives a unity batch the target's
# precompiled header whatever its files say.
function(fathom_unity_build target)
  if(NOT FATHOM_UNITY_BUILD OR FATHOM_FUZZ)
    return()
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
  get_target_property(sources ${target} SOURCES)
  get_target_property(dir ${target} SOURCE_DIR)
  set(count_torch 0)
  set(count_plain 0)
  set(plain_groups "")
  foreach(src IN LISTS sources)
    get_filename_component(path ${src} ABSOLUTE BASE_DIR ${dir})
    if(NOT path MATCHES "\\.cpp$" OR NOT EXISTS ${path})
      continue()  # a file generated at build time (base's version.cpp) compiles on its own
    endif()
    fathom_includes_torch(${path} uses)
    if(uses)
      set(kind torch)
    else()
      set(kind plain)
    endif()
    math(EXPR batch "${count_${kind}} / ${FATHOM_UNITY_BATCH}")
    math(EXPR count_${kind} "${count_${kind}} + 1")
    set_source_files_properties(${path} TARGET_DIRECTORY ${target}
                                PROPERTIES UNITY_GROUP ${kind}_${batch})
    if(kind STREQUAL "plain")
      list(APPEND plain_groups plain_${batch})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES plain_groups)
  set_target_properties(${target} PROPERTIES FATHOM_PLAIN_UNITY_GROUPS "${plain_groups}")
endfunction()

# A test program (one per test directory) compiles its files in batches of
# FATHOM_TEST_UNITY_BATCH; each file keeps its code in a namespace named after the file.
function(fathom_unity_test_program target)
  if(FATHOM_UNITY_BUILD AND NOT FATHOM_FUZZ)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON
                          UNITY_BUILD_BATCH_SIZE ${FATHOM_TEST_UNITY_BATCH})
  endif()
endfunction()

# LibTorch's precompiled <torch/torch.h> (fathom_core's) speeds up a file that uses LibTorch
# (tests/core/test_model.cpp: 22 s with it, 33 s without) and slows down one that does not, 3x:
# GCC processes the header's pending inline code in every file that loads it (test_cli.cpp:
# 9 s without it, 25-28 s with it). fathom_use_torch_pch(target) gives it to exactly those of
# the target's sources that include LibTorch, directly or through the project's own headers
# (found by reading their #include lines at configure time).
function(fathom_includes_torch file out)
  get_property(known GLOBAL PROPERTY "fathom_torch_${file}" SET)
  if(known)
    get_property(result GLOBAL PROPERTY "fathom_torch_${file}")
    set(${out} ${result} PARENT_SCOPE)
    return()
  endif()
  set_property(GLOBAL PROPERTY "fathom_torch_${file}" FALSE)  # cycles end here
  if(NOT EXISTS ${file})  # generated at build time: the project's generated files use no LibTorch
    set(${out} FALSE PARENT_SCOPE)
    return()
  endif()
  file(STRINGS ${file} includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
  set(result FALSE)
  foreach(line IN LISTS includes)
    if(line MATCHES "<(torch|ATen|c10)/")
      set(result TRUE)
      break()
    elseif(line MATCHES "\"([^\"]+)\"")
      set(header ${PROJECT_SOURCE_DIR}/${CMAKE_MATCH_1})  # the project's includes are rooted
      if(EXISTS ${header})
        fathom_includes_torch(${header} nested)
        if(nested)
          set(result TRUE)
          break()
        endif()
      endif()
    endif()
  endforeach()
  set_property(GLOBAL PROPERTY "fathom_torch_${file}" ${result})
  set(${out} ${result} PARENT_SCOPE)
endfunction()

function(fathom_use_torch_pch target)
  get_target_property(sources ${target} SOURCES)
  get_target_property(dir ${target} SOURCE_DIR)
  set(any FALSE)
  foreach(src IN LISTS sources)
    get_filename_component(path ${src} ABSOLUTE BASE_DIR ${dir})
    if(NOT path MATCHES "\\.cpp$")
      continue()
    endif()
    fathom_includes_torch(${path} uses)
    if(uses)
      set(any TRUE)
    else()
      set_source_files_properties(${path} TARGET_DIRECTORY ${target}
                                  PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    endif()
  endforeach()
  # fathom_unity_build's torch-free batches (a property of the generated batch file).
  get_target_property(plain_groups ${target} FATHOM_PLAIN_UNITY_GROUPS)
  get_target_property(binary_dir ${target} BINARY_DIR)
  if(plain_groups)
    foreach(group IN LISTS plain_groups)
      set_source_files_properties(
        ${binary_dir}/CMakeFiles/${target}.dir/Unity/unity_${group}_cxx.cxx
        TARGET_DIRECTORY ${target} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    endforeach()
  endif()
  if(NOT any)
    return()
  endif()
  if(target STREQUAL "fathom_core")  # the header's owner: ~15 s per file, precompiled once
    target_precompile_headers(fathom_core PRIVATE <torch/torch.h>)
  else()
    target_precompile_headers(${target} REUSE_FROM fathom_core)
  endif()
endfunction()

# Test programs are optimized less (-O1) than what they test (-O3, Release): a test file spends
# most of its compile time generating LibTorch's and gtest's inline code, which -O1 does in
# about 60 % of the time (measured: tests/core/test_model.cpp 23 s at -O3, 13 s at -O1), and the
# code under test is the libraries', built with the full optimization. -O1 keeps __OPTIMIZE__,
# so the tests still reuse fathom_core's precompiled <torch/torch.h>. Debug builds keep -O0.
# GCC 13 and later (x86) also switch two target options on from -O2 (-munroll-only-small-loops,
# -mvzeroupper), and GCC uses a precompiled header only under the same target options: with -O1
# alone, GCC 14 (Debian 13) skipped the header in every test file (-Winvalid-pch), so the tests
# name both. GCC 12 has neither difference (its -O1 and -O3 target options are the same).
include(CheckCXXCompilerFlag)
check_cxx_compiler_flag(-munroll-only-small-loops FATHOM_CXX_HAS_UNROLL_ONLY_SMALL_LOOPS)
set(FATHOM_TEST_OPTIMIZE -O1)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND FATHOM_CXX_HAS_UNROLL_ONLY_SMALL_LOOPS)
  list(APPEND FATHOM_TEST_OPTIMIZE -munroll-only-small-loops -mvzeroupper)
endif()
function(fathom_test_program target)
  target_compile_options(${target}
                         PRIVATE "$<$<CONFIG:Release,RelWithDebInfo,MinSizeRel>:${FATHOM_TEST_OPTIMIZE}>")
endfunction()

# The linker: GNU gold where the compiler can use it. Relinking the build's 52 programs (most
# link LibTorch) takes 6.7 s with it against 30.4 s with the default BFD linker on 2 cores
# (docs/performance.md, "Clean build time"). Debian 12's binutils has it; where it is missing
# (binutils 2.44 moved it out) the check falls back to the default. Sanitized builds (the fuzz
# targets, scripts/sanitize.sh) keep the default: gold warns on every ASan helper symbol.
option(FATHOM_GOLD_LINKER "Link with GNU gold where the compiler accepts -fuse-ld=gold" ON)
if(FATHOM_GOLD_LINKER AND NOT FATHOM_SANITIZE)
  include(CheckLinkerFlag)
  check_linker_flag(CXX "-fuse-ld=gold" FATHOM_HAVE_GOLD)
  if(FATHOM_HAVE_GOLD)
    add_link_options(-fuse-ld=gold)
  endif()
endif()
