// A study's verdicts (experiments/verdicts.h, `fathom export verdicts`) at the sizes labs reach
// -- thousands of runs, up to 100k: two metrics tested against two reference rows, so the
// family is four comparison tables' tests, Holm-adjusted as one, with the seeds each
// inconclusive test would need -- side by side with one comparison table of the same runs (what
// the family costs beyond the tables it reads). Rows: 8 methods; columns: 6 depths; the rest
// seeds. Best of ROUNDS rounds.
//   bench_verdicts [SIZES=1000,10000,100000] [ROUNDS=3]   (positional)
// Run by hand (never in ctest).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_program.h"
#include "bench/size_list.h"
#include "experiments/verdicts.h"

namespace fathom::bench::bench_verdicts {

namespace {

std::vector<experiments::TableRun> study_runs(long n) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> seed_noise(0, 0.3);
  std::vector<experiments::TableRun> runs;
  runs.reserve(static_cast<size_t>(n));
  for (long i = 0; i < n; ++i) {
    experiments::TableRun r;
    r.id = i + 1;
    r.status = "finished";
    const long method = i % 8, depth = 6 * (1 + i / 8 % 6);
    r.axes = {{"model.method", "m" + std::to_string(method)},
              {"model.encoder_layers", std::to_string(depth)},
              {"train.seed", std::to_string(i / 48)}};
    r.final_metrics = {{"valid_ppl", 5.0 + 0.05 * static_cast<double>(method) + seed_noise(rng)},
                       {"test_bleu", 30.0 - 0.1 * static_cast<double>(method) + seed_noise(rng)}};
    runs.push_back(std::move(r));
  }
  return runs;
}

template <typename F>
double seconds_of(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int bench_main(int argc, char** argv) {
  const auto sizes = bench::parse_size_list(argc > 1 ? argv[1] : "1000,10000,100000");
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  experiments::VerdictOptions o;
  o.table.rows = "model.method";
  o.table.cols = "model.encoder_layers";
  o.metrics = {"valid_ppl", "test_bleu"};
  o.versus = {"m0", "m1"};
  std::printf("%8s %10s %12s %12s %8s\n", "runs", "tests", "one table s", "verdicts s", "ratio");
  for (long n : sizes) {
    const auto runs = study_runs(n);
    double table = 1e30, family = 1e30;
    size_t tests = 0;
    for (int r = 0; r < rounds; ++r) {
      table = std::min(table, seconds_of([&] {
                         std::vector<experiments::TableRun> with = runs;
                         for (auto& run : with) run.metric = run.final_metrics.at("valid_ppl");
                         experiments::TableOptions t = o.table;
                         t.metric = "valid_ppl";
                         t.versus = "m0";
                         experiments::build_comparison_table(with, t);
                       }));
      family = std::min(
          family, seconds_of([&] { tests = experiments::build_verdicts(runs, o).tests.size(); }));
    }
    std::printf("%8ld %10zu %12.4f %12.4f %8.2f\n", n, tests, table, family, family / table);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace fathom::bench::bench_verdicts

FATHOM_BENCH_PROGRAM(bench_verdicts, "a study's Holm family of verdicts over thousands of runs");
