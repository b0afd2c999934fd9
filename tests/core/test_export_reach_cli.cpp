// `fathom export reach` as a user runs it: three batch sizes whose runs reach validation loss
// 2.0 after exactly S = 100 (1 + 400 / B) updates (B = 100, 400, 1600 target tokens an update;
// each curve a straight line crossing 2.0 at S), a second rate at the smallest batch slower; the
// table bolds each row's fastest cell, and the fit recovers S_min 100 and B_crit 400.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/util/process.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/temp_dir.h"

namespace test_export_reach_cli {
namespace ft = fathom::testing;

// A run of batch B and rate `lr` whose valid loss falls linearly from 8 at update 0, crossing
// 2.0 at update `s` (its second point, at 2s, is -4).
void add_run(fathom::db::Store& store, int b, const std::string& lr, int s) {
  fathom::db::NewRun run;
  run.name = "bs/" + std::to_string(b) + "-" + lr;
  run.sweep = "bs";
  const int64_t id = store.create_run(run);
  store.set_tag(id, "axis.data.max_tokens", std::to_string(b));
  store.set_tag(id, "axis.train.lr", lr);
  store.set_tag(id, "sweep.axes", "data.max_tokens,train.lr");
  namespace m = fathom::db::metric;
  store.write_metrics(id, {{0, m::kValidLoss, 8.0, 0.0},
                           {2 * s, m::kValidLoss, -4.0, 0.0},
                           {2 * s, m::kTargetTokens, 2.0 * s * b, 0.0}});
  store.finish_run(id, "finished", "", std::nullopt);
}

TEST(ExportReachCli, FitsTheCriticalBatchOfRunsMadeByTheModel) {
  ft::TempDir dir;
  const std::string db = (dir.path() / "runs.db").string();
  {
    auto store = fathom::db::Store::open(db);
    add_run(store, 100, "1e-3", 500);
    add_run(store, 100, "2e-3", 700);
    add_run(store, 400, "1e-3", 200);
    add_run(store, 1600, "1e-3", 125);
  }
  const std::vector<std::string> args{ft::built_fathom_binary().string(),
                                      "--db",
                                      db,
                                      "export",
                                      "reach",
                                      "--sweep",
                                      "bs",
                                      "--metric",
                                      "valid_loss",
                                      "--target",
                                      "2.0",
                                      "--rows",
                                      "data.max_tokens",
                                      "--cols",
                                      "train.lr",
                                      "--fit-critical-batch"};
  const auto text = fathom::run_program(args, "", {}, 120);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("| 100 | 1e-3 | 1/1 | **500.0** | 50000 | 100 |"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("| 100 | 2e-3 | 1/1 | 700.0 |"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("S_min 100 updates, B_crit 400 target tokens"), std::string::npos)
      << text.out;

  std::vector<std::string> json_args = args;
  json_args.insert(json_args.begin() + 1, "--json");
  const auto json = fathom::run_program(json_args, "", {}, 120);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_NEAR(j["fit"]["b_crit"].get<double>(), 400, 1e-6);
  EXPECT_NEAR(j["fit"]["s_min"].get<double>(), 100, 1e-6);
  EXPECT_EQ(j["best"], (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(j["cells"][1]["updates"].get<double>(), 700.0);
  // One run a cell: every bootstrap draw is the table itself, the interval a point.
  EXPECT_NEAR(j["fit"]["b_crit_ci95"][0].get<double>(), 400, 1e-6);
  EXPECT_NEAR(j["fit"]["b_crit_ci95"][1].get<double>(), 400, 1e-6);
  EXPECT_TRUE(j["fit"]["ratio_ci95"][0].is_null());  // no B_simple
  EXPECT_EQ(j["fit"]["ratio_draws"], 0);
  EXPECT_EQ(j["fit"]["interval_df"], 0);  // one run a cell: no spread to expand for
  EXPECT_EQ(j["fit"]["best_kept"].get<double>(), 1.0);

  std::vector<std::string> missing = args;
  missing[12] = "model.norm";
  const auto refused = fathom::run_program(missing, "", {}, 120);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("--rows"), std::string::npos) << refused.err;
}

}  // namespace test_export_reach_cli
