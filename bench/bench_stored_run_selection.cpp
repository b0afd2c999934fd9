// `fathom runs --where` over a lab's SQLite store (experiments/stored_run_selection.h): s to read
// and select N runs, each with the default config as JSON (norm, init and lr varied) and three
// final metrics, before (the whole listing read, then every config a term names parsed) and
// now (the store first picks the runs whose config text holds the filter's config words), in
// one process, with their ratio; "same" checks both keep the same runs. Median of the rounds.
//   bench_stored_run_selection [sizes=10000,100000] [rounds=3] [both|before|now]
// before/now alone: one way only, for its peak memory (/usr/bin/time -f %M). Run by hand.
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "base/config/config_io.h"
#include "bench/bench_program.h"
#include "bench/size_list.h"
#include "db/run_status.h"
#include "db/store.h"
#include "experiments/stored_run_selection.h"

namespace fathom::bench::bench_stored_run_selection {

namespace fs = std::filesystem;

namespace {

const char* const kNorms[] = {"post", "pre", "peri", "dyt"};
const char* const kInits[] = {"xavier", "lipschitz", "admin", "deepnet"};

void record_runs(const std::string& path, long n) {
  auto store = db::Store::open(path);
  RunConfig config;
  std::vector<db::NewTaggedRun> batch;
  for (long i = 0; i < n; ++i) {
    config.model.norm = kNorms[i % 4];
    config.model.init = kInits[(i / 4) % 4];
    config.train.lr = 1e-4 * static_cast<double>(1 + i % 7);
    db::NewTaggedRun r;
    r.run.name = "lab/run" + std::to_string(i);
    r.run.sweep = "lab";
    r.run.config_json = config_to_json(config).dump();
    r.run.status = db::status::kFinished;
    batch.push_back(std::move(r));
    if (batch.size() == 1000 || i + 1 == n) {
      store.create_runs(batch);
      batch.clear();
    }
  }
  // Three final metrics a run, in one statement (a set_final_metric each would take minutes).
  sqlite3* raw = nullptr;
  sqlite3_open(path.c_str(), &raw);
  sqlite3_exec(raw,
               "INSERT INTO final_metrics (run_id, name, value) "
               "SELECT id, 'valid_ppl', 10 + ((id * 7919) % 1000) / 100.0 FROM runs UNION ALL "
               "SELECT id, 'test_bleu', 20 + id % 13 FROM runs UNION ALL "
               "SELECT id, 'params', 1e6 FROM runs",
               nullptr, nullptr, nullptr);
  sqlite3_close(raw);
}

std::vector<int64_t> ids_of(const std::vector<experiments::QueriedRun>& runs) {
  std::vector<int64_t> ids;
  for (const auto& r : runs) ids.push_back(r.run.id);
  return ids;
}

// What `fathom runs` did before: the whole listing, then the selection.
std::vector<int64_t> before(const db::Store& store, const experiments::RunSelection& s) {
  return ids_of(experiments::select_runs(store.list_runs("lab"), s, "bench"));
}

std::vector<int64_t> now(const db::Store& store, const experiments::RunSelection& s) {
  return ids_of(
      experiments::select_stored_runs(store, {"lab", ""}, s, db::unix_now(), "bench").runs);
}

double median_s(const std::function<std::vector<int64_t>()>& f, int rounds,
                std::vector<int64_t>* kept) {
  std::vector<double> s;
  for (int k = 0; k < rounds; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    *kept = f();
    s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(s.begin(), s.end());
  return s[s.size() / 2];
}

}  // namespace

int bench_main(int argc, char** argv) {
  const auto sizes = bench::parse_size_list(argc > 1 ? argv[1] : "10000,100000");
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  const std::string ways = argc > 3 ? argv[3] : "both";
  const std::vector<std::string> wheres = {
      "norm=pre", "norm=peri and init=lipschitz",
      "norm=peri and init=admin",  // "admin" is also a key (model.admin): init narrows nothing
      "norm=pre and lr<0.0005 and valid_ppl<15",
      "norm=pre or norm=post"};  // no config word: read as before
  const fs::path dir =
      fs::temp_directory_path() / ("bench_stored_runs." + std::to_string(getpid()));
  fs::create_directories(dir);
  std::printf("%8s  %-44s %10s %10s %7s %8s %5s\n", "runs", "--where", "before s", "now s", "ratio",
              "kept", "same");
  for (long n : sizes) {
    const std::string path = (dir / ("lab" + std::to_string(n) + ".db")).string();
    record_runs(path, n);
    const auto store = db::Store::open(path, db::OpenMode::ReadOnly);
    for (const auto& where : wheres) {
      experiments::RunSelection s;
      s.where = where;
      std::vector<int64_t> kept_before, kept_now;
      const double b =
          ways == "now" ? 0 : median_s([&] { return before(store, s); }, rounds, &kept_before);
      const double a =
          ways == "before" ? 0 : median_s([&] { return now(store, s); }, rounds, &kept_now);
      const size_t kept = std::max(kept_before.size(), kept_now.size());
      std::printf("%8ld  %-44s %10.3f %10.3f %7.2f %8zu %5s\n", n, where.c_str(), b, a,
                  a > 0 ? b / a : 0.0, kept,
                  ways != "both"            ? "-"
                  : kept_before == kept_now ? "yes"
                                            : "NO");
    }
  }
  fs::remove_all(dir);
  return 0;
}

}  // namespace fathom::bench::bench_stored_run_selection

FATHOM_BENCH_PROGRAM(bench_stored_run_selection, "fathom runs --where over a SQLite store");
