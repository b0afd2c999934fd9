#include "core/train/system_metrics.h"

#include "db/metric_names.h"

namespace fathom {

SystemMetrics::SystemMetrics(const torch::Device& device) : device_(device) {
  if (const auto now = read_process_stats()) cpu_.emplace(now->cpu_seconds);
  if (device_.is_cuda()) nvml_ = Nvml::open(device_.has_index() ? device_.index() : 0);
}

std::vector<std::pair<std::string, double>> SystemMetrics::sample() {
  namespace m = db::metric;
  std::vector<std::pair<std::string, double>> out;
  if (const auto p = read_process_stats(); p && cpu_) {
    out.emplace_back(m::kSysCpuPercent, cpu_->percent_since_last(p->cpu_seconds));
    out.emplace_back(m::kSysRss, p->rss_mib);
    out.emplace_back(m::kSysRssPeak, p->rss_peak_mib);
    out.emplace_back(m::kSysThreads, static_cast<double>(p->threads));
  }
  if (!device_.is_cuda()) return out;
  constexpr double kMib = 1024.0 * 1024.0;
  if (const auto bytes = cuda_allocator_bytes(device_.has_index() ? device_.index() : 0)) {
    out.emplace_back(m::kSysCudaAllocated, bytes->first / kMib);
    out.emplace_back(m::kSysCudaReserved, bytes->second / kMib);
  }
  if (const auto gpu = nvml_ ? nvml_->read() : std::nullopt) {
    out.emplace_back(m::kSysGpuUtil, gpu->utilisation_percent);
    out.emplace_back(m::kSysGpuMemory, gpu->memory_used_mib);
    if (gpu->power_w) out.emplace_back(m::kSysGpuPower, *gpu->power_w);
  }
  return out;
}

void SystemMetrics::log(db::MetricWriter& writer, int64_t update) {
  for (const auto& [name, value] : sample()) writer.log(update, name, value);
}

}  // namespace fathom
