// `fathom export table --at compute=F` at the sizes a depth study reaches: 4 depths x 8 methods
// x S seeds, 1,024 to 16,384 runs in a SQLite store, each with a training curve of 200 points
// and 20 validations, target_tokens and train_flops beside them (a deeper model costs more per
// update). Times the table at the runs' ends (--value last: one short read per run) and at an
// equal compute budget (three curves read per run), and at `--at compute=least` (the least any
// finished run reached, one more curve read per run to find it), side by side, and checks the
// budgets' cells against the hand-picked validation (the last inside the budget).
//   build/bench/bench_value_at_budget [SEEDS,... (default 32,128,512)] [KEEP_DIR]
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "base/util/strings.h"
#include "bench/peak_rss.h"
#include "bench/size_list.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "experiments/comparison_table.h"
#include "experiments/value_at_budget.h"

namespace {
namespace fs = std::filesystem;
using namespace fathom;
using Clock = std::chrono::steady_clock;

const std::vector<int> kDepths = {6, 12, 24, 48};
constexpr int kMethods = 8, kUpdates = 20000, kLogEvery = 100, kValidEvery = 1000;

// Depth L costs L x 1e11 FLOPs an update; method m's validation loss at update u is
// 2 + m / 10 + 1000 / u (so the value at a budget is known in closed form).
double loss_at(int method, int64_t update) { return 2 + method / 10.0 + 1000.0 / update; }

void fill(db::Store& store, int seeds) {
  int64_t id = 0;
  for (int depth : kDepths)
    for (int m = 0; m < kMethods; ++m)
      for (int seed = 1; seed <= seeds; ++seed) {
        db::RunExport r;
        r.run.id = ++id;
        r.run.name = "study/layers=" + std::to_string(depth) + ",method=m" + std::to_string(m) +
                     ",seed=" + std::to_string(seed);
        r.run.sweep = "study";
        r.run.status = "finished";
        r.run.updates = kUpdates;
        r.run.config_json = "{}";
        r.run.final_metrics = {{"valid_loss", loss_at(m, kUpdates)}};
        r.tags = {{"axis.model.encoder_layers", std::to_string(depth)},
                  {"axis.model.init", "m" + std::to_string(m)},
                  {"axis.train.seed", std::to_string(seed)}};
        for (int64_t u = kLogEvery; u <= kUpdates; u += kLogEvery) {
          r.metrics.push_back({u, "train_loss", loss_at(m, u) + 0.1, 0.0});
          r.metrics.push_back({u, db::metric::kTargetTokens, 4096.0 * u, 0.0});
          r.metrics.push_back({u, db::metric::kTrainFlops, depth * 1e11 * u, 0.0});
          if (u % kValidEvery == 0) r.metrics.push_back({u, "valid_loss", loss_at(m, u), 0.0});
        }
        store.import_run(r);
      }
}

double seconds_of(const db::Store& store, const experiments::TableOptions& o,
                  experiments::ComparisonTable& t) {
  const auto start = Clock::now();
  t = experiments::sweep_comparison_table(store, "study", o);
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<long> sizes = bench::parse_size_list(argc > 1 ? argv[1] : "32,128,512");
  // A second argument keeps each size's store there (runs-<runs>.db), to time the commands
  // that read it (`export plot curves --at`, `export plot budgets`) on it.
  const std::string keep = argc > 2 ? argv[2] : "";
  // 4.8e15 FLOPs: update 8,000 at 6 layers ... 1,000 at 48.
  const double budget = 4.8e15;
  std::printf(
      "| runs | metric rows | --value last | --at compute=4.8e15 | ratio | --at compute=least | "
      "ratio | cells right | peak RSS MB |\n|---:|---:|---:|---:|---:|---:|---:|---|---:|\n");
  for (long seeds : sizes) {
    const fs::path dir = fs::temp_directory_path() / ("bench-budget-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    {
      auto store = db::Store::open((dir / "runs.db").string());
      fill(store, seeds);
    }
    const auto store = db::Store::open((dir / "runs.db").string(), db::OpenMode::ReadOnly);
    experiments::TableOptions o;
    o.rows = "model.encoder_layers";
    o.cols = "model.init";
    o.metric = "valid_loss";
    o.value = experiments::RunValue::Last;
    experiments::ComparisonTable last, at;
    const double a = seconds_of(store, o, last);
    experiments::TableOptions b = o;
    b.value = experiments::RunValue::Final;
    b.at = experiments::Budget{"compute", budget};
    const double c = seconds_of(store, b, at);
    experiments::TableOptions l = b;
    l.at = experiments::parse_budget("compute=least", "bench");
    experiments::ComparisonTable at_least;
    const double e = seconds_of(store, l, at_least);
    // The shallowest model's whole training, 2 % of slack: each depth's last validation inside.
    const double least = kDepths.front() * 1e11 * kUpdates * (1 + experiments::kLeastTolerance);
    bool right = at.cells.size() == kDepths.size() && at_least.cells.size() == kDepths.size();
    for (size_t d = 0; right && d < kDepths.size(); ++d)
      for (int m = 0; m < kMethods; ++m) {
        for (const auto& [x, t] : {std::pair{budget, &at}, std::pair{least, &at_least}}) {
          const int64_t update =
              std::min<int64_t>(kUpdates, static_cast<int64_t>(x / (kDepths[d] * 1e11)));
          const auto& v = t->cells[d][m].value;
          right =
              right && v && std::abs(*v - loss_at(m, update / kValidEvery * kValidEvery)) < 1e-9;
        }
      }
    const size_t runs = kDepths.size() * kMethods * seeds;
    const size_t rows = runs * (3 * kUpdates / kLogEvery + kUpdates / kValidEvery);
    std::printf("| %zu | %zu | %.3f s | %.3f s | %.2f | %.3f s | %.2f | %s | %ld |\n", runs, rows,
                a, c, c / a, e, e / a, right ? "yes" : "NO", bench::peak_rss_mb());
    std::fflush(stdout);
    if (!keep.empty()) {
      fs::create_directories(keep);
      fs::copy_file(dir / "runs.db", fs::path(keep) / ("runs-" + std::to_string(runs) + ".db"),
                    fs::copy_options::overwrite_existing);
    }
    fs::remove_all(dir);
  }
  return 0;
}
