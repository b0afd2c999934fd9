// `fathom runs` over a lab's store (experiments/run_selection.h): ms to select from N runs, each
// with the default config as JSON and three final metrics, for what a user asks -- nothing (a
// plain listing: no config parsed), a filter, a sort with a limit, and columns -- median of the
// rounds, with the cost per run; then the filter alone, each config parsed whole at its first
// key (as before) and its named leaves read in one pass (experiments/config_leaves.h), side by
// side. The store's own read (list_runs) is bench_lab_store's and bench_stored_run_selection's.
//   bench_run_selection [sizes=1000,10000,100000] [rounds=3]
// Run by hand (never in ctest).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/bench_program.h"
#include "bench/default_config_runs.h"
#include "bench/size_list.h"
#include "experiments/run_selection.h"

namespace fathom::bench::bench_run_selection {

namespace {

double median_ms(const std::vector<db::RunRecord>& runs, const experiments::RunSelection& s,
                 int rounds, size_t* kept) {
  std::vector<double> ms;
  for (int k = 0; k < rounds; ++k) {
    std::vector<db::RunRecord> copy = runs;  // select_runs takes its runs; the copy is not timed
    const auto t0 = std::chrono::steady_clock::now();
    *kept = experiments::select_runs(std::move(copy), s, "bench").size();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// ms to filter `runs` by `where` with each config parsed whole at its first key (`asked`
// empty: as select_runs did before) or its named leaves read in one pass (the filter's fields).
double filter_ms(const std::vector<db::RunRecord>& runs, const std::string& where,
                 const std::vector<std::string>& asked, int rounds, size_t* kept) {
  const auto query = experiments::RunQuery::parse(where);
  std::vector<double> ms;
  for (int k = 0; k < rounds; ++k) {
    std::vector<db::RunRecord> copy = runs;
    const auto t0 = std::chrono::steady_clock::now();
    *kept = 0;
    for (const auto& r : experiments::queried_runs(std::move(copy), asked))
      *kept += query.matches(r.fields);
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int bench_main(int argc, char** argv) {
  const auto sizes = bench::parse_size_list(argc > 1 ? argv[1] : "1000,10000,100000");
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  experiments::RunSelection plain, where, best, columns;
  where.where = "norm=pre and lr<0.0005 and valid_ppl<15";
  best.sort = "valid_ppl";
  best.limit = 5;
  columns.columns = {"lr", "train.seed", "model.norm"};
  const std::vector<std::pair<const char*, experiments::RunSelection>> asks = {
      {"nothing", plain},
      {"--where \"norm=pre and lr<0.0005 and valid_ppl<15\"", where},
      {"--sort valid_ppl --limit 5", best},
      {"--columns lr,train.seed,model.norm", columns}};
  std::printf("%8s  %-52s %10s %10s %8s\n", "runs", "asked", "ms", "us/run", "kept");
  for (long n : sizes) {
    const std::vector<db::RunRecord> runs = bench::default_config_runs(n);
    for (const auto& [label, s] : asks) {
      size_t kept = 0;
      const double ms = median_ms(runs, s, rounds, &kept);
      std::printf("%8ld  %-52s %10.1f %10.2f %8zu\n", n, label, ms,
                  1000.0 * ms / static_cast<double>(n), kept);
    }
    size_t kept_parsed = 0, kept_read = 0;
    const auto fields = experiments::RunQuery::parse(where.where).fields();
    const double parsed = filter_ms(runs, where.where, {}, rounds, &kept_parsed);
    const double read = filter_ms(runs, where.where, fields, rounds, &kept_read);
    std::printf("%8ld  the --where above, each config parsed whole:  %10.1f ms\n", n, parsed);
    std::printf("%8ld  ... its three leaves read in one pass:         %10.1f ms  %.2fx  %s\n", n,
                read, parsed / read, kept_parsed == kept_read ? "same runs" : "DIFFERENT RUNS");
  }
  return 0;
}

}  // namespace fathom::bench::bench_run_selection

FATHOM_BENCH_PROGRAM(bench_run_selection, "fathom runs' selection over a lab's runs");
