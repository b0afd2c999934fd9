#pragma once
// The device that the tensor tests run on: FATHOM_TEST_DEVICE = cpu (default), cuda or cuda:N.
// On a GPU machine (docs/gpu.md):
//   FATHOM_TEST_DEVICE=cuda ctest -R '^(Trainer|FusedAttention|...)\.'
// Asking for CUDA where LibTorch sees no GPU fails the test (it never quietly runs on the CPU).
// Header-only.
#include <torch/torch.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace fathom {

// The name as a config's `device` key takes it.
inline std::string test_device_name() {
  const char* name = std::getenv("FATHOM_TEST_DEVICE");
  return name != nullptr && *name != '\0' ? std::string(name) : std::string("cpu");
}

inline torch::Device test_device() {
  const torch::Device device(test_device_name());
  if (device.is_cuda() && !torch::cuda::is_available())
    throw std::runtime_error("FATHOM_TEST_DEVICE=" + test_device_name() +
                             " but LibTorch sees no GPU");
  return device;
}

inline bool testing_on_cpu() { return test_device().is_cpu(); }

}  // namespace fathom
