// Converters from `fathom analyze` results to figures.
#include <gtest/gtest.h>

#include <cmath>

#include "base/util/error.h"
#include "plot/analysis_figures.h"
#include "plot/analysis_kinds.h"

using namespace fathom::plot;
using json = nlohmann::json;

namespace test_analysis_figures {

TEST(AnalysisFigures, BetaMasksBranchesAfterEachRowsOwn) {
  const json result = json::parse(R"({
    "encoder": {"labels": ["enc.embed", "enc.0.self_attn", "enc.0.ffn"],
                "rows": ["enc.0.self_attn", "enc.0.ffn"],
                "beta": [[0.6, 0.8, 0], [0.5, 0.5, 0.7]],
                "final": {"label": "enc.final_norm", "beta": [0.3, 0.4, 0.86]}},
    "decoder": null})");
  const auto figures = analysis_figures(result, "beta", "beta.json");
  ASSERT_EQ(figures.size(), 1u);
  EXPECT_EQ(figures[0].first, "encoder");
  const auto& h = std::get<Heatmap>(figures[0].second);
  ASSERT_EQ(h.values.size(), 3u);
  EXPECT_EQ(h.row_labels[2], "enc.final_norm");
  EXPECT_TRUE(std::isnan(h.values[0][2]));  // self_attn cannot read the later ffn
  EXPECT_EQ(h.values[0][1], 0.8);           // its own branch is shown
  EXPECT_EQ(h.values[2][2], 0.86);          // the final norm reads every branch
}

// Each row's sum of squares is shown beside it (results stored before it existed have none).
TEST(AnalysisFigures, BetaRowLabelsCarryTheRowsSumOfSquares) {
  const json result = json::parse(R"({
    "encoder": {"labels": ["enc.embed", "enc.0.self_attn", "enc.0.ffn"],
                "rows": ["enc.0.self_attn", "enc.0.ffn"],
                "beta": [[0.6, 0.8, 0], [0.5, 0.5, 0.7]], "sum_sq": [1.0, 0.99],
                "final": {"label": "enc.final_norm", "beta": [0.3, 0.4, 0.86], "sum_sq": 0.9896}},
    "decoder": null})");
  const auto figures = analysis_figures(result, "beta", "beta.json");
  const auto& h = std::get<Heatmap>(figures.at(0).second);
  ASSERT_EQ(h.row_labels.size(), 3u);
  EXPECT_EQ(h.row_labels[0], "enc.0.self_attn  (\u03a3\u03b2\u00b2 1.00)");
  EXPECT_EQ(h.row_labels[1], "enc.0.ffn  (\u03a3\u03b2\u00b2 0.99)");
  EXPECT_EQ(h.row_labels[2], "enc.final_norm  (\u03a3\u03b2\u00b2 0.99)");
  EXPECT_TRUE(std::isnan(h.values[0][2]));  // masking used the bare labels
}

TEST(AnalysisFigures, OutputShiftDrawsTheBetterFit) {
  const json result = json::parse(R"({"configs": [{"name": "postln-6", "label": "Post-LN",
    "depths": [6, 12, 18], "shift": [1, 2, 3],
    "linear": {"a": 0.1667, "b": 0, "r2": 0.99}, "log": {"a": 1, "b": 0, "r2": 0.9}}]})");
  const LineFigure f = output_shift_figure(result, "shift.json");
  ASSERT_EQ(f.series.size(), 2u);
  // One legend entry per config, named after the config and its better fit.
  EXPECT_EQ(f.series[0].name, "postln-6 (linear fit, R\u00b2 = 0.990)");
  EXPECT_EQ(f.series[1].fit_of, f.series[0].name);
  EXPECT_EQ(f.series[1].name, "");  // not listed in the legend
  EXPECT_NEAR(f.series[1].y.back(), 0.1667 * 18, 1e-9);
}

// Configs with one name (e.g. all "depth") are told apart by their labels.
TEST(AnalysisFigures, OutputShiftFallsBackToLabelsWhenNamesRepeat) {
  const json result = json::parse(R"({"configs": [
    {"name": "depth", "label": "a.yaml", "depths": [1, 2], "shift": [1, 2]},
    {"name": "depth", "label": "b.yaml", "depths": [1, 2], "shift": [1, 3]}]})");
  const LineFigure f = output_shift_figure(result, "shift.json");
  ASSERT_EQ(f.series.size(), 2u);
  EXPECT_EQ(f.series[0].name, "a.yaml");
  EXPECT_EQ(f.series[1].name, "b.yaml");
}

TEST(AnalysisFigures, GradNormsAreGroupedLogBars) {
  const json result = json::parse(
      R"({"labels": ["a", "b", "c"], "groups": {"enc_attn": [1, 0.5], "enc_ffn": [0.25]}})");
  const BarFigure f = grad_norms_figure(result, "g.json");
  EXPECT_EQ(f.groups, (std::vector<std::string>{"1", "2"}));
  ASSERT_EQ(f.series.size(), 2u);
  EXPECT_TRUE(std::isnan(f.series[1].values[1]));  // padded
  EXPECT_EQ(f.y.scale, Scale::Log);
}

TEST(AnalysisFigures, LinearizeIsTwoBarsPerLayer) {
  const json result = json::parse(R"({"layers": [
      {"layer": "enc.1", "ppl_change_pct": 6.4, "bleu_change_pct": -2.9},
      {"layer": "dec.2", "ppl_change_pct": 1.5, "bleu_change_pct": null}]})");
  const BarFigure f = linearize_figure(result, "l.json");
  EXPECT_EQ(f.groups, (std::vector<std::string>{"enc.1", "dec.2"}));
  ASSERT_EQ(f.series.size(), 2u);
  EXPECT_DOUBLE_EQ(f.series[0].values[0], 6.4);
  EXPECT_DOUBLE_EQ(f.series[1].values[0], -2.9);
  EXPECT_TRUE(std::isnan(f.series[1].values[1]));
}

// With a control (the layer kept, the same training) its BLEU change is a third bar.
TEST(AnalysisFigures, LinearizeShowsTheControlBesideTheChange) {
  const json result = json::parse(R"({"layers": [
      {"layer": "enc.1", "ppl_change_pct": 6.4, "bleu_change_pct": -2.9,
       "control": {"bleu_change_pct": 1.5}},
      {"layer": "dec.2", "ppl_change_pct": 1.5, "bleu_change_pct": 0.4,
       "control": {"bleu_change_pct": null}}]})");
  const BarFigure f = linearize_figure(result, "l.json");
  ASSERT_EQ(f.series.size(), 3u);
  EXPECT_DOUBLE_EQ(f.series[2].values[0], 1.5);
  EXPECT_TRUE(std::isnan(f.series[2].values[1]));
  EXPECT_NE(f.series[2].name.find("control"), std::string::npos);
}

// A language model (no BLEU): the perplexity change and the control's perplexity change.
TEST(AnalysisFigures, LinearizeOfALanguageModelComparesPerplexities) {
  const json result = json::parse(R"({"arch": "decoder_only", "layers": [
      {"layer": "dec.1", "ppl_change_pct": 6.4, "bleu_change_pct": null,
       "control": {"ppl_change_pct": -1.5, "bleu_change_pct": null}}]})");
  const BarFigure f = linearize_figure(result, "l.json");
  ASSERT_EQ(f.series.size(), 2u);
  EXPECT_DOUBLE_EQ(f.series[0].values[0], 6.4);
  EXPECT_DOUBLE_EQ(f.series[1].values[0], -1.5);
  for (const auto& s : f.series) EXPECT_EQ(s.name.find("BLEU"), std::string::npos) << s.name;
}

// Layer skip: a bar per layer of the loss change; a non-finite change (null) is a gap; the table
// starts with the full model.
TEST(AnalysisFigures, LayerSkipDrawsTheLossChangePerLayer) {
  const json result = json::parse(R"({"tokens": 70, "full": {"valid_nll": 1.5, "valid_ppl": 4.48},
      "layers": [{"layer": "enc.1", "nll_change": 0.25, "valid_nll": 1.75},
                 {"layer": "dec.1", "nll_change": null, "valid_nll": null}]})");
  const auto figures = analysis_figures(result, "layer-skip", "s.json");
  ASSERT_EQ(figures.size(), 1u);
  const auto& bars = std::get<BarFigure>(figures[0].second);
  EXPECT_EQ(bars.groups, (std::vector<std::string>{"enc.1", "dec.1"}));
  EXPECT_DOUBLE_EQ(bars.series.at(0).values[0], 0.25);
  EXPECT_TRUE(std::isnan(bars.series.at(0).values[1]));
  const auto tables = find_analysis_kind("layer-skip", "s.json").tables(result);
  ASSERT_EQ(tables.size(), 1u);
  ASSERT_EQ(tables[0].rows.size(), 3u);
  EXPECT_EQ(tables[0].rows[1][0], "enc.1");
  EXPECT_EQ(tables[0].rows[1][2], "0.25");
  EXPECT_THROW(layer_skip_figure(json::parse(R"({"layers": []})"), "s.json"), fathom::InputError);
}

// Sharpness: the largest Ritz value per Lanczos step, x from 1; the table has both extremes
// with their residuals; a result without steps names the field.
TEST(AnalysisFigures, SharpnessDrawsTheRitzValuePerStep) {
  const json result = json::parse(R"({"sharpness": 12.5, "residual": 0.01, "smallest": -3.25,
      "smallest_residual": 0.5, "iterations": 3, "ritz": [4.0, 11.0, 12.5], "converged": true,
      "sentences": 8, "target_tokens": 40})");
  const auto figures = analysis_figures(result, "sharpness", "s.json");
  ASSERT_EQ(figures.size(), 1u);
  const auto& line = std::get<LineFigure>(figures[0].second);
  ASSERT_EQ(line.series.size(), 1u);
  EXPECT_EQ(line.series[0].x, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(line.series[0].y, (std::vector<double>{4.0, 11.0, 12.5}));
  const auto& kind = find_analysis_kind("sharpness", "s.json");
  const auto tables = kind.tables(result);
  ASSERT_EQ(tables.size(), 1u);
  ASSERT_EQ(tables[0].rows.size(), 2u);
  EXPECT_EQ(tables[0].rows[0][1], "12.5");
  EXPECT_EQ(tables[0].rows[1][1], "-3.25");
  EXPECT_NE(kind.caption(result).find("lambda_max converged after 3 Lanczos steps"),
            std::string::npos);
  try {
    sharpness_figure(json::parse(R"({"sharpness": 1.0, "ritz": []})"), "s.json");
    FAIL();
  } catch (const fathom::InputError& e) {
    EXPECT_EQ(e.field(), "ritz");
  }
}

// Rank collapse: a line per stack at depth in layers -- the input at 0, an encoder layer's two
// sub-layers at l + 1/2 and l + 1, a decoder layer's three at thirds, a depth-wise LSTM step at
// l + 1 -- so the stacks line up layer by layer; its table lists every position; a position list
// that does not match the values names the field.
TEST(AnalysisFigures, RankCollapseDrawsEachStackAgainstDepthInLayers) {
  const json result = json::parse(R"({"sentences": 5, "stacks": [
      {"stack": "encoder", "positions": ["enc.input", "enc.0.self_attn", "enc.0.ffn",
                                         "enc.1.self_attn", "enc.1.ffn"],
       "token_cosine": [0.25, 0.3, 0.35, 0.5, 0.75]},
      {"stack": "decoder", "positions": ["dec.input", "dec.0.self_attn", "dec.0.enc_attn",
                                         "dec.0.ffn"],
       "token_cosine": [0.25, 0.5, 0.625, 1.0]},
      {"stack": "lstm", "positions": ["enc.input", "enc.0.lstm", "enc.1.lstm"],
       "token_cosine": [0.1, 0.2, 0.3]}]})");
  const auto figures = analysis_figures(result, "rank-collapse", "r.json");
  ASSERT_EQ(figures.size(), 1u);
  const auto& line = std::get<LineFigure>(figures[0].second);
  ASSERT_EQ(line.series.size(), 3u);
  EXPECT_EQ(line.series[0].name, "encoder");
  EXPECT_EQ(line.series[0].x, (std::vector<double>{0, 0.5, 1, 1.5, 2}));
  EXPECT_EQ(line.series[0].y, (std::vector<double>{0.25, 0.3, 0.35, 0.5, 0.75}));
  ASSERT_EQ(line.series[1].x.size(), 4u);
  EXPECT_DOUBLE_EQ(line.series[1].x[1], 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(line.series[1].x[2], 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(line.series[1].x[3], 1.0);
  EXPECT_EQ(line.series[2].x, (std::vector<double>{0, 1, 2}));
  const auto tables = find_analysis_kind("rank-collapse", "r.json").tables(result);
  ASSERT_EQ(tables.size(), 1u);
  ASSERT_EQ(tables[0].rows.size(), 12u);
  EXPECT_EQ(tables[0].rows[8], (std::vector<std::string>{"dec.0.ffn", "1"}));
  // With the attentions' gradients: a second figure, |dW_Q| / |dW_V| per kind of attention at
  // the same depths, and a second table.
  json with = result;
  with["attention"] = json::parse(R"([
      {"sublayer": "enc.0.self_attn", "grad_q": 0.5, "grad_k": 0.5, "grad_v": 2.0},
      {"sublayer": "enc.1.self_attn", "grad_q": 0.01, "grad_k": 0.02, "grad_v": 1.0},
      {"sublayer": "dec.0.self_attn", "grad_q": 0.3, "grad_k": 0.3, "grad_v": 3.0},
      {"sublayer": "dec.0.enc_attn", "grad_q": 1.0, "grad_k": 1.0, "grad_v": 0.0},
      {"sublayer": "dec.9.self_attn", "grad_q": null, "grad_k": null, "grad_v": null}])");
  const auto both = analysis_figures(with, "rank-collapse", "r.json");
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[1].first, "gradients");
  const auto& ratio = std::get<LineFigure>(both[1].second);
  EXPECT_EQ(ratio.y.scale, Scale::Log);
  ASSERT_EQ(ratio.series.size(), 3u);
  EXPECT_EQ(ratio.series[0].name, "enc self_attn");
  EXPECT_EQ(ratio.series[0].x, (std::vector<double>{0.5, 1.5}));
  EXPECT_EQ(ratio.series[0].y, (std::vector<double>{0.25, 0.01}));
  EXPECT_EQ(ratio.series[1].name, "dec self_attn");
  EXPECT_DOUBLE_EQ(ratio.series[1].x[0], 1.0 / 3.0);
  EXPECT_EQ(ratio.series[2].name, "dec enc_attn");
  EXPECT_TRUE(std::isnan(ratio.series[2].y[0]));  // no value gradient: no ratio
  const auto both_tables = find_analysis_kind("rank-collapse", "r.json").tables(with);
  ASSERT_EQ(both_tables.size(), 2u);
  EXPECT_EQ(both_tables[1].rows[1],
            (std::vector<std::string>{"enc.1.self_attn", "0.01", "0.02", "1", "0.01"}));
  // A diverged model's gradients are null in the JSON: dashes, not an error.
  EXPECT_EQ(both_tables[1].rows[4],
            (std::vector<std::string>{"dec.9.self_attn", "-", "-", "-", "-"}));
  try {
    rank_collapse_figure(json::parse(R"({"stacks": [{"stack": "encoder",
        "positions": ["enc.input"], "token_cosine": [0.2, 0.3]}]})"),
                         "r.json");
    FAIL();
  } catch (const fathom::InputError& e) {
    EXPECT_EQ(e.field(), "stacks[0].positions");
  }
}

// noise-scale: a line per stack at layers 1.., its interval's ends dashed in its colour (an
// interval open above has no upper end to draw), the update's size flat across; the table
// writes an open end as inf and a group without gradient as "-".
TEST(AnalysisFigures, NoiseScaleDrawsEachStacksLayersWithTheirIntervals) {
  const json result = json::parse(R"({
    "batches": 4, "tokens_per_batch": 500, "update_tokens": 500,
    "model": {"b_simple": 120, "b_low": 80, "b_high": 200, "grad_sq": 2, "trace": 240,
              "resolved": true},
    "layers": [
      {"group": "enc.0", "stack": "enc", "layer": 0, "b_simple": 100, "b_low": 60,
       "b_high": 180, "grad_sq": 1, "trace": 100, "resolved": true},
      {"group": "enc.1", "stack": "enc", "layer": 1, "b_simple": 300, "b_low": 90,
       "b_high": null, "grad_sq": 0.1, "trace": 30, "resolved": false},
      {"group": "dec.0", "stack": "dec", "layer": 0, "b_simple": null, "b_low": null,
       "b_high": null, "grad_sq": 0, "trace": 0, "resolved": false}],
    "blocks": []})");
  const auto figures = analysis_figures(result, "noise-scale", "ns.json");
  ASSERT_EQ(figures.size(), 1u);
  const auto& fig = std::get<LineFigure>(figures[0].second);
  ASSERT_EQ(fig.series.size(), 7u);  // encoder, its two ends; decoder, its two; the update
  EXPECT_EQ(fig.series[0].name, "encoder");
  EXPECT_EQ(fig.series[0].x, (std::vector<double>{1, 2}));
  EXPECT_EQ(fig.series[0].y, (std::vector<double>{100, 300}));
  EXPECT_EQ(fig.series[1].fit_of, "encoder");
  EXPECT_EQ(fig.series[1].y, (std::vector<double>{60, 90}));
  EXPECT_EQ(fig.series[2].y[0], 180);
  EXPECT_TRUE(std::isnan(fig.series[2].y[1]));  // open above
  EXPECT_TRUE(std::isnan(fig.series[3].y[0]));  // no gradient: no noise scale
  EXPECT_EQ(fig.series[6].y, (std::vector<double>{500, 500}));
  EXPECT_EQ(fig.series[6].x, (std::vector<double>{1, 2}));
  EXPECT_EQ(fig.y.scale, Scale::Log);
  const auto tables = find_analysis_kind("noise-scale", "ns.json").tables(result);
  ASSERT_EQ(tables.size(), 1u);
  ASSERT_EQ(tables[0].rows.size(), 4u);
  EXPECT_EQ(tables[0].rows[0][1], "120");
  EXPECT_EQ(tables[0].rows[2][3], "inf");
  EXPECT_EQ(tables[0].rows[3][1], "-");
  EXPECT_EQ(tables[0].rows[3][3], "-");
  const std::string caption = find_analysis_kind("noise-scale", "ns.json").caption(result);
  EXPECT_NE(caption.find("B_simple 120 tokens [80, 200]"), std::string::npos) << caption;
}

TEST(AnalysisFigures, LnScaleWithoutPostLnSaysWhy) {
  const json post = json::parse(R"({"norms": [
      {"sublayer": "enc.0.self_attn", "w_over_sigma": 0.7}, {"sublayer": "enc.0.ffn", "w_over_sigma": 0.6}]})");
  const auto figures = analysis_figures(post, "ln-scale", "s.json");
  ASSERT_EQ(figures.size(), 1u);
  const auto& bars = std::get<BarFigure>(figures[0].second);
  EXPECT_EQ(bars.groups.size(), 2u);
  EXPECT_DOUBLE_EQ(bars.series.at(0).values[1], 0.6);
  try {
    ln_scale_figure(json::parse(R"({"norms": [], "note": "Pre-LN has none"})"), "s.json");
    FAIL();
  } catch (const fathom::InputError& e) {
    EXPECT_EQ(e.message(), "Pre-LN has none");
  }
}

TEST(AnalysisFigures, BadResultsNameTheField) {
  try {
    analysis_figures(json::parse(R"({"configs": [{"depths": [1]}]})"), "output-shift", "r.json");
    FAIL();
  } catch (const fathom::InputError& e) {
    EXPECT_EQ(e.field(), "configs[0].shift");
  }
  EXPECT_THROW(analysis_figures(json::object(), "pie", "r.json"), fathom::InputError);
}

}  // namespace test_analysis_figures
