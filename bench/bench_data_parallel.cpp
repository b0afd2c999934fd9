// One run on one process against the same run on N data-parallel processes (issue 55,
// docs/distributed.md): `fathom train --nproc N` at sizes tiny and small (bench/train_sizes.h)
// on the synthetic task, every process with one thread, the same global batch: an update of
// exactly N batches of the size's token budget (--batches K: K of them; one process accumulates
// them, each rank takes every N-th -- with K not a multiple of N the ranks' shares differ and
// the lighter ones wait).
// Per size and process count, side by side in one run:
//   tokens/s       the run's training rate (train_tokens / train_time_s; validation is kept to
//                  the start and the end, so it is the update loop's)
//   speed-up       against the one-process run, and the scaling efficiency (speed-up / N)
//   all-reduce     seconds per update waiting for the gradient all-reduce after the backward
//                  (the allreduce_s metric, the slowest rank included) and its share of an
//                  update; "in bwd": how long buckets were already reducing during the backward
//                  (allreduce_overlap_s). The data-parallel run twice: its buckets started from
//                  the backward's gradient hooks ("dp overlap", the default) and all after it
//                  ("dp after", train.reduce_overlap false)
//   decode         seconds of the final evaluation's test decode (200 sentences, beam 4), which
//                  the ranks share (each every N-th decode batch)
//   peak RSS       the largest resident set of any rank (wait4's ru_maxrss covers the ranks)
// and, as the machine's ceiling for N busy processes, N independent one-process runs started
// together ("Nx1 apart": their summed tokens/s), which no data-parallel run can beat.
//
// Usage: bench_data_parallel [--sizes tiny,small] [--processes 2] [--updates 60] [--batches K]
//                            [--bucket-kb KIB] [--fathom PATH]   (default: the fathom beside
//                            this binary; buckets: train.reduce_bucket_kb's default)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/util/strings.h"
#include "bench/bench_program.h"
#include "bench/train_sizes.h"
#include "db/store.h"

namespace fathom::bench::bench_data_parallel {

namespace {

namespace fs = std::filesystem;

struct Measured {
  double tokens_per_s = 0, allreduce_s = 0, overlap_s = 0, update_s = 0;
  double decode_s = 0;  // the final evaluation's test decode (beam 4, 200 sentences)
  long peak_rss_kib = 0;
};

// The run's config: the size's model on the synthetic task, an update of exactly
// `update_batches` batches: sentences of one length fill every batch to within one sentence of
// the token budget, so (k - 1) budgets + 1 target tokens take k of them.
struct Reduction {
  bool overlap = true;
  int bucket_kb = 0;  // 0: the default
};

std::string config_yaml(const fathom::bench::TrainSize& size, int updates, int processes,
                        int update_batches, const Reduction& reduction) {
  const int64_t budget = size.rows * std::max(size.src_len, size.tgt_len);
  const std::string model =
      size.decoder_only
          ? "{arch: decoder_only, d_model: " + std::to_string(size.d_model) +
                ", heads: " + std::to_string(size.heads) + ", d_ff: " + std::to_string(size.d_ff) +
                ", decoder_layers: " + std::to_string(size.decoder_layers) + "}"
          : "{d_model: " + std::to_string(size.d_model) + ", heads: " + std::to_string(size.heads) +
                ", d_ff: " + std::to_string(size.d_ff) +
                ", encoder_layers: " + std::to_string(size.encoder_layers) +
                ", decoder_layers: " + std::to_string(size.decoder_layers) + "}";
  return "name: dp-" + size.name + "\ndevice: cpu\nmodel: " + model +
         "\ndata:\n  task: synthetic\n  synthetic: {vocab: 64, min_len: " +
         std::to_string(size.tgt_len - 2) + ", max_len: " + std::to_string(size.tgt_len - 2) +
         ", train_size: 20000, valid_size: 50, test_size: 200}\n  max_tokens: " +
         std::to_string(budget) + "\ntrain: {max_updates: " + std::to_string(updates) +
         ", valid_every: " + std::to_string(updates) + ", log_every: 10, warmup: 10, threads: 1" +
         ", update_tokens: " + std::to_string(int64_t{update_batches - 1} * budget + 1) +
         ", processes: " + std::to_string(processes) +
         ", reduce_overlap: " + (reduction.overlap ? "true" : "false") +
         (reduction.bucket_kb > 0 ? ", reduce_bucket_kb: " + std::to_string(reduction.bucket_kb)
                                  : std::string()) +
         "}\neval: {beam: 4, max_sentences: 200}\n";
}

pid_t start_fathom(const std::vector<std::string>& argv) {
  std::fflush(stdout);  // else the child's freopen writes our buffered lines a second time
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    if (!std::freopen("/dev/null", "w", stdout)) _exit(126);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

// Waits for a `fathom train` child; its (and its ranks') peak RSS.
long wait_fathom(pid_t pid) {
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("fathom train failed (status " + std::to_string(status) + ")");
  return usage.ru_maxrss;
}

double mean_of(const fathom::db::Store& store, int64_t run, const std::string& metric) {
  double sum = 0;
  int n = 0;
  for (const auto& p : store.metric_series(run, metric)) sum += p.value, ++n;
  return n > 0 ? sum / n : 0;
}

Measured read_run(const std::string& db, int updates) {
  Measured m;
  const auto store = fathom::db::Store::open(db, fathom::db::OpenMode::ReadOnly);
  const auto run = store.export_run(store.list_runs().front().id).run;
  const double tokens = run.final_metrics.at("train_tokens");
  const double seconds = run.final_metrics.at("train_time_s");
  m.tokens_per_s = tokens / seconds;
  m.update_s = seconds / updates;
  m.decode_s = run.final_metrics.at("decode_time_s");
  m.allreduce_s = mean_of(store, run.id, "allreduce_s");
  m.overlap_s = mean_of(store, run.id, "allreduce_overlap_s");
  return m;
}

// `copies` runs of `processes` each, started together (1 x N: one data-parallel run; N x 1:
// N independent one-process runs, the machine's ceiling for N busy processes). Their summed
// tokens/s; the all-reduce and update time of the first.
Measured measure(const std::string& fathom, const fs::path& dir,
                 const fathom::bench::TrainSize& size, int updates, int processes, int copies,
                 int update_batches, const Reduction& reduction) {
  std::vector<std::string> dbs;
  std::vector<pid_t> children;
  for (int c = 0; c < copies; ++c) {
    // Every measurement its own store: the apart runs' first is not the one-process run.
    const std::string stem = size.name + "-" + std::to_string(processes) + "x" +
                             std::to_string(copies) + (reduction.overlap ? "-o" : "-a") +
                             std::to_string(c);
    const fs::path config = dir / (stem + ".yaml");
    std::ofstream(config) << config_yaml(size, updates, processes, update_batches, reduction);
    dbs.push_back((dir / (stem + ".db")).string());
    children.push_back(
        start_fathom({fathom, "--db", dbs.back(), "train", config.string(), "--no-progress"}));
  }
  long peak = 0;
  for (pid_t child : children) peak = std::max(peak, wait_fathom(child));
  Measured total = read_run(dbs.front(), updates);
  for (size_t c = 1; c < dbs.size(); ++c)
    total.tokens_per_s += read_run(dbs[c], updates).tokens_per_s;
  total.peak_rss_kib = peak;
  return total;
}

}  // namespace

int bench_main(int argc, char** argv) {
  std::vector<std::string> sizes{"tiny", "small"};
  int processes = 2, updates = 60, batches = 0;  // batches per update (0: processes)
  Reduction reduction;
  fs::path self = fs::read_symlink("/proc/self/exe");
  std::string fathom = (self.parent_path().parent_path() / "fathom").string();
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--sizes")
      sizes = fathom::split(value, ',');
    else if (flag == "--processes")
      processes = std::stoi(value);
    else if (flag == "--updates")
      updates = std::stoi(value);
    else if (flag == "--batches")
      batches = std::stoi(value);
    else if (flag == "--bucket-kb")
      reduction.bucket_kb = std::stoi(value);
    else if (flag == "--fathom")
      fathom = value;
    else
      throw std::invalid_argument("unknown option " + flag);
  }
  if (batches <= 0) batches = processes;
  std::printf("%d batches per update, %d updates\n", batches, updates);
  const fs::path dir = fs::temp_directory_path() / ("fathom-bench-dp-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::printf("%-6s %-12s %10s %8s %6s %12s %8s %10s %9s %10s\n", "size", "runs", "tokens/s",
              "speedup", "eff", "allreduce_ms", "share", "in_bwd_ms", "decode_s", "peakRSS_MB");
  Reduction after = reduction;
  after.overlap = false;
  for (const std::string& name : sizes) {
    const auto size = fathom::bench::find_train_size(name);
    const Measured one = measure(fathom, dir, size, updates, 1, 1, batches, reduction);
    const Measured overlapped =
        measure(fathom, dir, size, updates, processes, 1, batches, reduction);
    const Measured afterwards = measure(fathom, dir, size, updates, processes, 1, batches, after);
    const Measured apart = measure(fathom, dir, size, updates, 1, processes, batches, reduction);
    const std::string n = std::to_string(processes);
    for (const auto& [label, m] :
         {std::pair{std::string("1x1"), one}, std::pair{"1x" + n + " dp after", afterwards},
          std::pair{"1x" + n + " dp overlap", overlapped}, std::pair{n + "x1 apart", apart}}) {
      const double speedup = m.tokens_per_s / one.tokens_per_s;
      std::printf("%-6s %-12s %10.0f %8.2f %5.0f%% %12.2f %7.1f%% %10.2f %9.2f %10.1f\n",
                  name.c_str(), label.c_str(), m.tokens_per_s, speedup,
                  100 * speedup / (label == "1x1" ? 1 : processes), 1e3 * m.allreduce_s,
                  100 * m.allreduce_s / m.update_s, 1e3 * m.overlap_s, m.decode_s,
                  m.peak_rss_kib / 1024.0);
    }
    std::fflush(stdout);
  }
  fs::remove_all(dir);
  return 0;
}

}  // namespace fathom::bench::bench_data_parallel

FATHOM_BENCH_PROGRAM(bench_data_parallel,
                     "one process against N data-parallel processes (fathom train --nproc)");
