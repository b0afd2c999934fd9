#include "core/train/graphed_pass.h"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#ifdef FATHOM_CUDA_GRAPHS
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace fathom {

namespace {

// Puts a generator's state back when it goes out of scope.
class GeneratorRestore {
 public:
  explicit GeneratorRestore(at::Generator generator)
      : generator_(std::move(generator)), state_(generator_.get_state()) {}
  ~GeneratorRestore() {
    try {
      generator_.set_state(state_);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "GraphedPass: the generator's state not restored: %s\n", e.what());
    }
  }
  GeneratorRestore(const GeneratorRestore&) = delete;
  GeneratorRestore& operator=(const GeneratorRestore&) = delete;

 private:
  at::Generator generator_;
  torch::Tensor state_;
};

bool same_shapes(const Batch& a, const Batch& b) {
  return a.src.sizes() == b.src.sizes() && a.tgt_in.sizes() == b.tgt_in.sizes() &&
         a.tgt_out.sizes() == b.tgt_out.sizes();
}

}  // namespace

bool cuda_graphs_available() {
#ifdef FATHOM_CUDA_GRAPHS
  return true;
#else
  return false;
#endif
}

struct GraphedPass::Impl {
#ifdef FATHOM_CUDA_GRAPHS
  at::cuda::CUDAGraph graph;
#endif
  Batch inputs;         // the graph reads these tensors: each replay copies a batch in
  torch::Tensor scale;  // float scalar on the device
  std::vector<torch::Tensor> outputs;
};

GraphedPass::GraphedPass(const Pass& pass, const Batch& example, torch::Device device, int warmups,
                         const GraphedPass* share_pool_with) {
  if (!device.is_cuda())
    throw std::invalid_argument("a CUDA graph needs a CUDA device, not " + device.str());
  if (!cuda_graphs_available())
    throw std::invalid_argument("this build cannot capture CUDA graphs (its LibTorch has no CUDA)");
#ifdef FATHOM_CUDA_GRAPHS
  impl_ = std::make_unique<Impl>();
  Impl& g = *impl_;
  g.inputs = example;
  g.inputs.src = example.src.to(device).clone();
  g.inputs.tgt_in = example.tgt_in.to(device).clone();
  g.inputs.tgt_out = example.tgt_out.to(device).clone();
  g.scale = torch::ones({}, torch::TensorOptions().dtype(torch::kFloat).device(device));
  // Capture needs a stream of its own (never the legacy default one); the warm-up passes run
  // there too, so that what LibTorch sets up lazily per stream exists before the capture.
  torch::cuda::synchronize(device.index());
  // The warm-ups draw dropout masks: the generator is put back as found (a capture that
  // fails too), so that the first replay -- or the eager pass instead -- draws what an eager
  // pass would have.
  const GeneratorRestore restore(at::globalContext().defaultGenerator(device));
  c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(false, device.index());
  {
    c10::cuda::CUDAStreamGuard on_side(side);
    for (int i = 0; i < warmups; ++i) pass(g.inputs, g.scale);
    side.synchronize();
    const at::cuda::MempoolId_t pool =
        share_pool_with ? share_pool_with->impl_->graph.pool() : at::cuda::MempoolId_t{0, 0};
    g.graph.capture_begin(pool);
    try {
      g.outputs = pass(g.inputs, g.scale);
    } catch (const std::exception& e) {
      // End the capture so that the stream is usable again, whatever state it is in.
      try {
        g.graph.capture_end();
      } catch (const std::exception&) {
      }
      throw std::runtime_error(std::string("capturing the step as a CUDA graph failed: ") +
                               e.what());
    }
    g.graph.capture_end();
  }
  torch::cuda::synchronize(device.index());
#else
  (void)pass, (void)example, (void)warmups, (void)share_pool_with;
#endif
}

GraphedPass::~GraphedPass() = default;
GraphedPass::GraphedPass(GraphedPass&&) noexcept = default;
GraphedPass& GraphedPass::operator=(GraphedPass&&) noexcept = default;

bool GraphedPass::fits(const Batch& batch) const { return same_shapes(impl_->inputs, batch); }

const std::vector<torch::Tensor>& GraphedPass::replay(const Batch& batch, double scale) {
  if (!fits(batch))
    throw std::invalid_argument(
        "GraphedPass::replay: the batch's shapes are not the captured ones");
  Impl& g = *impl_;
  g.inputs.src.copy_(batch.src, /*non_blocking=*/true);
  g.inputs.tgt_in.copy_(batch.tgt_in, /*non_blocking=*/true);
  g.inputs.tgt_out.copy_(batch.tgt_out, /*non_blocking=*/true);
  g.scale.fill_(scale);
#ifdef FATHOM_CUDA_GRAPHS
  g.graph.replay();
#endif
  return g.outputs;
}

}  // namespace fathom
