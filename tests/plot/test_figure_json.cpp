// Figure JSON round trip, field errors, and --size parsing.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "base/util/error.h"
#include "plot/figure.h"
#include "plot/size.h"
#include "tests/support/curve_test_helpers.h"

using namespace fathom::plot;

namespace test_figure_json {

using fathom::testing::curve;

// Equal as JSON: NaN becomes null on both sides.
void expect_round_trip(const Figure& figure) {
  const nlohmann::json once = to_json(figure);
  const Figure back = figure_from_json(nlohmann::json::parse(once.dump()));
  EXPECT_EQ(back.index(), figure.index());
  EXPECT_EQ(to_json(back), once);
}

TEST(FigureJson, HeatmapRoundTripKeepsNaNAndMask) {
  Heatmap h;
  h.title = "beta";
  h.row_labels = {"a", "b"};
  h.col_labels = {"x", "y"};
  h.values = {{0.5, kNaN}, {0.25, 1.0}};
  h.lower_triangle = true;
  h.colour_title = "share";
  h.vmin = 0;
  h.vmax = 1;
  h.annotate = true;
  expect_round_trip(h);
  const auto back = std::get<Heatmap>(figure_from_json(to_json(h)));
  EXPECT_TRUE(std::isnan(back.values[0][1]));
  EXPECT_EQ(back.values[1][0], 0.25);
  EXPECT_TRUE(back.lower_triangle);
  EXPECT_EQ(*back.vmax, 1.0);
}

TEST(FigureJson, LineBarCurvesRoundTrip) {
  LineFigure line;
  line.x = {"depth", Scale::Log, 1.0, 100.0};
  line.series = {{"admin", {6, 12}, {0.1, 0.2}, ""},
                 {"fit, R^2 = 0.99", {6, 12}, {0.1, 0.21}, "admin"}};
  expect_round_trip(line);
  EXPECT_EQ(std::get<LineFigure>(figure_from_json(to_json(line))).series[1].fit_of, "admin");
  line.markers = false;  // a density's many points drawn as a line alone
  expect_round_trip(line);
  EXPECT_FALSE(std::get<LineFigure>(figure_from_json(to_json(line))).markers);
  line.markers = true;

  BarFigure bar;
  bar.groups = {"1", "2"};
  bar.series = {{"enc_attn", {1.0, kNaN}}};
  bar.y.scale = Scale::Log;
  expect_round_trip(bar);
  // Whiskers (NaN: none on that bar), what they are, and reference lines come back too.
  bar.series[0].errors = {0.25, kNaN};
  bar.errors_are = "95 % CI of the mean over seeds";
  bar.references = {{0.5, "parent #3: 0.5"}};
  expect_round_trip(bar);
  const auto bars = std::get<BarFigure>(figure_from_json(to_json(bar)));
  ASSERT_EQ(bars.series[0].errors.size(), 2u);
  EXPECT_EQ(bars.series[0].errors[0], 0.25);
  EXPECT_TRUE(std::isnan(bars.series[0].errors[1]));
  EXPECT_EQ(bars.errors_are, bar.errors_are);
  ASSERT_EQ(bars.references.size(), 1u);
  EXPECT_EQ(bars.references[0].value, 0.5);
  EXPECT_EQ(bars.references[0].label, "parent #3: 0.5");

  CurveFigure curves;
  curves.smoothing = 0.9;
  curves.curves = {curve("run 1", "valid_loss", {0, 100}, {5.0, 4.0}, 100.0, "post")};
  curves.curves[0].fork_step = 20.0;
  curves.curves[0].milestone_x = {40.0, 90.0};
  expect_round_trip(curves);
  const auto back = std::get<CurveFigure>(figure_from_json(to_json(curves)));
  EXPECT_EQ(back.x.label, "update");
  EXPECT_EQ(*back.curves[0].diverged_step, 100.0);
  EXPECT_EQ(*back.curves[0].fork_step, 20.0);
  EXPECT_EQ(back.curves[0].milestone_x, (std::vector<double>{40.0, 90.0}));
  EXPECT_EQ(back.smoothing, 0.9);
}

TEST(FigureJson, GroupCurvesRoundTrip) {
  CurveFigure f;
  f.x_kind = "time";
  f.band = "std";
  Curve c;
  c.label = "norm=pre (n=2, 1 diverged)";
  c.step = {1, 2};
  c.value = {3, 4};
  c.band_lo = {2.5, 3.5};
  c.band_hi = {3.5, 4.5};
  c.count = {2, 1};
  c.members = {"#1", "#2"};
  c.ends = {{1, 3.25, "#2"}};
  c.stopped_early = true;
  f.curves.push_back(c);
  const auto back = std::get<CurveFigure>(figure_from_json(to_json(Figure{f})));
  EXPECT_EQ(back.x_kind, "time");
  EXPECT_EQ(back.band, "std");
  const Curve& r = back.curves.at(0);
  EXPECT_EQ(r.band_hi, c.band_hi);
  EXPECT_EQ(r.count, c.count);
  EXPECT_EQ(r.members, c.members);
  ASSERT_EQ(r.ends.size(), 1u);
  EXPECT_EQ(r.ends[0].y, 3.25);
  EXPECT_EQ(r.ends[0].member, "#2");
  EXPECT_TRUE(r.stopped_early);
  // A band with a value missing, or an x axis nobody draws, is named.
  auto j = to_json(Figure{f});
  j["curves"][0]["band_lo"] = {1.0};
  EXPECT_THROW(figure_from_json(j), fathom::InputError);
  j = to_json(Figure{f});
  j["x_kind"] = "epochs";
  EXPECT_THROW(figure_from_json(j), fathom::InputError);
}

TEST(FigureJson, ErrorsNameTheField) {
  try {
    figure_from_json(
        nlohmann::json::parse(R"({"kind": "line", "series": [{"x": [1], "y": "no"}]})"),
        "spec.json");
    FAIL() << "expected an InputError";
  } catch (const fathom::InputError& e) {
    EXPECT_EQ(e.file(), "spec.json");
    EXPECT_EQ(e.field(), "series[0].y");
  }
  EXPECT_THROW(figure_from_json(nlohmann::json::parse(R"({"kind": "pie"})")), fathom::InputError);
  EXPECT_THROW(figure_from_json(nlohmann::json::parse(R"({"kind": "curves", "smoothing": 1})")),
               fathom::InputError);
  EXPECT_THROW(load_figure("/nonexistent/figure.json"), fathom::InputError);
}

TEST(FigureSize, PresetsAndInches) {
  EXPECT_EQ(parse_size("column").width_in, 3.3);
  EXPECT_EQ(parse_size("page").width_in, 6.9);
  const FigureSize s = parse_size("4x2.5");
  EXPECT_EQ(s.width_in, 4.0);
  EXPECT_EQ(s.height_in, 2.5);
  EXPECT_THROW(parse_size("wide"), fathom::InputError);
  EXPECT_THROW(parse_size("800x600"), fathom::InputError);  // pixels, not inches
  EXPECT_THROW(parse_size("3x"), fathom::InputError);
}

}  // namespace test_figure_json
