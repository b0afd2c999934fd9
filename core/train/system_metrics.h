#pragma once
// System metrics per run (issue 59.1): at each log point the trainer logs what the run costs
// the machine as ordinary metric rows named sys.* (db/metric_names.h) -- the process's CPU
// utilisation since the last log point, resident memory now and at its peak, threads; on CUDA
// LibTorch's allocator (allocated, reserved) and, where the NVIDIA management library is found
// at run time (base/util/nvml.h), the device's utilisation, memory and power.
//
// Sampled at log points, not on a thread of its own: a log point already reads the device,
// so the sample adds no wait; the rows then share the training curves' updates (a resumed run
// redoes them with its other rows); and between log points nothing runs. No call here waits
// for the device (the allocator's counters and NVML are host-side reads). The cost:
// bench/bench_system_metrics.cpp, docs/performance.md.
#include <torch/torch.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/util/nvml.h"
#include "base/util/process_stats.h"
#include "db/metric_writer.h"

namespace fathom {

class SystemMetrics {
 public:
  // Starts the CPU clock (the first sample covers the time since) and, on a CUDA device,
  // looks for NVML.
  explicit SystemMetrics(const torch::Device& device);

  // The metrics now, as (name, value); what is not available here is absent.
  std::vector<std::pair<std::string, double>> sample();
  // sample() as rows of `writer` at `update`.
  void log(db::MetricWriter& writer, int64_t update);

 private:
  torch::Device device_;
  std::optional<CpuUtilisation> cpu_;
  std::unique_ptr<Nvml> nvml_;
};

// LibTorch's caching allocator on CUDA device `index`: (allocated, reserved) bytes now;
// nullopt where this build has no CUDA allocator statistics (a CPU LibTorch).
std::optional<std::pair<double, double>> cuda_allocator_bytes(int index);

}  // namespace fathom
