#pragma once
// Automatic mixed precision ("autocast") as an RAII scope, for the forward pass. Inside the
// scope LibTorch runs matrix products in the reduced dtype and keeps precision-sensitive ops
// (layer_norm, softmax, log_softmax, losses) in float32: the op lists of PyTorch's
// torch.autocast (https://pytorch.org/docs/stable/amp.html#autocast-op-reference). The scope
// mirrors torch.autocast's __enter__/__exit__: set dtype and flag, count nesting, and clear
// the cast-weight cache when the outermost scope ends.
#include <torch/torch.h>

namespace fathom {

// What autocast does on one device type: nothing, or cast to `dtype`.
struct AutocastSetting {
  bool enabled = false;
  c10::DeviceType device = c10::DeviceType::CPU;
  at::ScalarType dtype = at::kBFloat16;
};

// bf16 autocast on the CPU: its matrix products go to oneDNN, which runs on LibTorch's intra-op
// threads rather than OpenBLAS's (configure_threads' bf16_matmuls, core/train/threads.h).
inline bool bf16_matmuls_on_cpu(const AutocastSetting& setting) {
  return setting.enabled && setting.device == c10::DeviceType::CPU &&
         setting.dtype == at::kBFloat16;
}

// The setting currently active on `device` (so it can be re-entered later, e.g. when an
// activation-checkpointed layer is recomputed in backward).
AutocastSetting active_autocast(c10::DeviceType device);

class AutocastScope {
 public:
  explicit AutocastScope(const AutocastSetting& setting);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  AutocastSetting setting_, previous_;
};

}  // namespace fathom
