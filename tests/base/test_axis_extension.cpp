// `fathom sweep extend --axis` (experiments/axis_extension.h): the next depth beyond the grid's
// end for each method whose best depth is there, its zip partners' values at that depth (the
// same depth for the decoder, a power law for an isoFLOP sweep's updates), and nothing for a
// method whose best depth the grid brackets -- against values worked by hand.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "base/util/error.h"
#include "db/store.h"
#include "experiments/axis_extension.h"
#include "experiments/sweep_spec.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/temp_dir.h"

namespace test_axis_extension {
using namespace fathom;
using namespace fathom::experiments;

TEST(StepBeyond, ContinuesTheRatioOfTheTwoStepsAtTheEnd) {
  EXPECT_EQ(*step_beyond({2, 4, 8}, true, true), 16);
  EXPECT_EQ(*step_beyond({2, 4, 8}, false, true), 1);
  EXPECT_EQ(*step_beyond({1, 2, 3, 4, 6, 8}, true, true), 11);  // 8 x 4/3 = 10.7
  EXPECT_EQ(*step_beyond({6, 12, 18}, true, true), 27);         // 18 x 1.5
  EXPECT_EQ(*step_beyond({10, 11}, true, true), 12);            // 12.1, at least one more
  EXPECT_FALSE(step_beyond({1, 2, 4}, false, true));            // nothing below 1
  EXPECT_DOUBLE_EQ(*step_beyond({0.5, 1}, false, false), 0.25);
}

// Post-LN and Pre-LN at 2, 4 and 8 layers (encoder and decoder alike), zipped with the updates
// an isoFLOP sweep gives them (400, 200, 100), two seeds. Post-LN's valid_loss falls to the
// deepest (2.0, 1.8, 1.6: best at the end); Pre-LN's is lowest at 4 (2.0, 1.5, 1.8).
class AxisExtend : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(dir() / "base.yaml")
        << fathom::testing::tiny_config_yaml("base", "{max_updates: 50}");
    store_sweep("", [](const std::string& norm, const std::string& layers, const std::string&) {
      const std::map<std::string, std::map<std::string, double>> loss = {
          {"post", {{"2", 2.0}, {"4", 1.8}, {"8", 1.6}}},
          {"pre", {{"2", 2.0}, {"4", 1.5}, {"8", 1.8}}}};
      return loss.at(norm).at(layers);
    });
  }

  // Writes iso.yaml -- `more_grid` (e.g. a rate's line) added to its grid -- and stores each
  // of its runs ended at loss(norm, layers, rate) -+ 0.01 by seed.
  void store_sweep(
      const std::string& more_grid,
      const std::function<double(const std::string&, const std::string&, const std::string&)>& loss,
      bool grid = true) {
    std::ofstream(file()) << "name: iso\n"
                             "base: base.yaml\n" +
                                 std::string(grid ? "grid:\n  model.norm: [post, pre]\n" : "") +
                                 more_grid +
                                 "zip:\n"
                                 "  - model.encoder_layers: [2, 4, 8]\n"
                                 "    model.decoder_layers: [2, 4, 8]\n"
                                 "    train.max_updates: " +
                                 updates_ +
                                 "\n"
                                 "seeds: [1, 2]\n";
    auto store = db::Store::open(db());
    for (const auto& run : expand_sweep(load_sweep_file(file()))) {
      std::map<std::string, std::string> axes;
      for (const auto& a : run.axes) axes[a.key] = a.value;
      db::NewRun n;
      n.name = run.name;
      n.sweep = "iso";
      const int64_t id = store.create_run(n);
      for (const auto& [key, value] : axes) store.set_tag(id, "axis." + key, value);
      const double v = loss(axes["model.norm"], axes["model.encoder_layers"], axes["train.lr"]) +
                       (axes["train.seed"] == "2" ? 0.01 : -0.01);
      store.write_metrics(id, {{50, "valid_loss", v, 0.0}});
      store.set_final_metric(id, "valid_loss", v);
      if (flops_per_update_) {  // trained: its updates and FLOPs
        const int64_t updates = std::stoll(axes["train.max_updates"]);
        store.heartbeat(id, updates);
        store.set_final_metric(id, "train_flops",
                               flops_per_update_(std::stoi(axes["model.encoder_layers"])) *
                                   static_cast<double>(updates));
      }
      store.finish_run(id, "finished");
    }
  }
  std::string updates_ = "[400, 200, 100]";      // the zip's max_updates
  std::function<double(int)> flops_per_update_;  // set: the runs' cost at L layers
  const std::filesystem::path& dir() const { return scratch_dir_; }
  std::string file() const { return (dir() / "iso.yaml").string(); }
  std::string db() const { return (dir() / "runs.db").string(); }
  AxisExtensionRequest request(const std::string& axis) const {
    AxisExtensionRequest r;
    r.sweep_file = file();
    r.axis = axis;
    r.reading = RunValue::Last;
    r.out_dir = dir().string();
    return r;
  }

  fathom::testing::TempDir scratch_;
  std::filesystem::path scratch_dir_ = scratch_.path();  // where the sweep and store are
};

// Post-LN's best is the deepest: one step beyond, 16 layers -- the decoder's the same, the
// updates by the power law through (4, 200) and (8, 100): 50. Pre-LN's best (4) is inside.
TEST_F(AxisExtend, TheNextDepthOfTheMethodWhoseBestIsAtTheEndWithItsZipPartners) {
  const auto store = db::Store::open(db(), db::OpenMode::ReadOnly);
  const auto x = plan_axis_extension(store, request("model.encoder_layers"));
  EXPECT_EQ(x.sweep, "iso");
  EXPECT_EQ(x.lines, 2u);
  ASSERT_EQ(x.closed.size(), 1u);
  EXPECT_EQ(x.closed[0].rfind("pre: best encoder_layers ", 0), 0u) << x.closed[0];
  ASSERT_EQ(x.open.size(), 1u);
  EXPECT_EQ(x.open[0].rfind("post: best at the grid's end, encoder_layers 8", 0), 0u) << x.open[0];
  ASSERT_EQ(x.file.extends.size(), 1u);
  EXPECT_EQ(x.file.extends[0], "post: 16 (above 8)");
  bool said = false;
  for (const auto& n : x.notes)
    said = said || n.find("train.max_updates 50 at model.encoder_layers 16: the power law") !=
                       std::string::npos;
  EXPECT_TRUE(said) << ::testing::PrintToString(x.notes);
  // The file: Post-LN at 16 layers, both seeds, in the sweep's layout (its name, its keys).
  std::set<std::tuple<std::string, std::string, std::string, std::string, std::string>> runs;
  for (const auto& run :
       expand_sweep(load_sweep_string(x.file.yaml, "extension", dir().string()))) {
    std::map<std::string, std::string> v;
    for (const auto& a : run.axes) v[a.key] = a.value;
    runs.insert({v["model.norm"], v["model.encoder_layers"], v["model.decoder_layers"],
                 v["train.max_updates"], v["train.seed"]});
    EXPECT_EQ(run.config.model.encoder_layers, 16);
    EXPECT_EQ(run.config.train.max_updates, 50);
  }
  const decltype(runs) expected = {{"post", "16", "16", "50", "1"},
                                   {"post", "16", "16", "50", "2"}};
  EXPECT_EQ(runs, expected);
  EXPECT_EQ(x.file.runs.size(), 2u);
  EXPECT_NE(x.text.find("--axis model.encoder_layers`"), std::string::npos) << x.text;
}

// Run again once the extension's runs (Post-LN at 16 layers, 50 updates) have ended, Post-LN
// still best at the new end: judged on the stored grid, 32 layers and 25 updates -- not the
// file's 16 again.
TEST_F(AxisExtend, AnExtensionsRunsMoveTheGridItIsJudgedOn) {
  {
    auto store = db::Store::open(db());
    for (int seed = 1; seed <= 2; ++seed) {
      db::NewRun n;
      n.name = "iso/16-" + std::to_string(seed);
      n.sweep = "iso";
      const int64_t id = store.create_run(n);
      for (const auto& [key, value] : {std::pair{"model.norm", "post"},
                                       {"model.encoder_layers", "16"},
                                       {"model.decoder_layers", "16"},
                                       {"train.max_updates", "50"}})
        store.set_tag(id, std::string("axis.") + key, value);
      store.set_tag(id, "axis.train.seed", std::to_string(seed));
      store.write_metrics(id, {{50, "valid_loss", 1.4 + 0.01 * seed, 0.0}});
      store.finish_run(id, "finished");
    }
  }
  const auto store = db::Store::open(db(), db::OpenMode::ReadOnly);
  const auto x = plan_axis_extension(store, request("model.encoder_layers"));
  ASSERT_EQ(x.file.extends.size(), 1u) << ::testing::PrintToString(x.notes);
  EXPECT_EQ(x.file.extends[0], "post: 32 (above 16)");
  for (const auto& run : expand_sweep(load_sweep_string(x.file.yaml, "extension", dir().string())))
    EXPECT_EQ(run.config.train.max_updates, 25);
}

// Pre-LN best at the shallowest instead: one step below, 1 layer, 800 updates; a method at 1
// layer already would get nothing below it, said in a note.
TEST_F(AxisExtend, BelowTheShallowestAndNothingBelowOne) {
  {
    auto store = db::Store::open(db());
    for (const auto& r : store.list_runs("iso")) {
      const auto tags = store.tags(r.id);
      if (tags.at("axis.model.norm") != "pre") continue;
      const double v = tags.at("axis.model.encoder_layers") == "2" ? 1.0 : 2.5;
      store.write_metrics(r.id, {{60, "valid_loss", v + (r.id % 2) * 0.01, 0.0}});
      store.set_final_metric(r.id, "valid_loss", v);
    }
  }
  const auto store = db::Store::open(db(), db::OpenMode::ReadOnly);
  const auto x = plan_axis_extension(store, request("model.encoder_layers"));
  ASSERT_EQ(x.file.extends.size(), 2u) << ::testing::PrintToString(x.notes);
  EXPECT_EQ(x.file.extends[0], "post: 16 (above 8)");
  EXPECT_EQ(x.file.extends[1], "pre: 1 (below 2)");
  std::set<std::pair<std::string, int>> runs;
  for (const auto& run : expand_sweep(load_sweep_string(x.file.yaml, "extension", dir().string())))
    runs.insert({run.config.model.norm, run.config.train.max_updates});
  const std::set<std::pair<std::string, int>> expected = {{"post", 50}, {"pre", 800}};
  EXPECT_EQ(runs, expected);  // the other combinations excluded
}

// A depth study tunes the rate at each depth: --lines model.norm --agg best reads each depth at
// its best rate (2e-3 for both norms, 0.3 better), and Post-LN, best at the deepest, gets 16
// layers at every rate, so that the new depth chooses its rate too.
TEST_F(AxisExtend, ADepthAtItsBestRateIsExtendedAtEveryRate) {
  const fathom::testing::TempDir other;
  scratch_dir_ = other.path();
  std::ofstream(dir() / "base.yaml")
      << fathom::testing::tiny_config_yaml("base", "{max_updates: 50}");
  store_sweep("  train.lr: [1e-3, 2e-3]\n",
              [](const std::string& norm, const std::string& layers, const std::string& lr) {
                const std::map<std::string, std::map<std::string, double>> loss = {
                    {"post", {{"2", 2.0}, {"4", 1.8}, {"8", 1.6}}},
                    {"pre", {{"2", 2.0}, {"4", 1.5}, {"8", 1.8}}}};
                return loss.at(norm).at(layers) + (lr == "1e-3" ? 0.3 : 0.0);
              });
  const auto store = db::Store::open(db(), db::OpenMode::ReadOnly);
  AxisExtensionRequest r = request("model.encoder_layers");
  r.lines = "model.norm";
  r.agg = CellAgg::Best;
  const auto x = plan_axis_extension(store, r);
  EXPECT_EQ(x.lines, 2u);
  ASSERT_EQ(x.closed.size(), 1u);
  const std::vector<std::string> extends = {"post, lr=1e-3: 16 (above 8)",
                                            "post, lr=2e-3: 16 (above 8)"};
  EXPECT_EQ(x.file.extends, extends);
  std::set<std::pair<std::string, double>> runs;
  for (const auto& run : expand_sweep(load_sweep_string(x.file.yaml, "extension", dir().string())))
    runs.insert({run.config.model.norm + "/" + std::to_string(run.config.model.encoder_layers),
                 run.config.train.lr});
  const std::set<std::pair<std::string, double>> expected = {{"post/16", 1e-3}, {"post/16", 2e-3}};
  EXPECT_EQ(runs, expected);
  EXPECT_EQ(x.file.runs.size(), 4u);  // two seeds each
  // A key the file does not sweep as the lines: refused, naming it.
  r.lines = "model.init";
  try {
    plan_axis_extension(store, r);
    FAIL() << "lines of an axis the file does not sweep";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--lines");
    EXPECT_NE(e.message().find("'model.init'"), std::string::npos) << e.what();
  }
}

// An isoFLOP sweep of depths alone -- a zip group, no grid -- is one line: its best depth (8,
// the lowest at every seed) extended to 16, a file with no grid: section. Its runs trained
// 1.8e12 FLOPs each at 1e9 + 2e9 L FLOPs an update (360, 200 and 106 updates): at 16 layers,
// 1.80067e12 / 33e9 = 54.6 -> 55 updates (the power law through the last two steps: 56).
TEST_F(AxisExtend, ASweepOfTheDepthsAloneIsOneLine) {
  const fathom::testing::TempDir other;
  scratch_dir_ = other.path();
  updates_ = "[360, 200, 106]";
  flops_per_update_ = [](int layers) { return 1e9 + 2e9 * layers; };
  std::ofstream(dir() / "base.yaml")
      << fathom::testing::tiny_config_yaml("base", "{max_updates: 50}");
  store_sweep(
      "",
      [](const std::string&, const std::string& layers, const std::string&) {
        return 3.0 - std::stod(layers) / 8;
      },
      /*grid=*/false);
  const auto store = db::Store::open(db(), db::OpenMode::ReadOnly);
  const auto x = plan_axis_extension(store, request("model.encoder_layers"));
  EXPECT_EQ(x.lines, 1u);
  ASSERT_EQ(x.file.extends.size(), 1u) << ::testing::PrintToString(x.notes);
  EXPECT_EQ(x.file.extends[0], "valid_loss: 16 (above 8)");
  EXPECT_EQ(x.file.yaml.find("grid:"), std::string::npos) << x.file.yaml;
  EXPECT_EQ(x.file.runs.size(), 2u);
  for (const auto& run : expand_sweep(load_sweep_string(x.file.yaml, "extension", dir().string())))
    EXPECT_EQ(run.config.train.max_updates, 55);
  bool said = false;
  for (const auto& n : x.notes)
    said = said ||
           n.find(
               "train.max_updates 55 at model.encoder_layers 16: the sweep's "
               "1.80067e+12 FLOPs over the 3.3e+10 an update costs there") != std::string::npos;
  EXPECT_TRUE(said) << ::testing::PrintToString(x.notes);
}

TEST_F(AxisExtend, AnAxisTheFileDoesNotSweepOrATestMetricIsRefused) {
  const auto store = db::Store::open(db(), db::OpenMode::ReadOnly);
  try {
    plan_axis_extension(store, request("model.d_model"));
    FAIL() << "an axis the file does not sweep was extended";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--axis");
    EXPECT_EQ(e.file(), file());
  }
  try {
    plan_axis_extension(store, request("model.norm"));
    FAIL() << "a categorical axis was extended";
  } catch (const InputError& e) {
    EXPECT_NE(e.message().find("not a number"), std::string::npos) << e.what();
  }
  AxisExtensionRequest test = request("model.encoder_layers");
  test.metric = "test_ppl";
  EXPECT_THROW(plan_axis_extension(store, test), InputError);
}

}  // namespace test_axis_extension
