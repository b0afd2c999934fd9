#include "core/model/autocast_scope.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

namespace fathom {
namespace {

// LibTorch 2.4 replaced the per-device functions (is_enabled, is_cpu_enabled, ...) by ones
// taking the device type; the old names are deprecated there, absent in 1.x's successor API.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
bool is_enabled(c10::DeviceType d) { return at::autocast::is_autocast_enabled(d); }
void set_enabled(c10::DeviceType d, bool on) { at::autocast::set_autocast_enabled(d, on); }
at::ScalarType dtype_of(c10::DeviceType d) { return at::autocast::get_autocast_dtype(d); }
void set_dtype(c10::DeviceType d, at::ScalarType t) { at::autocast::set_autocast_dtype(d, t); }
#else
bool is_enabled(c10::DeviceType d) {
  return d == c10::DeviceType::CUDA ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
}
void set_enabled(c10::DeviceType d, bool on) {
  if (d == c10::DeviceType::CUDA)
    at::autocast::set_enabled(on);
  else
    at::autocast::set_cpu_enabled(on);
}
at::ScalarType dtype_of(c10::DeviceType d) {
  return d == c10::DeviceType::CUDA ? at::autocast::get_autocast_gpu_dtype()
                                    : at::autocast::get_autocast_cpu_dtype();
}
void set_dtype(c10::DeviceType d, at::ScalarType t) {
  if (d == c10::DeviceType::CUDA)
    at::autocast::set_autocast_gpu_dtype(t);
  else
    at::autocast::set_autocast_cpu_dtype(t);
}
#endif

}  // namespace

AutocastSetting active_autocast(c10::DeviceType device) {
  return AutocastSetting{is_enabled(device), device, dtype_of(device)};
}

AutocastScope::AutocastScope(const AutocastSetting& setting)
    : setting_(setting), previous_(active_autocast(setting.device)) {
  set_dtype(setting_.device, setting_.dtype);
  set_enabled(setting_.device, setting_.enabled);
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  // Casts of the weights are cached while autocast is on; drop them with the outermost scope.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  set_enabled(previous_.device, previous_.enabled);
  set_dtype(previous_.device, previous_.dtype);
}

}  // namespace fathom
