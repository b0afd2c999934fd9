// `fathom export noise-scale` as a user runs it, on rows logged as the trainer logs them: two
// log windows of three updates, whose per-update estimates (tr, |G|^2) are (1, 1), (2, 1),
// (3, 1) and (4, 2), (5, 2), (6, 2). Each window alone, and both pooled: the pooled means are
// 3.5 and 1.5 -- B_simple 7/3 -- and tr's standard error sd(1..6) / sqrt 6 = sqrt(3.5 / 6), as
// if the six updates had been one window. A run trained without train.noise_scale is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/metrics/noise_scale_window.h"
#include "base/util/process.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/noise_scale_rows.h"
#include "tests/support/temp_dir.h"

namespace test_export_noise_scale_cli {
namespace ft = fathom::testing;
namespace m = fathom::db::metric;

// A window's rows at update `step`, as TrainingSession::log_noise_scale writes them, and a
// training loss there.
void log_window(fathom::db::Store& store, int64_t run, int64_t step,
                const std::vector<std::pair<double, double>>& updates) {
  ft::log_noise_window(store, run, step, updates);
  store.write_metrics(run, {{step, m::kTrainLoss, 4.0 - static_cast<double>(step) / 3, 0.0}});
}

TEST(ExportNoiseScaleCli, PoolsLoggedWindowsAsTheirUpdates) {
  ft::TempDir dir;
  const std::string db = (dir.path() / "runs.db").string();
  int64_t logged = 0, plain = 0;
  {
    auto store = fathom::db::Store::open(db);
    fathom::db::NewRun run;
    run.name = "noisy";
    logged = store.create_run(run);
    log_window(store, logged, 3, {{1, 1}, {2, 1}, {3, 1}});
    log_window(store, logged, 6, {{4, 2}, {5, 2}, {6, 2}});
    run.name = "plain";
    plain = store.create_run(run);
    store.write_metrics(plain, {{5, m::kTrainLoss, 3.0, 0.0}});
  }
  auto export_json = [&](int64_t run, const std::string& pool) {
    return fathom::run_program({ft::built_fathom_binary().string(), "--db", db, "--json", "export",
                                "noise-scale", std::to_string(run), "--pool", pool},
                               "", {}, 120);
  };
  const auto windows = export_json(logged, "1");
  ASSERT_EQ(windows.exit_code, 0) << windows.err;
  const auto w = nlohmann::json::parse(windows.out)["points"];
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0]["first_update"], 1);
  EXPECT_EQ(w[0]["last_update"], 3);
  EXPECT_EQ(w[1]["first_update"], 4);
  EXPECT_EQ(w[1]["last_update"], 6);
  EXPECT_NEAR(w[0]["b_simple"].get<double>(), 2.0, 1e-12);  // means 2 and 1
  EXPECT_NEAR(w[1]["b_simple"].get<double>(), 2.5, 1e-12);  // means 5 and 2
  EXPECT_NEAR(w[1]["train_loss"].get<double>(), 2.0, 1e-12);

  const auto pooled = export_json(logged, "2");
  ASSERT_EQ(pooled.exit_code, 0) << pooled.err;
  const auto p = nlohmann::json::parse(pooled.out)["points"];
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0]["readings"], 6);
  EXPECT_EQ(p[0]["first_update"], 1);
  EXPECT_NEAR(p[0]["trace"].get<double>(), 3.5, 1e-12);
  EXPECT_NEAR(p[0]["grad_sq"].get<double>(), 1.5, 1e-12);
  EXPECT_NEAR(p[0]["b_simple"].get<double>(), 7.0 / 3, 1e-12);
  EXPECT_NEAR(p[0]["trace_se"].get<double>(), std::sqrt(3.5 / 6), 1e-9);
  EXPECT_NEAR(p[0]["grad_sq_se"].get<double>(), std::sqrt(0.3 / 6), 1e-9);  // sd^2 of 1,1,1,2,2,2

  const auto table = fathom::run_program({ft::built_fathom_binary().string(), "--db", db, "export",
                                          "noise-scale", "noisy", "--pool", "2"},
                                         "", {}, 120);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("| 1-6 | 6 | 2.000 | 2.3 |"), std::string::npos) << table.out;

  const auto refused = export_json(plain, "1");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("train.noise_scale"), std::string::npos) << refused.err;
}

}  // namespace test_export_noise_scale_cli
