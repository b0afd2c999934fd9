// The run store on each backend, side by side in one run (issue: scale-out 1):
//   1. metric rows/s with W writer processes, each logging its own run through MetricWriter
//      (default batching: 512 rows or 2 s per transaction);
//   2. the dashboard's steady-state poll: R runs x M metrics x S steps stored, a screen of
//      20 runs x M metrics polled for the points after each curve's end (10 new per curve);
//   3. logging cost per training update: the trainer's metrics of one log point through
//      MetricWriter (flushes amortised), as a fraction of a given step time.
// Usage:
//   bench_store_backends [--pg URL] [--writers 8] [--rows 50000] [--runs 1000] [--metrics 10]
//                        [--steps 1000] [--step-ms 30]
// Without --pg (or $FATHOM_BENCH_PG_URL) only SQLite is measured. Stores go to a temporary
// directory / the given database, which must be empty; both are cleaned up.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "db/metric_writer.h"
#include "db/pg_connection.h"
#include "db/store.h"

namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using fathom::db::MetricRow;
using fathom::db::MetricWriter;
using fathom::db::OpenMode;
using fathom::db::Store;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct Options {
  std::string pg;
  int writers = 8;
  long rows = 50'000;  // per writer
  int runs = 1000, metrics = 10, steps = 1000;
  double step_ms = 30;
};

struct Figures {
  double rows_per_s = 0, poll_ms_median = 0, poll_ms_p90 = 0, populate_s = 0;
  double log_us_per_update = 0;
};

// Empties a PostgreSQL database between measurements (drops Fathom's tables).
void reset(const std::string& location) {
  if (location.rfind("postgres", 0) != 0) {
    fs::remove(location);
    fs::remove(location + "-wal");
    fs::remove(location + "-shm");
    return;
  }
  fathom::db::PgConnection pg(location, "bench");
  pg.exec(
      "DROP TABLE IF EXISTS metrics, final_metrics, run_tags, artifacts, analyses, runs, "
      "fathom_meta CASCADE");
}

double writers(const std::string& location, const Options& o) {
  reset(location);
  std::vector<int64_t> runs;
  {
    auto store = Store::open(location);
    for (int w = 0; w < o.writers; ++w)
      runs.push_back(store.create_run({"w" + std::to_string(w), "bench", "{}", "", "", "", ""}));
  }
  const auto start = Clock::now();
  std::vector<pid_t> pids;
  for (int w = 0; w < o.writers; ++w) {
    const pid_t pid = fork();
    if (pid == 0) {
      try {
        auto store = Store::open(location);
        MetricWriter writer(store, store.mark_running(runs[w], "bench", "cpu"));
        for (long i = 0; i < o.rows; ++i)
          writer.log(i / 5, "m" + std::to_string(i % 5), 1.0 / (1 + i));
        writer.flush();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "writer: %s\n", e.what());
        _exit(1);
      }
      _exit(0);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) std::fprintf(stderr, "a writer failed\n");
  }
  return o.writers * o.rows / since(start);
}

void dashboard(const std::string& location, const Options& o, Figures& f) {
  reset(location);
  auto store = Store::open(location);
  const auto start = Clock::now();
  std::vector<int64_t> ids;
  std::vector<MetricRow> rows;
  for (int r = 0; r < o.runs; ++r) {
    const int64_t id = store.create_run({"r" + std::to_string(r), "bench", "{}", "", "", "", ""});
    ids.push_back(id);
    rows.clear();
    for (int s = 1; s <= o.steps; ++s)
      for (int m = 0; m < o.metrics; ++m)
        rows.emplace_back(s, "metric" + std::to_string(m), 1.0 / s, s);
    store.write_metrics(id, rows);
    if (r % 50 == 49)
      std::fprintf(stderr, "  populate %s: %d/%d runs\r", store.url().scheme.c_str(), r + 1,
                   o.runs);
  }
  f.populate_s = since(start);
  std::fprintf(stderr, "\n");
  // A screen: the 20 newest runs, every metric, each curve 10 points behind the store.
  auto reader = Store::open(location, OpenMode::ReadOnly);
  std::vector<double> ms;
  for (int poll = 0; poll < 30; ++poll) {
    const auto t = Clock::now();
    size_t points = 0;
    // What the dashboard asks (gui/metric_cache.cpp): every curve's end and new points.
    std::vector<fathom::db::CurveRequest> screen;
    for (int r = o.runs - 20; r < o.runs; ++r)
      for (int m = 0; m < o.metrics; ++m)
        screen.push_back({ids[r], "metric" + std::to_string(m), int64_t(o.steps) - 10});
    for (const auto& reply : reader.poll_curves(screen)) points += reply.points.size();
    ms.push_back(since(t) * 1e3);
    if (points != 20u * o.metrics * 10) std::fprintf(stderr, "poll read %zu points\n", points);
  }
  std::sort(ms.begin(), ms.end());
  f.poll_ms_median = ms[ms.size() / 2];
  f.poll_ms_p90 = ms[ms.size() * 9 / 10];
}

double log_cost(const std::string& location) {
  reset(location);
  auto store = Store::open(location);
  const int64_t run = store.create_run({"log", "", "{}", "", "", "", ""});
  // What the trainer logs at one log point (core/train/trainer.cpp): 6 scalars.
  const char* names[] = {"train_loss", "train_nll", "train_ppl", "lr", "grad_norm", "tokens_per_s"};
  constexpr int kUpdates = 20'000;
  const auto start = Clock::now();
  {
    MetricWriter writer(store, store.mark_running(run, "bench", "cpu"));
    for (int u = 1; u <= kUpdates; ++u)
      for (const char* n : names) writer.log(u, n, 1.0 / u);
  }
  return since(start) * 1e6 / kUpdates;
}

Figures measure(const std::string& location, const Options& o) {
  Figures f;
  std::fprintf(stderr, "%s: %d writers x %ld rows\n",
               location.rfind("postgres", 0) == 0 ? "postgresql" : "sqlite", o.writers, o.rows);
  f.rows_per_s = writers(location, o);
  dashboard(location, o, f);
  f.log_us_per_update = log_cost(location);
  reset(location);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (const char* env = std::getenv("FATHOM_BENCH_PG_URL")) o.pg = env;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--pg")
      o.pg = v;
    else if (k == "--writers")
      o.writers = std::stoi(v);
    else if (k == "--rows")
      o.rows = std::stol(v);
    else if (k == "--runs")
      o.runs = std::stoi(v);
    else if (k == "--metrics")
      o.metrics = std::stoi(v);
    else if (k == "--steps")
      o.steps = std::stoi(v);
    else if (k == "--step-ms")
      o.step_ms = std::stod(v);
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  const fs::path dir =
      fs::temp_directory_path() / ("fathom_bench_backends_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::map<std::string, Figures> figures;
  figures["sqlite"] = measure((dir / "bench.db").string(), o);
  if (!o.pg.empty()) figures["postgresql"] = measure(o.pg, o);
  fs::remove_all(dir);

  std::printf(
      "\nstore: %d writers x %ld rows; dashboard store %d runs x %d metrics x %d steps (%.1fM "
      "rows)\n",
      o.writers, o.rows, o.runs, o.metrics, o.steps, o.runs * double(o.metrics) * o.steps / 1e6);
  std::printf("%-34s", "");
  for (const auto& [name, f] : figures) std::printf("%14s", name.c_str());
  if (figures.size() == 2) std::printf("%14s", "pg / sqlite");
  std::printf("\n");
  auto row = [&](const char* label, double Figures::*field, const char* fmt) {
    std::printf("%-34s", label);
    for (const auto& [name, f] : figures) std::printf(fmt, f.*field);
    if (figures.size() == 2)
      std::printf("%13.2fx", figures["postgresql"].*field / figures["sqlite"].*field);
    std::printf("\n");
  };
  row("metric rows/s (all writers)", &Figures::rows_per_s, "%14.0f");
  row("populate dashboard store (s)", &Figures::populate_s, "%14.1f");
  row("poll 20 runs x metrics, median ms", &Figures::poll_ms_median, "%14.2f");
  row("poll, p90 ms", &Figures::poll_ms_p90, "%14.2f");
  row("logging per update (us)", &Figures::log_us_per_update, "%14.2f");
  std::printf("%-34s", "logging / step (given step)");
  for (const auto& [name, f] : figures)
    std::printf("%13.3f%%", 100 * f.log_us_per_update / (o.step_ms * 1e3));
  std::printf("\n(step time %.1f ms from --step-ms; measure it with bench_train)\n", o.step_ms);
  return 0;
}
