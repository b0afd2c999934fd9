// A sweep's comparison table at the sizes labs reach (thousands of runs, up to 100k): the time
// build_comparison_table takes for runs that all used their best checkpoint against runs half of
// which averaged checkpoints and were computed on other OpenBLAS kernels (the final-model and
// computed-differently notes read every run's), alternated round by round. Rows: 6 depths; columns:
// 4 methods; the rest seeds.
//   bench_comparison_table [SIZES=1000,10000,100000] [ROUNDS=3]   (positional)
// Run by hand (never in ctest).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/bench_program.h"
#include "bench/size_list.h"
#include "experiments/comparison_table.h"

namespace fathom::bench::bench_comparison_table {

namespace {

std::vector<experiments::TableRun> runs_of(long n, bool half_averaged) {
  std::vector<experiments::TableRun> runs;
  runs.reserve(static_cast<size_t>(n));
  for (long i = 0; i < n; ++i) {
    experiments::TableRun r;
    r.id = i + 1;
    r.status = "finished";
    r.axes = {{"model.encoder_layers", std::to_string(6 * (1 + i % 6))},
              {"model.init", "method" + std::to_string(i / 6 % 4)},
              {"train.seed", std::to_string(i / 24)}};
    r.metric = 20.0 + static_cast<double>(i % 97) / 10;
    r.final_model =
        half_averaged && i % 2
            ? db::FinalModel{db::FinalModel::Kind::MeanOfKept, 0, {1, 2, 3, 4, 5}, 0, false, ""}
            : db::FinalModel{db::FinalModel::Kind::BestCheckpoint, 900, {}, 0, false, ""};
    // The mixed runs were computed on two kinds of OpenBLAS kernels, taking turns: the
    // computed-differently note reads every run's too.
    r.computed_with = {{"blas.core", half_averaged && i % 2 ? "Cooperlake" : "Haswell"},
                       {"device", "cpu"},
                       {"git_rev", "abc1234"}};
    runs.push_back(std::move(r));
  }
  return runs;
}

double seconds_of(const std::vector<experiments::TableRun>& runs,
                  const experiments::TableOptions& o, size_t& notes) {
  const auto start = std::chrono::steady_clock::now();
  const auto t = experiments::build_comparison_table(runs, o);
  notes = t.notes.size();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int bench_main(int argc, char** argv) {
  const auto sizes = bench::parse_size_list(argc > 1 ? argv[1] : "1000,10000,100000");
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  experiments::TableOptions o;
  o.rows = "model.encoder_layers";
  o.cols = "model.init";
  o.metric = "test_bleu";
  std::printf("%8s %16s %16s %8s\n", "runs", "best-only s", "half-avg s", "ratio");
  for (long n : sizes) {
    const auto plain = runs_of(n, false), mixed = runs_of(n, true);
    double a = 1e30, b = 1e30;
    size_t notes_a = 0, notes_b = 0;
    for (int r = 0; r < rounds; ++r) {
      a = std::min(a, seconds_of(plain, o, notes_a));
      b = std::min(b, seconds_of(mixed, o, notes_b));
    }
    std::printf("%8ld %16.4f %16.4f %8.2f   (notes %zu, %zu)\n", n, a, b, b / a, notes_a, notes_b);
  }
  return 0;
}

}  // namespace fathom::bench::bench_comparison_table

FATHOM_BENCH_PROGRAM(bench_comparison_table, "a sweep's comparison table over thousands of runs");
