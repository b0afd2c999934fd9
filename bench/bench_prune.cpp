// Pruning a finished sweep's kept checkpoints and fallback resume points
// (experiments/checkpoint_prune.h, `fathom prune --sweep S --keep 10 --model-only --previous
// --yes`) at the sizes labs reach: R runs of a SQLite store each with K kept checkpoints and two
// resume points (empty files: the time is the store's and the file system's, not the bytes').
// Prints the time to plan every run (what a listing without --yes reads), to apply the removals
// (one transaction and K-10+1 unlinks per run; not the --model-only rewrites nor the load of
// checkpoint_last before --previous, which are the files' bytes) and per run; then the same plan
// again on the pruned store, which reads 10 rows a run instead of K.
//   bench_prune [runs=100,1000,2000] [kept=100]
// Run by hand (never in ctest); scratch files under $TMPDIR.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench/bench_program.h"
#include "bench/size_list.h"
#include "experiments/checkpoint_prune.h"

namespace fathom::bench::bench_prune {

namespace fs = std::filesystem;

namespace {

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A store of `runs` finished runs of sweep "s", each with `kept` kept checkpoints on disk.
void fill(db::Store& store, const db::StorePaths& paths, long runs, long kept) {
  for (long i = 0; i < runs; ++i) {
    db::NewRun r;
    r.name = "s/run" + std::to_string(i);
    r.sweep = "s";
    const int64_t id = store.create_run(r);
    fs::create_directories(paths.run_dir(id));
    for (long u = 1; u <= kept; ++u) {
      const std::string kind = db::kept_checkpoint_kind(100 * u);
      const std::string path = paths.run_dir(id) + "/" + kind + ".g1.pt";
      std::ofstream{path};
      store.add_artifact(id, kind, path, 100 * u);
    }
    for (const char* kind : {"checkpoint_last", "checkpoint_previous"}) {
      const std::string path = paths.run_dir(id) + "/" + kind + ".g1.pt";
      std::ofstream{path};
      store.add_artifact(id, kind, path, 100 * kept);
    }
    store.mark_running(id, "host", "cpu");
    store.finish_run(id, "finished");
  }
}

std::vector<experiments::PrunePlan> plan_all(const db::Store& store, const db::StorePaths& paths,
                                             int keep) {
  std::vector<experiments::PrunePlan> plans;
  for (const auto& run : store.list_runs("s"))
    plans.push_back(experiments::plan_prune(store, paths, run, {keep, true, true}));
  return plans;
}

}  // namespace

int bench_main(int argc, char** argv) {
  const auto sizes = bench::parse_size_list(argc > 1 ? argv[1] : "100,1000,2000");
  const long kept = argc > 2 ? std::atol(argv[2]) : 100;
  std::printf("%6s %6s %10s %10s %12s %14s %8s\n", "runs", "kept", "plan s", "apply s",
              "apply ms/run", "replan s", "replan/plan");
  for (long runs : sizes) {
    const fs::path dir = fs::temp_directory_path() / ("bench_prune_" + std::to_string(runs));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string db = (dir / "runs.db").string();
    auto store = db::Store::open(db);
    const db::StorePaths paths = db::store_paths(db);
    fill(store, paths, runs, kept);
    auto start = std::chrono::steady_clock::now();
    const auto plans = plan_all(store, paths, 10);
    const double plan_s = since(start);
    start = std::chrono::steady_clock::now();
    size_t removed = 0;
    for (const auto& p : plans) {
      experiments::apply_prune(store, p);
      removed += p.removed.size() + (p.removes_previous() ? 1 : 0);
    }
    const double apply_s = since(start);
    start = std::chrono::steady_clock::now();
    const auto again = plan_all(store, paths, 10);
    const double replan_s = since(start);
    size_t left = 0;
    for (const auto& p : again) left += p.removed.size() + (p.removes_previous() ? 1 : 0);
    if (removed != static_cast<size_t>(runs * (kept - 10 + 1)) || left != 0) {
      std::fprintf(stderr, "bench_prune: removed %zu, %zu left to remove\n", removed, left);
      return 1;
    }
    std::printf("%6ld %6ld %10.3f %10.3f %12.2f %14.3f %8.2f\n", runs, kept, plan_s, apply_s,
                1000 * apply_s / static_cast<double>(runs), replan_s, replan_s / plan_s);
    fs::remove_all(dir);
  }
  return 0;
}

}  // namespace fathom::bench::bench_prune

FATHOM_BENCH_PROGRAM(bench_prune, "pruning a finished sweep's kept checkpoints");
