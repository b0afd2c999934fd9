// Every computed analysis (analysis/, LibTorch) has its kind outside the training core
// (plot/analysis_kinds.h: figures, tables, the desktop app's list), and no kind lacks a
// computation: the two registrations of an analysis cannot drift apart.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <variant>

#include "analysis/params.h"
#include "analysis/registry.h"
#include "base/config/normalization.h"
#include "core/model/registry.h"
#ifdef FATHOM_HAVE_PLOTS
#include "base/util/error.h"
#include "plot/analysis_kinds.h"
#endif

namespace test_analysis_kinds {

using fathom::analysis::AnalysisParams;

// Every flag an analysis reads is declared, and every declared flag is read by some analysis.
TEST(AnalysisOptions, EachFlagIsDeclaredOnceAndRead) {
  std::set<std::string> read, declared;
  for (const auto& [name, analysis] : fathom::analysis::analyses())
    for (const auto& flag : analysis.options) {
      EXPECT_NO_THROW(fathom::analysis::find_analysis_option(flag)) << name << " --" << flag;
      read.insert(flag);
    }
  for (const auto& o : fathom::analysis::analysis_options()) {
    EXPECT_TRUE(declared.insert(o.flag).second) << "declared twice: " << o.flag;
    EXPECT_FALSE(o.help.empty()) << o.flag;
  }
  EXPECT_EQ(read, declared);
  EXPECT_THROW(fathom::analysis::find_analysis_option("depth"), std::logic_error);
}

// The recorded parameters keep their stored layout (docs/analyses.md): one key per field, and
// each option's key carries the value its field holds.
TEST(AnalysisOptions, RecordedParametersFollowTheFields) {
  AnalysisParams p;
  p.depths = {1, 4};
  p.perturb = "update";
  p.draws = 5;
  p.inits = 2;
  p.eps = 0.25;
  p.layers = "enc:2";
  p.objective = "mse";
  p.lstm_map = "output";
  p.steps = 7;
  p.lr = 0.5;
  p.eval_every = 11;
  p.patience = 4;
  p.sample_batches = 3;
  p.iterations = 9;
  p.lanczos_steps = 12;
  p.sentences = 0;
  p.batches = 6;
  p.batching = "run";
  p.device = "cuda:1";
  const nlohmann::json expected = {
      {"depths", {1, 4}},     {"perturb", "update"}, {"inputs", "fixed"}, {"draws", 5},
      {"inits", 2},           {"eps", 0.25},         {"layers", "enc:2"}, {"objective", "mse"},
      {"lstm_map", "output"}, {"steps", 7},          {"lr", 0.5},         {"eval_every", 11},
      {"patience", 4},        {"sample_batches", 3}, {"iterations", 9},   {"device", "cuda:1"},
      {"lanczos_steps", 12},  {"sentences", 0},      {"batches", 6},      {"batching", "run"}};
  EXPECT_EQ(p.to_json(), expected);
  EXPECT_EQ(fathom::analysis::option_key("eval-every"), "eval_every");
}

#ifdef FATHOM_HAVE_PLOTS
TEST(AnalysisKinds, MatchTheComputedAnalyses) {
  std::set<std::string> computed, kinds;
  for (const auto& [name, analysis] : fathom::analysis::analyses()) computed.insert(name);
  for (const auto& kind : fathom::plot::analysis_kinds()) {
    kinds.insert(kind.name);
    const auto& analysis = fathom::analysis::find_analysis(kind.name);
    EXPECT_EQ(kind.builds_own_models, analysis.takes_many_configs) << kind.name;
    EXPECT_TRUE(kind.figures) << kind.name;
  }
  EXPECT_EQ(kinds, computed);
  EXPECT_THROW(fathom::plot::find_analysis_kind("betta", "x"), fathom::InputError);
}

// A style whose norms are no LayerNorm names its own scales once (base/config/normalization.h):
// ln-scale lists them under its key and the kind's table reads them by the same words, with no
// style named in either. The DyT words are written out by hand.
TEST(AnalysisKinds, LnScaleTabulatesANormsOwnScalesByItsTraits) {
  const fathom::NormalizationTraits& dyt =
      fathom::methods().sublayer_styles.find("dyt")->normalization;
  EXPECT_FALSE(dyt.is_layer_norm);
  EXPECT_EQ(dyt.name, "DyT");
  EXPECT_EQ(dyt.scales_key(), "dyt");
  EXPECT_EQ(dyt.scale_name, "alpha");
  const auto tables =
      fathom::plot::find_analysis_kind("ln-scale", "x")
          .tables(nlohmann::json::parse(
              R"({"norms": [], "dyt": [{"name": "enc.final_norm", "alpha": 0.5}]})"));
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].header, (std::vector<std::string>{"DyT", "alpha"}));
  ASSERT_EQ(tables[0].rows.size(), 1u);
  EXPECT_EQ(tables[0].rows[0][0], "enc.final_norm");
  // Every registered style that is no LayerNorm has its traits where plot/ can read them.
  for (const auto& [name, style] : fathom::methods().sublayer_styles)
    if (!style.normalization.is_layer_norm) {
      EXPECT_EQ(fathom::scale_normalization(style.normalization.name).scale_kind,
                style.normalization.scale_kind)
          << name;
    }
  EXPECT_THROW(fathom::scale_normalization("RMSNorm"), std::logic_error);
}
#else
TEST(AnalysisKinds, MatchTheComputedAnalyses) {
  GTEST_SKIP() << "fathom_plot is not built (no Qt 6): analysis kinds are not compiled";
}
#endif

}  // namespace test_analysis_kinds
