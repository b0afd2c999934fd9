#pragma once
// A batch-size sweep made by McCandlish et al.'s model (arXiv 1812.06162, eq. 2.11), for the
// time-to-target figure's and tab's tests: batches of 256, 512, 1024 and 2048 target tokens an
// update (rows, data.max_tokens) by two rates (columns, train.lr) by two seeds. At rate 2e-3 a
// run reaches valid_loss 2.0 at S = 100 (1 + 500 / B) updates, at 1e-3 1.5 times later; the
// seeds at 0.95 S and 1.05 S, so each cell's mean is S exactly. Each curve is 3 - step / S_run,
// logged every 50 updates to 1000: linear, so the crossing read between two points is exact,
// and a run's lowest loss is 3 - 1000 / S_run.
#include <string>
#include <vector>

#include "db/metric_names.h"
#include "db/store.h"

namespace fathom::testing {

inline constexpr double kSweepSMin = 100, kSweepBCrit = 500;
inline const std::vector<double> kSweepBatches{256, 512, 1024, 2048};

// Updates run `seed` (1 or 2) of the cell takes to valid_loss 2.0.
inline double sweep_run_updates(double batch, bool fast_rate, int seed) {
  return kSweepSMin * (1 + kSweepBCrit / batch) * (fast_rate ? 1.0 : 1.5) *
         (seed == 1 ? 0.95 : 1.05);
}

// Writes the 16 runs of sweep `name` (finished) into the store at `path`; `layout` the sweep
// file's axis groups in its order (the sweep.axes tag).
inline void write_critical_batch_sweep(
    const std::string& path, const std::string& name = "b",
    const std::string& layout = "data.max_tokens,train.lr,train.seed") {
  auto store = db::Store::open(path);
  for (double batch : kSweepBatches)
    for (bool fast : {false, true})
      for (int seed : {1, 2}) {
        db::NewRun run;
        run.name = name + "/" + std::to_string(static_cast<int>(batch)) + (fast ? "-fast-" : "-") +
                   std::to_string(seed);
        run.sweep = name;
        const int64_t id = store.create_run(run);
        store.set_tag(id, "axis.data.max_tokens", std::to_string(static_cast<int>(batch)));
        store.set_tag(id, "axis.train.lr", fast ? "0.002" : "0.001");
        store.set_tag(id, "axis.train.seed", std::to_string(seed));
        store.set_tag(id, "sweep.axes", layout);
        const double s = sweep_run_updates(batch, fast, seed);
        std::vector<db::MetricRow> rows;
        for (int step = 0; step <= 1000; step += 50) {
          rows.emplace_back(step, db::metric::kValidLoss, 3 - step / s, 0.0);
          if (step > 0) rows.emplace_back(step, db::metric::kTargetTokens, batch * step, 0.0);
        }
        store.write_metrics(id, rows);
        store.finish_run(id, "finished", "", std::nullopt);
      }
}

}  // namespace fathom::testing
