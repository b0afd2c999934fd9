#pragma once
// The NVIDIA management library (NVML), found at run time: dlopen("libnvidia-ml.so.1") --
// the driver's own library, present wherever an NVIDIA driver is installed -- and its few
// functions resolved by name. Never a build dependency: where it is absent (no driver, a CPU
// machine) `Nvml::open` says so and nothing is recorded.
#include <memory>
#include <optional>
#include <string>

namespace fathom {

struct GpuReading {
  double utilisation_percent = 0;  // of the last sample period, by the driver (0-100)
  double memory_used_mib = 0;      // on the whole device, every process
  std::optional<double> power_w;   // board power, where the device reports it
};

class Nvml {
 public:
  // The library, initialised, and the device that CUDA calls `cuda_index` (mapped through
  // $CUDA_VISIBLE_DEVICES: NVML numbers every device, CUDA only the visible ones); nullptr
  // when the library, the device or an initialisation is missing.
  static std::unique_ptr<Nvml> open(int cuda_index);
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  // nullopt when the driver does not answer.
  std::optional<GpuReading> read() const;

  struct Api;  // the resolved functions (nvml.cpp)

 private:
  Nvml(std::unique_ptr<Api> api, void* device);
  std::unique_ptr<Api> api_;
  void* device_;
};

// Which NVML device CUDA's `cuda_index` is, given $CUDA_VISIBLE_DEVICES (`visible`, nullptr
// when unset): the index (a plain number list), or the UUID/PCI id text; apart for tests.
std::string nvml_device_of(int cuda_index, const char* visible);

}  // namespace fathom
