// Training-step throughput: target tokens/s, step time, the split between forward,
// backward and optimizer, and achieved FLOP/s for a named model size (bench/train_sizes.h:
// tiny, small on the CPU; base, deep18, deep60 for a GPU) on its fixed synthetic batch.
//   bench_train [size=tiny] [steps=20] [threads=0] [device=cpu] [norm=post] [malloc=keep|glibc]
//   (norm may name a connection too: pre:hyper, pre:mhc, pre:depthwise_lstm)
//               [precision=fp32|bf16] [checkpoint=0|1] [attention=auto|off]
//               [optimizer=adam|adam-foreach|muon] [graph=0|1]
//               (positional, in this order; attention is model.fused_attention: off is the
//               explicit softmax path, auto what the config's auto takes -- Fathom's CPU loop
//               or LibTorch's fused call, core/model/attention.h; adam takes LibTorch's
//               fused AdamW kernel as the trainer does (2.4+, core/train/fused_adamw.h),
//               adam-foreach never; graph 1 replays the forward, loss and backward as one
//               CUDA graph as train.cuda_graphs does, core/train/graphed_updates.h)
// Run by hand (never in ctest). Compare settings side by side in one invocation; against the
// PyTorch reference use bench_vs_reference.
// FATHOM_BENCH_PROFILE=FILE: the timed steps run under LibTorch's (legacy) profiler, which
// writes a Chrome trace to FILE; bench/profile_summary.py sums it by operator.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include <torch/csrc/autograd/profiler_legacy.h>

#include "base/util/blas_setup.h"
#include "base/util/malloc_setup.h"
#include "bench/bench_program.h"
#include "bench/cpu_peak.h"
#include "bench/fathom_step.h"
#include "core/train/device.h"

namespace fathom::bench::bench_train {

int bench_main(int argc, char** argv) {
  ensure_fast_blas(argv);
  const TrainSize size = find_train_size(argc > 1 ? argv[1] : "tiny");
  const int steps = argc > 2 ? std::atoi(argv[2]) : 20;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 0;
  const torch::Device device = resolve_device(argc > 4 ? argv[4] : "cpu");
  const std::string norm = argc > 5 ? argv[5] : "post";
  const std::string precision = argc > 7 ? argv[7] : "fp32";
  configure_threads(threads, bf16_matmuls_on_cpu(FathomStep::autocast_for(precision, device)));
  const bool keep = !(argc > 6 && std::string(argv[6]) == "glibc");
  if (keep && !keep_freed_memory()) std::printf("malloc: not glibc, thresholds unchanged\n");
  const bool checkpoint = argc > 8 && std::string(argv[8]) == "1";
  const std::string attention = argc > 9 ? argv[9] : "auto";
  const std::string optimizer = argc > 10 ? argv[10] : "adam";
  FathomStep fathom(size, norm, device, precision, checkpoint, attention, optimizer);
  fathom.use_graph(argc > 11 && std::string(argv[11]) == "1");
  fathom.run(3);  // warm-up
  StepTimes t;
  if (const char* trace = std::getenv("FATHOM_BENCH_PROFILE")) {
    torch::autograd::profiler::RecordProfile profile{std::string(trace)};
    t = fathom.run(steps);
  } else {
    t = fathom.run(steps);
  }

  std::printf("blas core %s  load average %s\n", blas_core_name(), load_average().c_str());
  std::printf(
      "size %s device %s norm %s precision %s checkpoint %d attention %s optimizer %s%s graph %d "
      "threads %d params %ld rows %ld src %ld tgt %ld\n",
      size.name.c_str(), device.str().c_str(), norm.c_str(), precision.c_str(), int(checkpoint),
      attention.c_str(), optimizer.c_str(), fathom.fused_update() ? " (fused kernel)" : "",
      int(fathom.graphed()), torch::get_num_threads(),
      long(fathom.model()->parameter_counts()["total"]), long(size.rows), long(size.src_len),
      long(size.tgt_len));
  std::printf(
      "tokens/s %.0f  step %.1f ms  (forward %.1f, backward %.1f, clip+optimizer %.1f ms)"
      "  %.0f page faults/step (malloc %s)\n",
      t.tokens_per_s(), t.ms(t.total()), t.ms(t.forward), t.ms(t.backward), t.ms(t.update),
      double(t.minor_faults) / std::max(1, t.steps), keep ? "keep" : "glibc");
  const double achieved = train_flops_per_target_token(size) * t.tokens_per_s();
  std::printf("achieved %.2f GFLOP/s", achieved / 1e9);
  if (device.is_cpu()) {
    const CpuPeak cpu = read_cpu_peak();
    const int cores = threads > 0 ? threads : int(std::thread::hardware_concurrency());
    std::printf(" = %.1f%% of %d core(s) x %d FLOP/cycle (%s) x %.0f MHz",
                100 * achieved / (cpu.per_core() * cores), cores, cpu.flops_per_cycle,
                cpu.isa.c_str(), cpu.mhz);
  }
  std::printf("\n");
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("peak RSS %.0f MiB\n", usage.ru_maxrss / 1024.0);
  return 0;
}

}  // namespace fathom::bench::bench_train

FATHOM_BENCH_PROGRAM(bench_train, "training-step throughput, its split, FLOP/s");
