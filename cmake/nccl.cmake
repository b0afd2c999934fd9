# NCCL for GPU ranks (core/train/reduce_backend.h, docs/distributed.md). c10d's
# ProcessGroupNCCL is in a CUDA LibTorch built with NCCL (TorchConfig's targets then define
# USE_C10D_NCCL); its header includes <nccl.h>, which a PyTorch wheel keeps apart, in the
# nvidia-nccl package (FATHOM_NCCL_ROOT: that package's folder, which scripts/gpu/build.sh
# passes). A probe compiles and links one use of the group; only where it succeeds does
# fathom_core get FATHOM_NCCL. Where it fails the ranks reduce with Gloo and this says why,
# so a GPU build never breaks over NCCL.
#   fathom_probe_nccl(TARGET)
include(CheckCXXSourceCompiles)

function(fathom_probe_nccl target)
  if(NOT C10_CUDA_LIBRARY)
    return()  # a CPU LibTorch (Debian 12's): no NCCL to find
  endif()
  find_path(FATHOM_NCCL_INCLUDE_DIR nccl.h HINTS ${FATHOM_NCCL_ROOT}/include
            ${CUDAToolkit_INCLUDE_DIRS})
  find_library(FATHOM_NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${FATHOM_NCCL_ROOT}/lib)
  if(NOT FATHOM_NCCL_INCLUDE_DIR OR NOT FATHOM_NCCL_LIBRARY)
    message(STATUS "NCCL: nccl.h or libnccl not found (set FATHOM_NCCL_ROOT); GPU ranks use Gloo")
    return()
  endif()
  # Compile only, against the torch targets' include folders and definitions read here: a
  # probe that links the imported torch targets makes try_compile re-import them, and a
  # wheel's torch_cpu then names protobuf::libprotobuf, which that project lacks -- a CMake
  # error that stopped the whole configure on the H200 (2026-11-30). The real link follows.
  set(definitions "")
  set(includes ${FATHOM_NCCL_INCLUDE_DIR} ${CUDAToolkit_INCLUDE_DIRS} ${TORCH_INCLUDE_DIRS})
  foreach(torch_target torch torch_cpu torch_cuda c10 c10_cuda)
    if(NOT TARGET ${torch_target})
      continue()
    endif()
    get_target_property(target_definitions ${torch_target} INTERFACE_COMPILE_DEFINITIONS)
    foreach(definition IN LISTS target_definitions)
      if(definition AND NOT definition MATCHES "\\$<")
        list(APPEND definitions -D${definition})
      endif()
    endforeach()
    get_target_property(target_includes ${torch_target} INTERFACE_INCLUDE_DIRECTORIES)
    foreach(folder IN LISTS target_includes)
      if(folder AND NOT folder MATCHES "\\$<")
        list(APPEND includes ${folder})
      endif()
    endforeach()
  endforeach()
  set(CMAKE_REQUIRED_DEFINITIONS ${definitions})
  set(CMAKE_REQUIRED_INCLUDES ${includes})
  set(CMAKE_REQUIRED_LIBRARIES "")
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
  set(CMAKE_REQUIRED_QUIET ON)
  check_cxx_source_compiles("
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#ifndef USE_C10D_NCCL
#error this LibTorch was built without NCCL
#endif
int probe() { return c10d::ProcessGroupNCCL::Options::create() ? 0 : 1; }
" FATHOM_NCCL_LINKS)
  if(FATHOM_NCCL_LINKS)
    message(STATUS "NCCL: ${FATHOM_NCCL_LIBRARY}; GPU ranks reduce with NCCL")
    target_compile_definitions(${target} PUBLIC FATHOM_NCCL)
    target_include_directories(${target} PRIVATE ${FATHOM_NCCL_INCLUDE_DIR})
    target_link_libraries(${target} PUBLIC ${FATHOM_NCCL_LIBRARY})
  else()
    message(STATUS "NCCL: ProcessGroupNCCL's header did not compile here "
                   "(CMakeFiles/CMakeError.log); GPU ranks use Gloo")
  endif()
endfunction()
