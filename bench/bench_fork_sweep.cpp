// Queueing a fork sweep (`fork: {run: RUN, from: STEP}`, cli/fork_sweep.h) at the sizes a long
// run reaches: a parent with R metric rows (10 metrics, R/10 logged updates) and K kept
// checkpoints with optimizer state (a small model's: the files are hard-linked, so their bytes
// cost nothing), forked F times at its middle update as `fathom sweep` makes each run
// (create_fork: its checkpoints linked, its metric rows and probe points up to there copied,
// its tags) -- what they inherit read once per sweep -- and, side by side, F more made one by one
// as `fathom train --fork` makes each (read per fork). Prints the time per fork both ways and
// their ratio, the rows a fork copies and their rate, and the peak resident memory while the
// sweep's forks are made (VmHWM, reset before; the store is a SQLite file).
//   bench_fork_sweep [rows=10000,100000,1000000] [forks=10] [kept=20]
// Run by hand (never in ctest); scratch files under $TMPDIR.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "base/config/config_io.h"
#include "bench/bench_program.h"
#include "bench/size_list.h"
#include "core/model/depth_parameterization.h"
#include "core/model/transformer.h"
#include "core/train/checkpoint.h"
#include "core/train/fork.h"
#include "core/train/optimizer.h"
#include "db/artifact_files.h"
#include "db/run_paths.h"
#include "db/store.h"

namespace fathom::bench::bench_fork_sweep {

namespace fs = std::filesystem;

namespace {

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// VmHWM of this process in MiB, and its reset to the resident size now (Linux >= 4.0).
double peak_mib() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) / 1024;
  return 0;
}
void reset_peak() { std::ofstream("/proc/self/clear_refs") << "5"; }

const char* const kConfig =
    "name: parent\nmodel: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1, "
    "decoder_layers: 1}\ndata: {task: synthetic}\ntrain: {max_updates: 1000000}\n";

// The parent: `rows` metric rows over rows/10 updates, `kept` kept checkpoints evenly spread;
// returns the update the forks start from (a kept one, in the middle).
int64_t make_parent(db::Store& store, const db::StorePaths& paths, long rows, long kept,
                    db::RunRecord* parent) {
  const RunConfig config = load_config_string(kConfig, "bench", "");
  db::NewRun n;
  n.name = "parent";
  n.config_yaml = config_to_yaml(config);
  n.config_json = config_to_json(config).dump();
  const int64_t id = store.create_run(n);
  const long updates = rows / 10;
  std::vector<db::MetricRow> metric_rows;
  for (long u = 1; u <= updates; ++u)
    for (int m = 0; m < 10; ++m)
      metric_rows.emplace_back(u, "metric" + std::to_string(m), 1.0 / u + m, 0.0);
  store.write_metrics(id, metric_rows);
  Transformer model(config.model, 16);
  Optimizer optimizer(parameter_groups(*model, config.model), config.train, {});
  fs::create_directories(paths.run_dir(id));
  const long every = std::max(1L, updates / kept);
  int64_t middle = 0;
  for (long k = 1; k <= kept; ++k) {
    TrainerState state;
    state.update = k * every;
    const std::string kind = db::kept_checkpoint_kind(state.update);
    const std::string path = paths.run_dir(id) + "/" + kind + ".g1.pt";
    save_checkpoint(path, *model, &optimizer, state, n.config_yaml);
    store.add_artifact(id, kind, path, state.update);
    if (k == (kept + 1) / 2) middle = state.update;
  }
  store.finish_run(id, "finished");
  *parent = *store.find_run(std::to_string(id));
  return middle;
}

// Makes `forks` forks of `parent` at `from`, as `fathom sweep` does (what they inherit read
// once, `read_once`) or as `fathom train --fork` does each (read per fork); seconds taken.
double make_forks(db::Store& store, const db::StorePaths& paths, const db::RunRecord& parent,
                  int64_t from, long forks, bool read_once, const std::string& sweep) {
  const RunConfig base = load_config_string(parent.config_yaml, "parent", "");
  const auto start = std::chrono::steady_clock::now();
  std::optional<ForkSource> source;
  for (long f = 0; f < forks; ++f) {
    RunConfig config = base;
    config.name = sweep + "/lr=" + std::to_string(f);
    config.train.lr = 1e-3 / (1 + f);
    const auto dir = [&paths](int64_t made) { return paths.run_dir(made); };
    if (read_once && !source)
      source =
          read_fork_source(store, parent, from, config.train.max_updates, paths.run_dir(parent.id));
    const int64_t id = read_once ? create_fork(store, *source, config, dir, "bench", sweep)
                                 : create_fork(store, parent, from, config,
                                               paths.run_dir(parent.id), dir, "bench", sweep);
    store.set_tag(id, "axis.train.lr", std::to_string(config.train.lr));
  }
  return since(start);
}

}  // namespace

int bench_main(int argc, char** argv) {
  const auto sizes = bench::parse_size_list(argc > 1 ? argv[1] : "10000,100000,1000000");
  const auto fork_counts = bench::parse_size_list(argc > 2 ? argv[2] : "10");
  const long kept = argc > 3 ? std::atol(argv[3]) : 20;
  std::printf("%9s %6s %6s %12s %13s %13s %7s %14s %10s\n", "rows", "forks", "kept", "copied/fork",
              "sweep ms/fork", "each ms/fork", "ratio", "rows/s copied", "peak MiB");
  for (long rows : sizes) {
    for (long forks : fork_counts) {
      const fs::path dir = fs::temp_directory_path() / ("bench_fork_sweep_" + std::to_string(rows));
      fs::remove_all(dir);
      fs::create_directories(dir);
      const std::string db = (dir / "runs.db").string();
      auto store = db::Store::open(db);
      const db::StorePaths paths = db::store_paths(db);
      db::RunRecord parent;
      const int64_t from = make_parent(store, paths, rows, kept, &parent);
      reset_peak();
      const double once = make_forks(store, paths, parent, from, forks, true, "sweep");
      const double peak = peak_mib();
      const double each = make_forks(store, paths, parent, from, forks, false, "each");
      const double copied = static_cast<double>(from) * 10;  // rows up to the fork point
      const double n = static_cast<double>(forks);
      std::printf("%9ld %6ld %6ld %12.0f %13.1f %13.1f %7.2f %14.0f %10.1f\n", rows, forks, kept,
                  copied, 1000 * once / n, 1000 * each / n, each / once, copied * n / once, peak);
      std::fflush(stdout);
      fs::remove_all(dir);
    }
  }
  return 0;
}

}  // namespace fathom::bench::bench_fork_sweep

FATHOM_BENCH_PROGRAM(bench_fork_sweep, "queueing a fork sweep: forks of a long run, per fork");
