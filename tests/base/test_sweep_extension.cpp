// The sweep file `fathom sweep extend` writes (experiments/sweep_extension.h): exactly the open
// curves' next rates with the sweep's seeds, in the original's layout (grid keys, zip group,
// run names), a relative base path still pointing at the same config from another folder, and
// what it cannot place said instead of guessed.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "base/util/error.h"
#include "experiments/sweep_extension.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/temp_dir.h"

namespace test_sweep_extension {
using namespace fathom;
using namespace fathom::experiments;
namespace fs = std::filesystem;

// A config file needing no corpus (the synthetic task) and a sweep over it: rate x depth x a
// zip group whose init is the same in every step (so no curve names it), two seeds.
class SweepExtension : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(dir_ / "base.yaml")
        << fathom::testing::tiny_config_yaml("base", "{max_updates: 50}");
    std::ofstream(sweep_file()) << "name: s\n"
                                   "base: base.yaml\n"
                                   "set:\n"
                                   "  train.warmup: 10\n"
                                   "grid:\n"
                                   "  train.lr: [1e-3, 2e-3, 4e-3]\n"
                                   "  model.encoder_layers: [2, 4]\n"
                                   "zip:\n"
                                   "  - model.norm: [post, pre]\n"
                                   "    model.init: [xavier, xavier]\n"
                                   "seeds: [1, 2]\n";
  }
  std::string sweep_file() const { return (dir_ / "s.yaml").string(); }

  static OpenEdge edge(const std::string& layers, const std::string& norm, const std::string& next,
                       bool above, double best = 4e-3) {
    OpenEdge e;
    e.best_lr = best;
    e.label = "encoder_layers=" + layers + ", norm=" + norm;
    e.setting = {{"model.encoder_layers", layers}, {"model.norm", norm}};
    e.next_text = next;
    e.above = above;
    return e;
  }

  // Each run of `yaml` (read from `folder`) as (rate, layers, norm, init, seed).
  static std::set<std::tuple<std::string, std::string, std::string, std::string, std::string>>
  combinations(const std::string& yaml, const std::string& folder) {
    std::set<std::tuple<std::string, std::string, std::string, std::string, std::string>> out;
    for (const auto& run : expand_sweep(load_sweep_string(yaml, "extension", folder))) {
      std::map<std::string, std::string> v;
      for (const auto& a : run.axes) v[a.key] = a.value;
      out.insert({v["train.lr"], v["model.encoder_layers"], v["model.norm"], v["model.init"],
                  v["train.seed"]});
    }
    return out;
  }

  fathom::testing::TempDir scratch_;
  const fs::path& dir_ = scratch_.path();
};

TEST_F(SweepExtension, OnlyTheOpenCurvesNextRatesWithTheSweepsSeedsInItsLayout) {
  const SweepSpec spec = load_sweep_file(sweep_file());
  const auto x =
      extend_sweep(sweep_file(), spec,
                   {edge("4", "post", "0.008", true), edge("2", "pre", "0.0005", false, 1e-3)},
                   dir_.string(), "s");
  EXPECT_TRUE(x.notes.empty());
  EXPECT_EQ(x.extends,
            (std::vector<std::string>{"encoder_layers=4, norm=post: 0.008 (above 0.004)",
                                      "encoder_layers=2, norm=pre: 0.0005 (below 0.001)"}));
  using C = std::tuple<std::string, std::string, std::string, std::string, std::string>;
  EXPECT_EQ(combinations(x.yaml, dir_.string()),
            (std::set<C>{{"0.008", "4", "post", "xavier", "1"},
                         {"0.008", "4", "post", "xavier", "2"},
                         {"0.0005", "2", "pre", "xavier", "1"},
                         {"0.0005", "2", "pre", "xavier", "2"}}))
      << x.yaml;
  EXPECT_EQ(x.runs.size(), 4u);
  // The original's layout: the same grid keys in order, the zip group whole, the seeds axis --
  // so runs are named as the sweep's own are, and the tables see the same axes.
  const SweepSpec again = load_sweep_string(x.yaml, "extension", dir_.string());
  EXPECT_EQ(again.name, "s");
  ASSERT_EQ(again.axes.size(), 4u);
  EXPECT_EQ(again.axes[0].keys, std::vector<std::string>{"train.lr"});
  EXPECT_EQ(again.axes[1].keys, std::vector<std::string>{"model.encoder_layers"});
  EXPECT_EQ(again.axes[2].keys, (std::vector<std::string>{"model.norm", "model.init"}));
  EXPECT_EQ(again.axes[3].kind, SweepAxis::Kind::Seeds);
  EXPECT_EQ(again.base.train.warmup, 10);  // set: kept
  // Named as the original's runs are: its run at 4e-3 with the rate's text replaced.
  std::string original_name;
  for (const auto& run : expand_sweep(spec))
    if (run.name.find("lr=4e-3,encoder_layers=4,norm=post") != std::string::npos &&
        run.name.find("seed=1") != std::string::npos)
      original_name = run.name;
  ASSERT_FALSE(original_name.empty());
  const std::string expected =
      original_name.replace(original_name.find("4e-3"), std::string("4e-3").size(), "0.008");
  EXPECT_NE(std::find(x.runs.begin(), x.runs.end(), expected), x.runs.end()) << expected;
}

TEST_F(SweepExtension, ARelativeBaseStillNamesTheSameConfigFromAnotherFolder) {
  const fs::path elsewhere = dir_ / "edges";
  fs::create_directories(elsewhere);
  const auto x = extend_sweep(sweep_file(), load_sweep_file(sweep_file()),
                              {edge("2", "post", "0.008", true)}, elsewhere.string(), "s");
  EXPECT_NE(x.yaml.find("base: ../base.yaml"), std::string::npos) << x.yaml;
  EXPECT_EQ(combinations(x.yaml, elsewhere.string()).size(), 2u);  // two seeds
}

TEST_F(SweepExtension, ACurveTheFileCannotPlaceIsSaidNotGuessed) {
  const auto x = extend_sweep(sweep_file(), load_sweep_file(sweep_file()),
                              {edge("2", "sideways", "0.008", true)}, dir_.string(), "s");
  EXPECT_TRUE(x.yaml.empty());
  EXPECT_TRUE(x.runs.empty());
  ASSERT_EQ(x.notes.size(), 1u);
  EXPECT_NE(x.notes[0].find("model.norm = sideways is not among the file's values"),
            std::string::npos)
      << x.notes[0];
}

TEST_F(SweepExtension, TheRateMustBeAGridKeyOfTheFile) {
  std::ofstream(sweep_file()) << "name: s\n"
                                 "base: base.yaml\n"
                                 "zip:\n"
                                 "  train.lr: [1e-3, 2e-3]\n"
                                 "  model.encoder_layers: [2, 4]\n";
  try {
    extend_sweep(sweep_file(), load_sweep_file(sweep_file()), {edge("2", "post", "0.004", true)},
                 dir_.string(), "s");
    FAIL() << "extended a rate inside a zip group";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--axis");
    EXPECT_NE(e.message().find("not a grid key"), std::string::npos) << e.message();
  }
}

}  // namespace test_sweep_extension
