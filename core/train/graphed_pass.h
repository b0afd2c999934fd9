#pragma once
// A forward + loss + backward captured once as a CUDA graph for one batch shape, then replayed
// (issue 62). On a GPU, LibTorch's eager dispatch spends tens of microseconds of host time on
// every operator -- autograd's bookkeeping, autocast's casts, the launch -- while a d512 layer's
// kernels take a few each: the H200's base bf16 step (docs/gpu.md) spent most of its forward
// waiting on the host. A replay launches the whole recorded pass at once.
//
// What a graph fixes at capture: the tensor shapes, every host-side decision, the memory the
// pass uses. So the pass must read only the batch's tensors and `scale` (copied into the
// graph's own inputs before each replay) and never synchronise with the host (no .item(), no
// masked_select or nonzero). Dropout stays random: the replay draws from the CUDA generator's
// current seed and offset, so reseeding before a replay (the trainer's per-update seed) draws
// the masks an eager pass would. Gradients accumulate into the parameters' existing .grad
// tensors, which must be defined before capture (zeroed in place between updates, never reset
// to undefined: the graph keeps writing where they were).
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <vector>

#include "core/data/batch.h"

namespace fathom {

// Whether this build can capture CUDA graphs (a LibTorch built with CUDA).
bool cuda_graphs_available();

class GraphedPass {
 public:
  // The pass to capture: reads `batch` and `scale` (a float scalar on the device: the trainer's
  // divides its objective by it, the update's tokens) and returns the tensors to read after a
  // replay (the loss sums).
  using Pass =
      std::function<std::vector<torch::Tensor>(const Batch& batch, const torch::Tensor& scale)>;

  // Captures `pass` for the shapes of `example` (on `device`, a CUDA device), after `warmups`
  // eager runs of it on the capturing stream (cuBLAS's workspaces, autocast's first casts);
  // they run on `example` and accumulate gradients, which the caller zeroes (the CUDA
  // generator is left as it was found). `share_pool_with`: a graph whose memory pool this
  // one shares (graphs of one pool are replayed one at a time, their outputs read before the
  // next). Throws std::invalid_argument where the build or the device cannot.
  GraphedPass(const Pass& pass, const Batch& example, torch::Device device, int warmups = 2,
              const GraphedPass* share_pool_with = nullptr);
  ~GraphedPass();
  GraphedPass(GraphedPass&&) noexcept;
  GraphedPass& operator=(GraphedPass&&) noexcept;

  // Whether `batch` has the captured shapes.
  bool fits(const Batch& batch) const;
  // Copies `batch` (same shapes; on the device or pinned host memory) and `scale` into the
  // graph's inputs and replays on the current stream, without waiting for it. The outputs are
  // the captured ones: the next replay of this graph, or of one sharing its pool, rewrites
  // them.
  const std::vector<torch::Tensor>& replay(const Batch& batch, double scale);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fathom
