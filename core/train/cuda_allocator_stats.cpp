// LibTorch's CUDA caching allocator counters for the system metrics
// (core/train/system_metrics.h). Only a LibTorch built with CUDA has them: core/CMakeLists.txt
// defines FATHOM_CUDA_ALLOCATOR_STATS and links libc10_cuda where it finds it (as
// bench/CMakeLists.txt does for bench/cuda_memory.cpp); elsewhere there are none.
#include "core/train/system_metrics.h"

#ifdef FATHOM_CUDA_ALLOCATOR_STATS
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace fathom {

std::optional<std::pair<double, double>> cuda_allocator_bytes(int index) {
#ifdef FATHOM_CUDA_ALLOCATOR_STATS
  const auto stats =
      c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(index));
  // Element 0 is the aggregate over every pool (StatType::AGGREGATE).
  return std::make_pair(static_cast<double>(stats.allocated_bytes[0].current),
                        static_cast<double>(stats.reserved_bytes[0].current));
#else
  (void)index;
  return std::nullopt;
#endif
}

}  // namespace fathom
