// Whether two runs' curves agree (experiments/run_agreement.h, what `fathom compare` and
// `fathom train --reproduce` run) at the sizes long runs reach: two runs of N updates, 12
// metrics logged every update (the rows of a 100k-update run logged every 10 are 10k points),
// in a SQLite store. Times both ways of reading them: the two runs' whole rows
// (Store::metric_rows, then compare_trajectories; read and compare apart) and metric by metric
// (compare_stored_trajectories: what the commands use, two series in memory at most), against
// the twin equal to the end and the twin parted from update N/2, alternated round by round;
// rows/str. is the first's time over the second's. A third argument, rows or stored, runs one
// way only, for its peak memory (/usr/bin/time -v).
//   bench_run_agreement [updates=10000,100000,1000000] [rounds=3] [rows|stored]
// Run by hand (never in ctest).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench_program.h"
#include "bench/size_list.h"
#include "db/store.h"
#include "experiments/run_agreement.h"

namespace fathom::bench::bench_run_agreement {

namespace {

const std::vector<std::string> kMetrics = {"train_loss",
                                           "train_ppl",
                                           "train_nll",
                                           "lr",
                                           "grad_norm",
                                           "target_tokens",
                                           "valid_loss",
                                           "valid_ppl",
                                           "valid_nll",
                                           "loss_scale",
                                           "gradnorm.encoder.layer0.ffn",
                                           "gradnorm.decoder.layer5.attn"};

// One run's rows; from `parted_from` on (0: never) every value moves by 1e-6 relative.
void write_run(db::Store& store, int64_t run, long updates, long parted_from) {
  std::vector<db::MetricRow> rows;
  rows.reserve(100000);
  for (long u = 1; u <= updates; ++u) {
    for (size_t m = 0; m < kMetrics.size(); ++m) {
      double value = 1.0 + static_cast<double>(m) + 1.0 / static_cast<double>(u);
      if (parted_from > 0 && u >= parted_from) value *= 1 + 1e-6;
      rows.emplace_back(u, kMetrics[m], value, 0.0);
    }
    if (rows.size() >= 100000) {
      store.write_metrics(run, rows);
      rows.clear();
    }
  }
  store.write_metrics(run, rows);
}

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int bench_main(int argc, char** argv) {
  const auto sizes = bench::parse_size_list(argc > 1 ? argv[1] : "10000,100000,1000000");
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  const std::string only = argc > 3 ? argv[3] : "";  // "rows" or "stored": one path (for RSS)
  const bool rows_path = only != "stored", stored_path = only != "rows";
  const auto dir =
      std::filesystem::temp_directory_path() / ("bench_run_agreement." + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::printf("%10s %10s  %9s %9s  %9s %9s  %9s  %s\n", "updates", "rows/run", "read (s)",
              "compare", "stored (s)", "parted", "rows/str.", "verdict when parted");
  for (const long updates : sizes) {
    const std::string path = (dir / ("runs-" + std::to_string(updates) + ".db")).string();
    auto store = db::Store::open(path);
    const int64_t a = store.create_run({"a", "", "{}", "", "", "", ""});
    const int64_t twin = store.create_run({"twin", "", "{}", "", "", "", ""});
    const int64_t parted = store.create_run({"parted", "", "{}", "", "", "", ""});
    write_run(store, a, updates, 0);
    write_run(store, twin, updates, 0);
    write_run(store, parted, updates, updates / 2);
    // Rows: both runs' whole rows read, then compared; stored: metric by metric from the store.
    std::vector<double> read, compare, stored_equal, stored_parted;
    std::string verdict;
    for (int r = 0; r < rounds; ++r) {
      for (const bool part : {r % 2 == 0, r % 2 != 0}) {  // alternate which goes first
        const int64_t b = part ? parted : twin;
        if (rows_path) {
          auto start = std::chrono::steady_clock::now();
          const auto rows_a = store.metric_rows(a);
          const auto rows_b = store.metric_rows(b);
          read.push_back(since(start));
          start = std::chrono::steady_clock::now();
          const auto agreement = experiments::compare_trajectories(rows_a, rows_b);
          compare.push_back(since(start));
          if (agreement.agrees() == part) std::printf("unexpected verdict (rows)\n");
        }
        if (stored_path) {
          const auto start = std::chrono::steady_clock::now();
          const auto agreement = experiments::compare_stored_trajectories(store, a, b);
          (part ? stored_parted : stored_equal).push_back(since(start));
          if (part) verdict = experiments::describe_agreement(agreement, "#1", "#3").substr(0, 44);
          if (agreement.agrees() == part) std::printf("unexpected verdict (stored)\n");
        }
      }
    }
    auto median = [](std::vector<double> v) {
      if (v.empty()) return std::nan("");
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    const double rows_s = median(read) + median(compare);
    const double stored_s = median(stored_equal);
    std::printf("%10ld %10ld  %9.3f %9.3f  %9.3f %9.3f  %9.2f  %s...\n", updates,
                updates * static_cast<long>(kMetrics.size()), median(read), median(compare),
                stored_s, median(stored_parted), rows_s / stored_s, verdict.c_str());
    std::fflush(stdout);
  }
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace fathom::bench::bench_run_agreement

FATHOM_BENCH_PROGRAM(bench_run_agreement, "whether two long runs' curves agree");
