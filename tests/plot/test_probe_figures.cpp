// Figures of the training probes (plot/probe_figures.h): heads reduced by max and mean worked
// by hand (NaN kept), every run's heatmap on one colour range, a log colour scale only where
// positive values span two decades, and per-position lines.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "base/util/error.h"
#include "plot/probe_figures.h"

using namespace fathom::plot;
using fathom::db::ProbeSeries;

namespace test_probe_figures {

// Two sub-layers of two heads each, at updates 10 and 20.
ProbeSeries two_by_two(std::vector<std::vector<float>> values) {
  ProbeSeries s;
  s.positions = {"enc.0.self_attn.h0", "enc.0.self_attn.h1", "dec.0.enc_attn.h0",
                 "dec.0.enc_attn.h1"};
  s.steps = {10, 20};
  s.values = std::move(values);
  return s;
}

TEST(ProbeFigures, HeadsAreReducedToOneRowPerSublayer) {
  const ProbeSeries s = two_by_two({{1, 3, 5, -2}, {2, NAN, 4, 4}});
  const ProbeSeries max = reduce_heads(s, HeadReduction::Max);
  EXPECT_EQ(max.positions, (std::vector<std::string>{"enc.0.self_attn", "dec.0.enc_attn"}));
  EXPECT_EQ(max.steps, s.steps);
  EXPECT_EQ(max.values[0], (std::vector<float>{3, 5}));
  EXPECT_TRUE(std::isnan(max.values[1][0]));  // a NaN head is not hidden by the other
  EXPECT_EQ(max.values[1][1], 4);
  const ProbeSeries mean = reduce_heads(s, HeadReduction::Mean);
  EXPECT_EQ(mean.values[0], (std::vector<float>{2, 1.5}));
  EXPECT_EQ(reduce_heads(s, HeadReduction::All).positions, s.positions);
  // A probe without heads is left as it is.
  ProbeSeries rms;
  rms.positions = {"enc.0.ffn", "enc.1.ffn"};
  rms.steps = {5};
  rms.values = {{0.5f, 0.7f}};
  EXPECT_EQ(reduce_heads(rms, HeadReduction::Max).positions, rms.positions);
  EXPECT_THROW(parse_head_reduction("median"), fathom::InputError);
}

TEST(ProbeFigures, RunsShareOneColourRangeWithDepthDownAndUpdatesAcross) {
  const auto maps = probe_heatmaps({{"1 post", two_by_two({{1, 3, 5, 2}, {2, 2, 4, 4}})},
                                    {"2 pre", two_by_two({{7, 1, 1, 1}, {1, 1, 1, 1}})}},
                                   "attn.max_logit", HeadReduction::Max);
  ASSERT_EQ(maps.size(), 2u);
  const Heatmap& post = maps[0];
  EXPECT_EQ(post.title, "1 post");
  EXPECT_EQ(post.row_labels, (std::vector<std::string>{"enc.0.self_attn", "dec.0.enc_attn"}));
  EXPECT_EQ(post.col_labels, (std::vector<std::string>{"10", "20"}));
  EXPECT_EQ(post.values[0], (std::vector<double>{3, 2}));  // enc.0.self_attn over updates
  EXPECT_EQ(post.values[1], (std::vector<double>{5, 4}));
  EXPECT_EQ(post.colour_title, "attn.max_logit (max over heads)");
  for (const Heatmap& h : maps) {  // the range of both runs: 1 .. 7
    EXPECT_EQ(h.vmin, 1.0);
    EXPECT_EQ(h.vmax, 7.0);
    EXPECT_FALSE(h.log_colour);  // 7x: under two decades
  }
}

TEST(ProbeFigures, ValuesSpanningDecadesGetALogColourScale) {
  const auto wide = probe_heatmaps({{"r", two_by_two({{1e-4f, 1, 1, 1}, {1, 1, 1, 0.5f}})}},
                                   "update.ratio", HeadReduction::All);
  EXPECT_TRUE(wide[0].log_colour);
  // A zero or negative value cannot go on a log scale.
  const auto signed_values = probe_heatmaps(
      {{"r", two_by_two({{1e-4f, 1, 1, 1}, {1, 1, 1, -0.5f}})}}, "x", HeadReduction::All);
  EXPECT_FALSE(signed_values[0].log_colour);
}

TEST(ProbeFigures, LinesFollowEachPositionOverTraining) {
  const LineFigure f = probe_lines(two_by_two({{1, 3, 5, 2}, {2, 2, 4, 4}}), "attn.entropy",
                                   "1 post", HeadReduction::Mean);
  ASSERT_EQ(f.series.size(), 2u);
  EXPECT_EQ(f.series[1].name, "dec.0.enc_attn");
  EXPECT_EQ(f.series[1].x, (std::vector<double>{10, 20}));
  EXPECT_EQ(f.series[1].y, (std::vector<double>{3.5, 4}));
  EXPECT_EQ(f.x.label, "update");
  EXPECT_EQ(f.y.label, "attn.entropy");
}

}  // namespace test_probe_figures
