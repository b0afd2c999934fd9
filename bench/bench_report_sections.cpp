// A sweep report's learning-rate and importance sections at the sizes a depth x learning-rate
// study reaches: 4 depths x 8 rates x S seeds, 1,024 to 16,384 runs in a SQLite store. Times
// the transfer across depth as the report now reads it (one selection, each depth's runs taken
// from it: lr_transfer_of) against the way it read it before (the sweep listed and filtered
// again for every depth: select_sweep_runs with "model.layers=D", then lr_sensitivity_of), the
// sensitivity over the whole selection and the importance decomposition; peak memory after each
// size. Both ways must give the same best rates ("same: yes"). Also the time-to-target section
// (`fathom report --reach valid_loss=3`, experiments/report_reach.h: a curve read per run, and
// its train.noise_scale rows -- ten log windows a run here -- for B_simple where it got there).
//   build/bench/bench_report_sections [SEEDS,... (default 32,128,512)]
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "base/util/strings.h"
#include "bench/peak_rss.h"
#include "bench/size_list.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "experiments/hparam_importance.h"
#include "experiments/lr_transfer.h"
#include "experiments/report_reach.h"

namespace {
namespace fs = std::filesystem;
using namespace fathom;
using Clock = std::chrono::steady_clock;

const std::vector<int> kDepths = {6, 12, 24, 48};
const std::vector<double> kRates = {1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2};

// Every run finished, its loss a parabola in ln lr around 1e-2 / sqrt(depth / 6), l0 at update
// 0 and the loss at update 1,000; one transaction a run.
void fill(db::Store& store, int seeds) {
  int64_t id = 0;
  for (int depth : kDepths)
    for (double lr : kRates)
      for (int seed = 1; seed <= seeds; ++seed) {
        db::RunExport r;
        r.run.id = ++id;
        char rate[32];
        std::snprintf(rate, sizeof rate, "%g", lr);
        r.run.name = "study/layers=" + std::to_string(depth) + ",lr=" + rate +
                     ",seed=" + std::to_string(seed);
        r.run.sweep = "study";
        r.run.status = "finished";
        r.run.updates = 1000;
        r.run.config_json = "{\"model\":{\"layers\":" + std::to_string(depth) +
                            "},\"train\":{\"lr\":" + rate + ",\"seed\":" + std::to_string(seed) +
                            "}}";
        const double best = 1e-2 / std::sqrt(depth / 6.0);
        const double loss =
            2 + std::pow(std::log(lr / best), 2) / 8 + 0.01 * std::sin(seed * 1.7 + depth);
        r.run.final_metrics = {{"valid_loss", loss}};
        r.tags = {{"axis.model.layers", std::to_string(depth)},
                  {"axis.train.lr", rate},
                  {"axis.train.seed", std::to_string(seed)}};
        r.metrics = {{0, "valid_loss", 9.0, 0.0}, {1000, "valid_loss", loss, 1.0}};
        // train.noise_scale's rows, a log window every 100 updates: the reach section reads
        // B_simple where each run got there.
        for (int64_t step = 100; step <= 1000; step += 100)
          for (const auto& [name, value] : {std::pair{db::metric::kNoiseUpdates, 100.0},
                                            {db::metric::kNoiseTrace, 300.0},
                                            {db::metric::kNoiseTraceSe, 20.0},
                                            {db::metric::kNoiseGradSq, 1.5},
                                            {db::metric::kNoiseGradSqSe, 0.1},
                                            {db::metric::kNoiseBSimple, 200.0}})
            r.metrics.push_back({step, name, value, 1.0});
        store.import_run(r);
      }
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<long> sizes = bench::parse_size_list(argc > 1 ? argv[1] : "32,128,512");
  std::printf(
      "| runs | transfer now | transfer before | ratio | same | sensitivity | importance "
      "| reach | peak RSS MB |\n|---:|---:|---:|---:|---|---:|---:|---:|---:|\n");
  for (long seeds : sizes) {
    const fs::path path =
        fs::temp_directory_path() / ("bench-report-" + std::to_string(getpid()) + ".db");
    fs::remove(path);
    {
      auto store = db::Store::open(path.string());
      fill(store, seeds);
    }
    const auto store = db::Store::open(path.string(), db::OpenMode::ReadOnly);
    auto t = Clock::now();
    const auto selected = experiments::select_sweep_runs(store, "study", "");
    const auto now = experiments::lr_transfer_of(store, selected, "", "valid_loss");
    const double now_s = seconds_since(t);

    t = Clock::now();
    // Before: the sweep listed for its depths, then again for each depth.
    const auto listed = experiments::select_sweep_runs(store, "study", "");
    if (listed.runs.size() != selected.runs.size()) return 1;
    std::vector<std::pair<double, experiments::LrSensitivity>> by_depth;
    for (int depth : kDepths)
      by_depth.emplace_back(depth, experiments::lr_sensitivity_of(
                                       store,
                                       experiments::select_sweep_runs(
                                           store, "study", "model.layers=" + std::to_string(depth)),
                                       "valid_loss"));
    const auto before = experiments::lr_transfer(by_depth, "model.layers");
    const double before_s = seconds_since(t);

    bool same = now.rows.size() == before.rows.size();
    for (size_t i = 0; same && i < now.rows.size(); ++i)
      same = now.rows[i].best.lr == before.rows[i].best.lr;

    t = Clock::now();
    const auto sensitivity = experiments::lr_sensitivity_of(store, selected, "valid_loss");
    const double sensitivity_s = seconds_since(t);
    t = Clock::now();
    const auto importance = experiments::hparam_importance_of(store, selected, "valid_loss",
                                                              experiments::RunValue::Final);
    const double importance_s = seconds_since(t);
    t = Clock::now();
    std::ostringstream reach;
    experiments::reach_section(reach, store, "study", selected, "model.layers", "train.lr",
                               experiments::reach_request("valid_loss=3"));
    const double reach_s = seconds_since(t);
    std::printf("| %zu | %.3f s | %.3f s | %.2f | %s | %.3f s | %.3f s | %.3f s | %ld |\n",
                selected.runs.size(), now_s, before_s, before_s / now_s, same ? "yes" : "NO",
                sensitivity_s, importance_s, reach_s, bench::peak_rss_mb());
    std::fflush(stdout);
    if (sensitivity.curves.empty() || importance.axes.empty()) return 1;
    if (reach.str().find("No table") != std::string::npos ||
        reach.str().find("B_simple there") == std::string::npos)
      return 1;
    fs::remove(path);
  }
  return 0;
}
