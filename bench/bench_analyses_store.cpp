// Recording an analysis at the sizes a lab reaches (1,000 runs, each analysed several ways):
// `add_analysis` replaces an earlier result of the same run, kind, checkpoint and options
// (db/sql_store_analyses.cpp), so each add also looks up what it replaces. Per store size
// (analyses already stored), side by side on SQLite and, with --pg URL (or
// $FATHOM_BENCH_PG_URL), PostgreSQL: the mean time of an add that replaces one, of an add of a
// new result, and the store's size on disk (SQLite) -- time and space against size.
// Usage: bench_analyses_store [--sizes 1000,10000,100000] [--adds 200] [--pg URL]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench_program.h"
#include "bench/size_list.h"
#include "db/pg_connection.h"
#include "db/store.h"

namespace fathom::bench::bench_analyses_store {

namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using fathom::db::NewAnalysis;
using fathom::db::Store;

constexpr int kRuns = 1000;

NewAnalysis analysis(int64_t run, int variant) {
  NewAnalysis a;
  a.run_id = run;
  a.kind = variant % 2 ? "beta" : "output-shift";
  a.checkpoint = "best";
  a.params_json = "{\"sentences\":" + std::to_string(variant) + "}";
  a.result_json = std::string(2000, 'x');  // a small result's size
  return a;
}

struct Figures {
  double replace_ms = 0, add_ms = 0;
};

Figures measure(Store& store, const std::vector<int64_t>& runs, int stored, int adds) {
  for (int i = 0; i < stored; ++i)
    store.add_analysis(analysis(runs[i % runs.size()], i / static_cast<int>(runs.size())));
  Figures f;
  auto t = Clock::now();
  for (int i = 0; i < adds; ++i)  // the same run, kind and options as a stored one
    store.add_analysis(analysis(runs[(i * 7) % runs.size()], 0));
  f.replace_ms = 1e3 * std::chrono::duration<double>(Clock::now() - t).count() / adds;
  t = Clock::now();
  for (int i = 0; i < adds; ++i)  // options no stored one has
    store.add_analysis(analysis(runs[(i * 7) % runs.size()], 1000000 + i));
  f.add_ms = 1e3 * std::chrono::duration<double>(Clock::now() - t).count() / adds;
  return f;
}

std::vector<int64_t> make_runs(Store& store) {
  std::vector<int64_t> runs;
  for (int i = 0; i < kRuns; ++i) {
    fathom::db::NewRun run;
    run.name = "run" + std::to_string(i);
    run.config_json = "{}";
    runs.push_back(store.create_run(run));
  }
  return runs;
}

}  // namespace

int bench_main(int argc, char** argv) {
  std::vector<long> sizes{1000, 10000, 100000};
  int adds = 200;
  std::string pg = std::getenv("FATHOM_BENCH_PG_URL") ? std::getenv("FATHOM_BENCH_PG_URL") : "";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--sizes")
      sizes = fathom::bench::parse_size_list(value.c_str());
    else if (flag == "--adds")
      adds = std::stoi(value);
    else if (flag == "--pg")
      pg = value;
  }
  std::printf("%-10s %10s %12s %12s %10s\n", "store", "analyses", "replace_ms", "new_ms", "MB");
  const fs::path dir = fs::temp_directory_path() / ("fathom-bench-an-" + std::to_string(getpid()));
  for (const long size : sizes) {
    fs::create_directories(dir);
    const std::string path = (dir / "a.db").string();
    {
      Store store = Store::open(path);
      const auto runs = make_runs(store);
      const Figures f = measure(store, runs, static_cast<int>(size), adds);
      std::printf("%-10s %10lld %12.3f %12.3f %10.1f\n", "sqlite", static_cast<long long>(size),
                  f.replace_ms, f.add_ms, fs::file_size(path) / 1e6);
    }
    fs::remove_all(dir);
    if (!pg.empty()) {
      fathom::db::PgConnection reset(pg, "bench");
      reset.exec("DROP SCHEMA public CASCADE; CREATE SCHEMA public");
      Store store = Store::open(pg);
      const auto runs = make_runs(store);
      const Figures f = measure(store, runs, static_cast<int>(size), adds);
      std::printf("%-10s %10lld %12.3f %12.3f %10s\n", "postgres", static_cast<long long>(size),
                  f.replace_ms, f.add_ms, "-");
    }
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace fathom::bench::bench_analyses_store

FATHOM_BENCH_PROGRAM(bench_analyses_store, "recording analyses in a store of 1,000 runs");
