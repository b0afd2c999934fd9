// What the system metrics cost (issue 59.1; core/train/system_metrics.h): one sample -- the
// /proc reads, and on CUDA the allocator's counters and NVML where present -- timed N times,
// its median and 90th percentile in microseconds, beside one training step of the `tiny` and
// `small` sizes (bench/train_sizes.h) as the trainer runs it (bench/fathom_step.h). A sample
// is taken once per log point, so its share of training is sample / (log_every x step); the
// table gives it per step (log_every 1, the worst case) and at the default log_every.
//   bench_system_metrics [--samples 2000] [--steps 20] [--device cpu|cuda]
// Run by hand from the repository root (never in ctest).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "base/util/blas_setup.h"
#include "bench/bench_program.h"
#include "bench/fathom_step.h"
#include "core/train/system_metrics.h"

namespace fathom::bench::bench_system_metrics {

namespace {

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1))];
}

}  // namespace

int bench_main(int argc, char** argv) {
  ensure_fast_blas(argv);
  int samples = 2000, steps = 20;
  std::string device_name = "cpu";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--samples") samples = std::atoi(argv[i + 1]);
    if (flag == "--steps") steps = std::atoi(argv[i + 1]);
    if (flag == "--device") device_name = argv[i + 1];
  }
  const torch::Device device(device_name);
  SystemMetrics sampler(device);
  std::vector<double> us;
  size_t rows = 0;
  for (int i = 0; i < samples; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    rows = sampler.sample().size();
    us.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  const double median = percentile(us, 0.5);
  std::printf("one sample on %s: %zu rows, median %.1f us, p90 %.1f us (%d samples)\n",
              device.str().c_str(), rows, median, percentile(us, 0.9), samples);
  const int log_every = RunConfig().train.log_every;
  std::printf("%-8s %12s %16s %22s\n", "size", "step ms", "share per step",
              ("share at log_every " + std::to_string(log_every)).c_str());
  for (const char* size : {"tiny", "small"}) {
    bench::FathomStep step(bench::find_train_size(size), "post", device);
    step.run(3);  // warm-up
    const bench::StepTimes times = step.run(steps);
    const double step_ms = times.ms(times.total());
    const double share = median / 1000.0 / step_ms;
    std::printf("%-8s %12.2f %15.4f%% %21.5f%%\n", size, step_ms, 100 * share,
                100 * share / log_every);
  }
  return 0;
}

}  // namespace fathom::bench::bench_system_metrics

FATHOM_BENCH_PROGRAM(bench_system_metrics, "one system-metrics sample");
