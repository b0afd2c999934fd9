// Series styles (plot/style.h): 20 colours before one repeats, each far enough from every other
// to tell apart, and no (colour, dash) pair repeated within 100 series (issue 58 item 6: the
// colours repeated after 7 runs); markers only while each (colour, marker) pair is on one line.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <utility>

#include "plot/figure.h"
#include "plot/headless.h"
#include "plot/render.h"
#include "plot/style.h"

namespace test_series_style {

TEST(SeriesStyle, TwentyColoursApartBeforeOneRepeats) {
  using fathom::plot::series_colour;
  for (int i = 0; i < fathom::plot::kSeriesColours; ++i) {
    EXPECT_EQ(series_colour(i + fathom::plot::kSeriesColours), series_colour(i));
    for (int j = 0; j < i; ++j) {
      const QColor a = series_colour(i), b = series_colour(j);
      // Euclidean distance in RGB: 40 of 441 is well above what a screen or print confuses.
      const double d =
          std::hypot(std::hypot(a.red() - b.red(), a.green() - b.green()), a.blue() - b.blue());
      EXPECT_GE(d, 40) << i << " vs " << j << ": " << a.name().toStdString() << " "
                       << b.name().toStdString();
    }
  }
}

TEST(SeriesStyle, NoColourAndDashPairRepeatsWithinAHundredSeries) {
  std::set<std::pair<QRgb, int>> seen;
  for (int i = 0; i < 100; ++i)
    EXPECT_TRUE(seen.insert({fathom::plot::series_colour(i).rgb(),
                             static_cast<int>(fathom::plot::series_dash(i))})
                    .second)
        << i;
}

// The first series whose colour and marker an earlier one already has is the 141st (20
// colours, 7 markers: lcm 140); up to 140 lines a figure can give each its own.
TEST(SeriesStyle, MarkersAreDrawnWhileNoColourAndMarkerPairRepeats) {
  std::set<std::pair<QRgb, int>> seen;
  int first_repeat = -1;
  for (int i = 0; i < 1000 && first_repeat < 0; ++i)
    if (!seen.insert({fathom::plot::series_colour(i).rgb(), fathom::plot::series_marker(i)}).second)
      first_repeat = i;
  EXPECT_EQ(first_repeat, 140);
  EXPECT_TRUE(fathom::plot::lines_marked(140));
  EXPECT_FALSE(fathom::plot::lines_marked(141));
}

// The shapes on each run's line in a figure of `lines` runs (ssNone: no markers).
std::set<int> line_shapes(size_t lines, const fathom::plot::Style& style = {}) {
  fathom::plot::CurveFigure figure;
  for (size_t r = 0; r < lines; ++r) {
    fathom::plot::Curve c;
    c.label = "run" + std::to_string(r);
    c.metric = "train_loss";
    c.step = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    for (double x : c.step) c.value.push_back(5 - 0.1 * x + 0.01 * static_cast<double>(r));
    figure.curves.push_back(std::move(c));
  }
  fathom::plot::ensure_application(/*force_offscreen=*/true);
  QCustomPlot plot;
  fathom::plot::setup_curve_figure(plot, figure, style);
  std::set<int> shapes;
  int named = 0;
  for (int g = 0; g < plot.graphCount(); ++g)
    if (plot.graph(g)->name().startsWith("run"))
      ++named, shapes.insert(plot.graph(g)->scatterStyle().shape());
  EXPECT_EQ(named, static_cast<int>(lines));
  return shapes;
}

// A figure of thousands of runs drew six markers on each line: no pair of colour and marker
// told one run from another any more, the markers hid the lines and were half the dashboard's
// repaint. 140 lines keep theirs; 141 draw none; a style without markers draws none.
TEST(SeriesStyle, AFigureOfMoreLinesThanLooksDrawsNoMarkers) {
  const std::set<int> marked = line_shapes(140);
  EXPECT_EQ(marked.size(), 7u);  // every marker shape, none of them "none"
  EXPECT_EQ(marked.count(QCPScatterStyle::ssNone), 0u);
  EXPECT_EQ(line_shapes(141), std::set<int>{QCPScatterStyle::ssNone});
  fathom::plot::Style plain;
  plain.markers = false;
  EXPECT_EQ(line_shapes(2, plain), std::set<int>{QCPScatterStyle::ssNone});
}

}  // namespace test_series_style
