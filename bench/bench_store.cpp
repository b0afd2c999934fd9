// How much metric logging costs the training loop: the sustained write rate through
// MetricWriter (default batching: 512 rows / 2 s) and the cost of one log() call.
//   bench_store [rows]       (default 1,000,000; the store goes to a temporary directory)
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench_program.h"
#include "db/metric_writer.h"
#include "db/store.h"

namespace fathom::bench::bench_store {

int bench_main(int argc, char** argv) {
  using Clock = std::chrono::steady_clock;
  namespace fs = std::filesystem;
  const long rows = argc > 1 ? std::atol(argv[1]) : 1'000'000;
  const fs::path dir =
      fs::temp_directory_path() / ("fathom_bench_store_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "bench.db").string();

  {
    auto store = fathom::db::Store::open(path);
    const int64_t run = store.create_run({"bench", "", "{}", "", "", "", ""});
    // A training step typically logs a handful of metrics under the same step.
    const std::vector<std::string> names = {"train_loss", "lr", "grad_norm", "tokens_per_s"};
    std::vector<float> call_us(static_cast<size_t>(rows));

    const auto start = Clock::now();
    {
      // Writes go through the holder's lease check (db/lease.h), as the trainer's do.
      fathom::db::MetricWriter writer(store, store.mark_running(run, "bench", "cpu"));
      for (long i = 0; i < rows; ++i) {
        const auto t0 = Clock::now();
        writer.log(i / 4, names[i % 4], 1.0 / (1 + i));
        call_us[i] = std::chrono::duration<float, std::micro>(Clock::now() - t0).count();
      }
    }  // includes the final flush
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();

    double sum = 0;
    for (float us : call_us) sum += us;
    std::sort(call_us.begin(), call_us.end());
    auto pct = [&](double p) { return call_us[static_cast<size_t>(p * (rows - 1))]; };
    std::printf("rows written           %ld (%zu per transaction)\n", rows, size_t{512});
    std::printf("sustained write rate   %.0f rows/s\n", rows / seconds);
    std::printf("log() mean             %.3f us (flush amortized)\n", sum / rows);
    std::printf("log() p50 / p99 / max  %.3f / %.3f / %.1f us (max: a call that flushes)\n",
                pct(0.5), pct(0.99), call_us.back());
    std::printf("stored points          %zu (train_loss)\n",
                store.metric_series(run, "train_loss").size());
  }
  std::printf("file size              %.1f MB\n", fs::file_size(path) / 1e6);
  fs::remove_all(dir);
  return 0;
}

}  // namespace fathom::bench::bench_store

FATHOM_BENCH_PROGRAM(bench_store, "metric logging's write rate and one log() call");
