#pragma once
// LibTorch's CUDA caching allocator statistics for the benchmarks: the peak of the bytes held
// by live tensors, the figure torch.cuda.max_memory_allocated() gives the Python reference.
// Only a LibTorch built with CUDA has them; bench/CMakeLists.txt checks at configure time
// (FATHOM_CUDA_ALLOCATOR_STATS), elsewhere these say "not available".
#include <cstdint>
#include <optional>

namespace fathom::bench {

// The most bytes allocated at once on CUDA device `index` since the last reset; nullopt where
// this build has no CUDA allocator statistics.
std::optional<int64_t> cuda_peak_allocated_bytes(int index);
void reset_cuda_peak(int index);

}  // namespace fathom::bench
