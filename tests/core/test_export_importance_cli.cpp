// `fathom export importance` on a store as a sweep leaves it: the 2 x 2 grid of
// tests/base/test_hparam_importance.cpp (shares 2.25, 1 and 0.25 of 3.5, worked by hand there)
// read back through the store and the command's JSON, with its intervals; `--metric diverged`
// decomposes which runs diverged; runs computed on other kernels are noted; a metric no run has
// is refused.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/util/process.h"
#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/temp_dir.h"

namespace test_export_importance_cli {
using fathom::db::NewRun;
using fathom::db::Store;

class ExportImportance : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = Store::open(db());
    const std::vector<std::tuple<std::string, std::string, double>> cells = {
        {"post", "1e-3", 0}, {"pre", "1e-3", 2}, {"post", "2e-3", 1}, {"pre", "2e-3", 5}};
    for (const auto& [norm, lr, m] : cells)
      for (int seed : {1, 2}) {
        NewRun r;
        r.name = norm + "-" + lr + "-" + std::to_string(seed);
        r.sweep = "grid";
        const int64_t id = store.create_run(r);
        store.set_tag(id, "axis.model.norm", norm);
        store.set_tag(id, "axis.train.lr", lr);
        store.set_tag(id, "axis.train.seed", std::to_string(seed));
        store.set_final_metric(id, "valid_loss", m + (seed == 1 ? -0.5 : 0.5));
        // Post-LN at 2e-3, seed 2, diverged: its loss is no final value.
        store.finish_run(id, norm == "post" && lr == "2e-3" && seed == 2 ? "diverged" : "finished");
      }
  }
  std::string db() const { return (dir_.path() / "runs.db").string(); }
  fathom::ProgramResult fathom_json(const std::vector<std::string>& args) {
    std::vector<std::string> argv{fathom::testing::built_fathom_binary().string(),
                                  "--db",
                                  db(),
                                  "--json",
                                  "export",
                                  "importance",
                                  "--sweep",
                                  "grid"};
    argv.insert(argv.end(), args.begin(), args.end());
    return fathom::run_program(argv);
  }
  fathom::testing::TempDir dir_;
};

double share(const nlohmann::json& j, const std::vector<std::string>& axes) {
  for (const auto& t : j["terms"])
    if (t["axes"].get<std::vector<std::string>>() == axes) return t["share"].get<double>();
  ADD_FAILURE() << "no term";
  return -1;
}

TEST_F(ExportImportance, TheStoredGridDecomposesAsWorkedByHand) {
  const auto r = fathom_json({});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  // The diverged seed leaves (post, 2e-3) with seed 1's 0.5: cells 0, 2, 0.5, 5 -> mu 1.875;
  // f_norm = -+1.625 (V 2.640625), f_lr = -+0.875 (V 0.765625), interaction +-0.625
  // (V 0.390625); V = 3.796875.
  EXPECT_NEAR(j["total_variance"].get<double>(), 3.796875, 1e-12);
  EXPECT_NEAR(share(j, {"model.norm"}), 2.640625 / 3.796875, 1e-12);
  EXPECT_NEAR(share(j, {"train.lr"}), 0.765625 / 3.796875, 1e-12);
  EXPECT_NEAR(share(j, {"model.norm", "train.lr"}), 0.390625 / 3.796875, 1e-12);
  EXPECT_EQ(j["runs"].get<int>(), 7);
  EXPECT_EQ(j["filled_settings"].get<int>(), 0);  // a full grid: nothing predicted
  // Seeds to resample: each share has an interval, [lo, hi] with lo <= hi.
  EXPECT_EQ(j["interval_draws"].get<int>(), 200);
  for (const auto& term : j["terms"]) {
    ASSERT_EQ(term["share_ci95"].size(), 2u) << term.dump();
    EXPECT_LE(term["share_ci95"][0].get<double>(), term["share_ci95"][1].get<double>());
  }
  EXPECT_TRUE(j["fit_r_squared"].is_null());
  EXPECT_NE(j["notes"].dump().find("1 runs without"), std::string::npos) << j["notes"].dump();
}

TEST_F(ExportImportance, DivergenceDecomposesToo) {
  const auto r = fathom_json({"--metric", "diverged"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  // Cells 0, 0, 0.5 (post, 2e-3), 0: mu 0.125; each main effect -+0.125 and the interaction
  // +-0.125 -> V_S = 1/64 each, V = 3/64: a third each.
  EXPECT_NEAR(j["total_variance"].get<double>(), 3.0 / 64, 1e-12);
  EXPECT_NEAR(share(j, {"model.norm"}), 1.0 / 3, 1e-12);
  EXPECT_NEAR(share(j, {"model.norm", "train.lr"}), 1.0 / 3, 1e-12);
}

// Runs computed on other OpenBLAS kernels (tag blas.core): the notes say which, as tables do.
TEST_F(ExportImportance, RunsComputedDifferentlyAreNoted) {
  const auto alike = nlohmann::json::parse(fathom_json({}).out);
  EXPECT_EQ(alike["notes"].dump().find("computed differently"), std::string::npos);
  Store::open(db()).set_tag(8, "blas.core", "Haswell");
  const auto r = fathom_json({});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string notes = nlohmann::json::parse(r.out)["notes"].dump();
  EXPECT_NE(notes.find("blas.core: not recorded (#1-#7), Haswell (#8)"), std::string::npos)
      << notes;
}

// `fathom report` of the sweep has the section, and its figure where the build draws figures:
// a PNG beside report.md (its signature checked), named in the text.
TEST_F(ExportImportance, TheSweepReportSaysWhichAxesMatter) {
  const std::string out = (dir_.path() / "report").string();
  const auto r = fathom::run_program({fathom::testing::built_fathom_binary().string(), "--db", db(),
                                      "report", "grid", "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = fathom::testing::read_text(dir_.path() / "report" / "report.md");
  EXPECT_NE(text.find("## Which axes matter"), std::string::npos) << text;
  EXPECT_NE(text.find("| model.norm |"), std::string::npos) << text;
  if (text.find("(figures need a build with Qt)") != std::string::npos) return;
  EXPECT_NE(text.find("![which axes matter](importance.png)"), std::string::npos) << text;
  const std::string png = fathom::testing::read_text(dir_.path() / "report" / "importance.png");
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
}

TEST_F(ExportImportance, AMetricNoRunHasIsRefused) {
  const auto r = fathom_json({"--metric", "test_bleu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'--metric': no run of the sweep has a value of test_bleu"),
            std::string::npos)
      << r.err;
}

}  // namespace test_export_importance_cli
