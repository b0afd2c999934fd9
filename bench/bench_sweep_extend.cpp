// `fathom sweep extend` at the sizes a depth x method x learning-rate study reaches: 8 methods
// x 4 depths x 8 rates x S seeds, 1,024 to 16,384 runs in a SQLite store, whose losses put half
// the methods' optima above the grid's top rate (their curves fall to it) -- 16 open curves of
// 32. Times plan_lr_extension (the sweep's curves read and judged, the extension file written
// and checked by expansion) and says whether the file holds exactly the open curves' runs.
// Beside it, `--axis model.encoder_layers --lines model.dropout --agg best` (plan_axis_extension):
// the odd methods' best depth is the deepest (48), so 4 of 8 methods get 96 layers at all 8
// rates.
//   build/bench/bench_sweep_extend [SEEDS,... (default 4,16,64)]
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/util/strings.h"
#include "bench/peak_rss.h"
#include "bench/size_list.h"
#include "db/store.h"
#include "experiments/axis_extension.h"
#include "experiments/lr_extension.h"

namespace {
namespace fs = std::filesystem;
using namespace fathom;
using Clock = std::chrono::steady_clock;

const std::vector<std::string> kMethods = {"m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8"};
const std::vector<std::string> kDepths = {"6", "12", "24", "48"};
const std::vector<std::string> kRates = {"1e-4", "2e-4", "5e-4", "1e-3",
                                         "2e-3", "5e-3", "1e-2", "2e-2"};

void write_sweep(const fs::path& dir, int seeds) {
  std::ofstream(dir / "base.yaml") << "model: {d_model: 16, heads: 2, d_ff: 32}\n"
                                      "data: {task: synthetic}\n";
  std::string list;
  for (int s = 1; s <= seeds; ++s) list += (s > 1 ? ", " : "") + std::to_string(s);
  std::ofstream(dir / "study.yaml")
      << "name: study\nbase: base.yaml\ngrid:\n  train.lr: [" << join(kRates, ", ")
      << "]\n  model.encoder_layers: [" << join(kDepths, ", ") << "]\n  model.dropout: [0.0, 0.1, "
      << "0.2, 0.3, 0.4, 0.5, 0.6, 0.7]\nseeds: [" << list << "]\n";
}

// Method i is dropout 0.i; the odd ones have their optimum at 5e-2, past the top rate.
void fill(db::Store& store, int seeds) {
  int64_t id = 0;
  for (size_t m = 0; m < kMethods.size(); ++m)
    for (const auto& depth : kDepths)
      for (const auto& rate : kRates)
        for (int seed = 1; seed <= seeds; ++seed) {
          const std::string dropout = m == 0 ? "0.0" : "0." + std::to_string(m);
          db::RunExport r;
          r.run.id = ++id;
          r.run.name = "study/lr=" + rate + ",encoder_layers=" + depth + ",dropout=" + dropout +
                       ",seed=" + std::to_string(seed);
          r.run.sweep = "study";
          r.run.status = "finished";
          r.run.updates = 1000;
          r.run.config_json = "{}";
          const double best = m % 2 ? 5e-2 : 1e-3;
          // The depth's term is the same at every rate: the rates' optima stay where they were.
          const double best_depth = m % 2 ? 96 : 12;
          const double loss = 2 + std::pow(std::log(std::stod(rate) / best), 2) / 8 +
                              std::pow(std::log(std::stod(depth) / best_depth), 2) / 10 +
                              0.01 * std::sin(seed * 1.7 + m);
          r.run.final_metrics = {{"valid_loss", loss}};
          r.tags = {{"axis.train.lr", rate},
                    {"axis.model.encoder_layers", depth},
                    {"axis.model.dropout", dropout},
                    {"axis.train.seed", std::to_string(seed)}};
          r.metrics = {{0, "valid_loss", 9.0, 0.0}, {1000, "valid_loss", loss, 1.0}};
          store.import_run(r);
        }
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<long> sizes = bench::parse_size_list(argc > 1 ? argv[1] : "4,16,64");
  std::printf(
      "| runs | extend | open curves | runs in the file | right | --axis depth | open lines | "
      "runs in the file | right | peak RSS MB |\n"
      "|---:|---:|---:|---:|---|---:|---:|---:|---|---:|\n");
  for (long seeds : sizes) {
    const fs::path dir = fs::temp_directory_path() / ("bench-extend-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    write_sweep(dir, seeds);
    {
      auto store = db::Store::open((dir / "runs.db").string());
      fill(store, seeds);
    }
    const auto store = db::Store::open((dir / "runs.db").string(), db::OpenMode::ReadOnly);
    const auto t = Clock::now();
    const auto x =
        experiments::plan_lr_extension(store, (dir / "study.yaml").string(), "", "valid_loss",
                                       experiments::RunValue::Last, dir.string());
    const double s = std::chrono::duration<double>(Clock::now() - t).count();
    const size_t want = 16 * static_cast<size_t>(seeds);  // 4 odd methods x 4 depths x seeds
    experiments::AxisExtensionRequest r;
    r.sweep_file = (dir / "study.yaml").string();
    r.axis = "model.encoder_layers";
    r.lines = "model.dropout";
    r.agg = experiments::CellAgg::Best;
    r.reading = experiments::RunValue::Last;
    r.out_dir = dir.string();
    const auto t_depth = Clock::now();
    const auto d = experiments::plan_axis_extension(store, r);
    const double s_depth = std::chrono::duration<double>(Clock::now() - t_depth).count();
    const size_t want_depth = 4 * kRates.size() * static_cast<size_t>(seeds);  // at 96 layers
    std::printf("| %zu | %.3f s | %zu | %zu | %s | %.3f s | %zu | %zu | %s | %ld |\n",
                x.curves * kRates.size() * seeds, s, x.edges.open.size(), x.file.runs.size(),
                x.edges.open.size() == 16 && x.file.runs.size() == want ? "yes" : "NO", s_depth,
                d.open.size(), d.file.runs.size(),
                d.open.size() == 4 && d.file.runs.size() == want_depth ? "yes" : "NO",
                bench::peak_rss_mb());
    std::fflush(stdout);
    fs::remove_all(dir);
  }
  return 0;
}
