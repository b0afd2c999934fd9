// What the sweep machinery costs per run, measured side by side in one invocation:
//   A. N tiny runs trained one after another with `fathom train CONFIG` (no scheduler);
//   B. the same N runs as one sweep, `fathom sweep --jobs 1` (worker processes, store
//      lifecycle, polling).
// Prints per run: wall time of A and B, B - A (the scheduler's own overhead), the time spent in
// the update loop (final metric train_time_s), and everything outside it (process start, data,
// model, evaluation, store). Runs are tiny so that overhead, not training, dominates.
//   bench_sweep [runs] [updates]     (defaults 8 and 20; needs build/fathom next to bench/)
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench/bench_program.h"
#include "db/store.h"

namespace fathom::bench::bench_sweep {

namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

int run_quiet(const std::vector<std::string>& argv) {
  const pid_t pid = fork();
  if (pid == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

double mean_final(const std::string& db, const std::string& metric, int* count) {
  const auto store = fathom::db::Store::open(db, fathom::db::OpenMode::ReadOnly);
  double sum = 0;
  *count = 0;
  for (const auto& r : store.list_runs()) {
    auto it = r.final_metrics.find(metric);
    if (r.status == "finished" && it != r.final_metrics.end()) {
      sum += it->second;
      ++*count;
    }
  }
  return *count ? sum / *count : 0;
}

}  // namespace

int bench_main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 8;
  const int updates = argc > 2 ? std::atoi(argv[2]) : 20;
  const fs::path fathom = fs::read_symlink("/proc/self/exe").parent_path().parent_path() / "fathom";
  if (!fs::exists(fathom)) {
    std::fprintf(stderr, "bench_sweep: %s not found; build the fathom target\n", fathom.c_str());
    return 1;
  }
  const fs::path dir =
      fs::temp_directory_path() / ("fathom_bench_sweep_" + std::to_string(getpid()));
  fs::create_directories(dir);
  {
    std::ofstream config(dir / "base.yaml");
    config << "name: tiny\ndevice: cpu\n"
              "model: {d_model: 32, heads: 2, d_ff: 64, encoder_layers: 2, decoder_layers: 2}\n"
              "data:\n  task: synthetic\n"
              "  synthetic: {vocab: 8, train_size: 500, valid_size: 20, test_size: 20}\n"
              "  max_tokens: 256\n"
              "train: {lr: 0.005, warmup: 10, max_updates: "
           << updates << ", valid_every: " << updates
           << ", log_every: 10, threads: 1}\n"
              "eval: {beam: 1, max_sentences: 20}\n";
    std::ofstream sweep(dir / "sweep.yaml");
    sweep << "name: bench\nbase: base.yaml\nseeds: [";
    for (int i = 1; i <= runs; ++i) sweep << (i > 1 ? ", " : "") << i;
    sweep << "]\n";
  }
  const std::string direct_db = (dir / "direct.db").string(),
                    sweep_db = (dir / "sweep.db").string();

  const auto a0 = Clock::now();
  for (int i = 1; i <= runs; ++i)
    if (run_quiet({fathom.string(), "--db", direct_db, "train", (dir / "base.yaml").string(),
                   "--no-progress", "--set", "train.seed=" + std::to_string(i)}) != 0) {
      std::fprintf(stderr, "bench_sweep: fathom train failed\n");
      return 1;
    }
  const double direct_s = std::chrono::duration<double>(Clock::now() - a0).count();

  const auto b0 = Clock::now();
  if (run_quiet({fathom.string(), "--db", sweep_db, "sweep", (dir / "sweep.yaml").string(),
                 "--jobs", "1", "--no-progress", "--devices", "none"}) != 0) {
    std::fprintf(stderr, "bench_sweep: fathom sweep failed\n");
    return 1;
  }
  const double sweep_s = std::chrono::duration<double>(Clock::now() - b0).count();

  int n_direct = 0, n_sweep = 0;
  const double train_direct = mean_final(direct_db, "train_time_s", &n_direct);
  const double train_sweep = mean_final(sweep_db, "train_time_s", &n_sweep);
  std::printf("runs: %d (%d finished direct, %d in the sweep), %d updates each, 1 job\n", runs,
              n_direct, n_sweep, updates);
  std::printf("per run, direct `fathom train`: %7.3f s wall, %.3f s in the update loop\n",
              direct_s / runs, train_direct);
  std::printf("per run, `fathom sweep`:        %7.3f s wall, %.3f s in the update loop\n",
              sweep_s / runs, train_sweep);
  std::printf("scheduler overhead per run (sweep - direct): %.3f s\n", (sweep_s - direct_s) / runs);
  std::printf("time outside training per run in the sweep: %.3f s\n", sweep_s / runs - train_sweep);
  std::printf("ratio sweep/direct wall: %.3f\n", sweep_s / direct_s);
  fs::remove_all(dir);
  return 0;
}

}  // namespace fathom::bench::bench_sweep

FATHOM_BENCH_PROGRAM(bench_sweep, "the sweep machinery's cost per run");
