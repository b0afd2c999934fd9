// Series styles (plot/style.h): 20 colours before one repeats, each far enough from every other
// to tell apart, and no (colour, dash) pair repeated within 100 series (issue 58 item 6: the
// colours repeated after 7 runs).
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <utility>

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

}  // namespace test_series_style
