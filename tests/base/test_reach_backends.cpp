// The time-to-target table on every backend: its runs' curves and tags are read a few hundred
// runs at a time (Store::poll_curves, Store::listing_tags -- one round trip each to a server),
// and must give what the model the sweep was made by says (tests/support/critical_batch_sweep.h:
// the fast rate's cells at S = 100 (1 + 500 / B) exactly, the fit S_min 100, B_crit 500), with
// B_simple read where runs logged noise.* rows and the target every finished run reached.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "db/store.h"
#include "experiments/reach_text.h"
#include "experiments/sweep_runs.h"
#include "experiments/time_to_target.h"
#include "tests/support/critical_batch_sweep.h"
#include "tests/support/noise_scale_rows.h"
#include "tests/support/store_test_fixture.h"

using fathom::testing::StoreBackendTest;

namespace test_reach_backends {

TEST_P(StoreBackendTest, ATimeToTargetTableReadsItsRunsInBatches) {
  fathom::testing::write_critical_batch_sweep(db_path());
  {
    // Runs 2 and 4 (batch 256: slow seed 2, fast seed 2) read their noise scale: windows ending
    // at 300 and 1000 (tr means 3 and 7, |G|^2 means 1 and 2).
    auto store = fathom::db::Store::open(db_path());
    for (int64_t run : {2, 4}) {
      fathom::testing::log_noise_window(store, run, 300, {{2, 1}, {4, 1}});
      fathom::testing::log_noise_window(store, run, 1000, {{6, 2}, {8, 2}});
    }
  }
  const auto store = fathom::db::Store::open(db_path(), fathom::db::OpenMode::ReadOnly);
  fathom::experiments::ReachOptions o;
  o.rows = "data.max_tokens";
  o.cols = "train.lr";
  o.metric = "valid_loss";
  o.target = 2.0;
  const auto t = fathom::experiments::reach_table(store, "b", o);
  ASSERT_EQ(t.cells.size(), 8u);
  ASSERT_EQ(t.best.size(), 4u);
  for (size_t i : t.best) {
    const auto& c = t.cells[i];
    EXPECT_EQ(c.col, "0.002");
    EXPECT_NEAR(c.updates, 100 * (1 + 500 / std::stod(c.row)), 1e-9) << c.row;
    EXPECT_NEAR(c.tokens_per_update, std::stod(c.row), 1e-9) << c.row;
  }
  // Batch 256's cells: each has one run with noise rows, which got there past update 300 (at
  // 1.5 x 1.05 x 295.3 and 1.05 x 295.3 = 310): the window to 1000 pooled with the one before,
  // tr 5 over |G|^2 1.5.
  EXPECT_EQ(t.cells[0].b_simple_runs, 1);
  EXPECT_NEAR(t.cells[0].b_simple, 5 / 1.5, 1e-9);
  EXPECT_EQ(t.cells[1].b_simple_runs, 1);
  EXPECT_NEAR(t.cells[1].b_simple, 5 / 1.5, 1e-9);
  EXPECT_EQ(t.cells[2].b_simple_runs, 0);
  const auto fit = fathom::experiments::fit_best_cells(t);
  ASSERT_TRUE(fit);
  EXPECT_NEAR(fit->s_min, 100, 1e-6);
  EXPECT_NEAR(fit->b_crit, 500, 1e-6);
  // The least demanding target every finished run reached: the slowest run's lowest loss.
  const auto selected = fathom::experiments::select_sweep_runs(store, "b", "");
  const auto target = fathom::experiments::target_every_run_reached(store, selected, "valid_loss");
  ASSERT_TRUE(target);
  EXPECT_NEAR(*target, 3 - 1000 / fathom::testing::sweep_run_updates(256, false, 2), 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreBackendTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace test_reach_backends
