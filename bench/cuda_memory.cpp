#include "bench/cuda_memory.h"

#ifdef FATHOM_CUDA_ALLOCATOR_STATS
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace fathom::bench {

std::optional<int64_t> cuda_peak_allocated_bytes(int index) {
#ifdef FATHOM_CUDA_ALLOCATOR_STATS
  const auto stats =
      c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(index));
  // Element 0 is StatType::AGGREGATE (all pools) in every LibTorch since 1.x; the enum moved
  // namespaces in 2.x, the layout did not.
  return stats.allocated_bytes[0].peak;
#else
  (void)index;
  return std::nullopt;
#endif
}

void reset_cuda_peak(int index) {
#ifdef FATHOM_CUDA_ALLOCATOR_STATS
  c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(index));
#else
  (void)index;
#endif
}

}  // namespace fathom::bench
