// PNG, PDF and SVG output of the renderers, drawn offscreen.
#include <gtest/gtest.h>

#include <QFile>
#include <QXmlStreamReader>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <qcustomplot.h>

#include "base/util/error.h"
#include "plot/comparison_chart.h"
#include "plot/export.h"
#include "plot/headless.h"
#include "plot/render.h"
#include "plot/render_common.h"
#include "plot/save.h"
#include "tests/support/curve_test_helpers.h"
#include "tests/support/temp_dir.h"

using namespace fathom::plot;

namespace test_export {

using fathom::testing::curve;

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

LineFigure two_series() {
  LineFigure f;
  f.x.label = "depth";
  f.y.label = "shift";
  f.series = {{"alpha", {6, 12, 18}, {1, 2, 3}, ""},
              {"bravo", {6, 12, 18}, {2, 2.5, 2.8}, ""},
              {"alpha fit R^2 = 1.000", {6, 18}, {1, 3}, "alpha"}};
  return f;
}

Heatmap triangle() {
  Heatmap h;
  h.row_labels = h.col_labels = {"a", "b", "c"};
  h.values = {{0.1, 0.2, 0.3}, {0.4, 0.5, 0.6}, {0.7, 0.8, 0.9}};
  h.lower_triangle = true;
  h.colour_title = "beta";
  return h;
}

class Export : public testing::Test {
 protected:
  static void SetUpTestSuite() { ensure_application(/*force_offscreen=*/true); }
  std::string temp_path(const std::string& name) const { return scratch_.file(name); }
  fathom::testing::TempDir scratch_;  // removed when the test ends
};

TEST_F(Export, PngHasSignatureAndRequestedPixels) {
  const std::string path = temp_path("line.png");
  export_figure(two_series(), path, {FigureSize{2.0, 1.5}, 100});
  const std::string bytes = read_all(path);
  ASSERT_GE(bytes.size(), 24u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  QImage image(QString::fromStdString(path));
  EXPECT_EQ(image.width(), 200);
  EXPECT_EQ(image.height(), 150);
}

TEST_F(Export, PdfIsComplete) {
  const std::string path = temp_path("line.pdf");
  export_figure(two_series(), path);
  const std::string bytes = read_all(path);
  ASSERT_GT(bytes.size(), 100u);
  EXPECT_EQ(bytes.substr(0, 4), "%PDF");
  EXPECT_NE(bytes.find("%%EOF", bytes.size() - 8), std::string::npos);
}

TEST_F(Export, SvgParsesAndHasOneLegendLabelPerNamedSeries) {
  const std::string path = temp_path("line.svg");
  export_figure(two_series(), path);
  QFile file(QString::fromStdString(path));
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  QXmlStreamReader xml(&file);
  int lines = 0;
  std::map<std::string, int> texts;
  while (!xml.atEnd()) {
    if (xml.readNext() != QXmlStreamReader::StartElement) continue;
    if (xml.name() == QLatin1String("path") || xml.name() == QLatin1String("polyline")) ++lines;
    if (xml.name() == QLatin1String("text")) ++texts[xml.readElementText().trimmed().toStdString()];
  }
  EXPECT_FALSE(xml.hasError()) << xml.errorString().toStdString();
  EXPECT_EQ(texts["alpha"], 1);
  EXPECT_EQ(texts["bravo"], 1);
  EXPECT_EQ(texts["alpha fit R^2 = 1.000"], 1);
  EXPECT_EQ(texts["depth"], 1);
  EXPECT_GE(lines, 3);  // at least the three series
}

// Spike marks (CurveFigure curves' spike_x/y) are drawn with one legend entry naming the rule,
// however many curves carry them.
TEST_F(Export, SpikeMarksGetOneLegendEntry) {
  CurveFigure f;
  f.spikes_are = "spike (> 4 sd above the last 20)";
  for (const char* name : {"run 1", "run 2"}) {
    Curve c;
    c.label = name;
    c.metric = "train_loss";
    c.step = {10, 20, 30};
    c.value = {2, 5, 2};
    c.spike_x = {20};
    c.spike_y = {5};
    f.curves.push_back(c);
  }
  const std::string path = temp_path("spikes.svg");
  export_figure(f, path);
  QFile file(QString::fromStdString(path));
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  QXmlStreamReader xml(&file);
  std::map<std::string, int> texts;
  while (!xml.atEnd())
    if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("text"))
      ++texts[xml.readElementText().trimmed().toStdString()];
  EXPECT_EQ(texts[f.spikes_are], 1);
  EXPECT_EQ(texts["run 1"], 1);
}

TEST_F(Export, HeatmapMaskLeavesUpperCellsEmpty) {
  QCustomPlot plot;
  setup_heatmap(plot, triangle());
  const FigureSize size{3, 3};
  const int dpi = 100;
  const QImage image = render_image(plot, size, dpi);
  // The layout of the last draw maps cell centres to logical pixels; scale them to the image.
  const double scale = double(image.width()) / std::lround(size.width_in * px_per_pt() * 72);
  auto pixel = [&](int col, int row) {
    return image.pixelColor(static_cast<int>(plot.xAxis->coordToPixel(col) * scale),
                            static_cast<int>(plot.yAxis->coordToPixel(row) * scale));
  };
  EXPECT_EQ(pixel(2, 0), QColor(Qt::white));  // above the diagonal: masked
  EXPECT_EQ(pixel(1, 0), QColor(Qt::white));
  EXPECT_NE(pixel(0, 2), QColor(Qt::white));  // below: coloured
  EXPECT_NE(pixel(1, 1), QColor(Qt::white));  // the diagonal is shown
  // The darkest cell is the lowest value: the gradient's luminance rises with the value.
  EXPECT_LT(qGray(pixel(0, 0).rgb()), qGray(pixel(2, 2).rgb()));
}

TEST_F(Export, EveryKindRendersAndBadExtensionFails) {
  CurveFigure curves;
  curves.smoothing = 0.5;
  curves.curves = {curve("r1", "valid_loss", {0, 1, 2, 3}, {4, 3, 2.5, 2}, std::nullopt, ""),
                   curve("r2", "valid_loss", {0, 1, 2},
                         {4, 5, std::numeric_limits<double>::infinity()}, 2.0, "")};
  export_figure(curves, temp_path("curves.png"), {FigureSize{2, 1.5}, 72});
  BarFigure bars;
  bars.groups = {"1", "2"};
  bars.series = {{"enc", {1e-3, 0.5}}, {"dec", {1.0, 0.1}}};
  bars.y.scale = Scale::Log;
  export_figure(bars, temp_path("bars.svg"));
  EXPECT_GT(read_all(temp_path("bars.svg")).size(), 100u);
  EXPECT_THROW(export_figure(bars, temp_path("bars.jpg")), fathom::InputError);
  EXPECT_THROW(export_figure(bars, "/nonexistent-dir/x.png"), fathom::InputError);
}

// A log axis over less than two decades gets ticks m x 10^k with m from a 1-2-5 style set
// (1, 1.2, 1.5, 2, 2.5, 3, ..., 9), at least four of them on the axis, with no span between
// neighbouring ticks (or an end of the axis) wider than a factor 2.5: perplexities 1.05 to 13
// got 2.5, 5, 7.5, 10, 12.5 from QCustomPlot (7.5 is no such value; 1.05 to 2.5 unlabelled),
// 3 to 20 gets 3, 5, 7, 10, 15, 20. Each label must name its own value, not "10^1" for 10, 15
// and 20 alike. Over many decades the labels stay powers of ten.
TEST_F(Export, LogAxisLabelsNameTheirTicks) {
  const std::vector<double> mantissas{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9};
  for (const auto& [low, high, powers] : {std::tuple{3.0, 20.0, false},
                                          {1.05, 13.0, false},
                                          {2.0, 150.0, false},
                                          {1e-6, 1.0, true}}) {
    SCOPED_TRACE(low);
    CurveFigure curves;
    curves.y.scale = Scale::Log;
    curves.curves = {
        curve("r", "valid_ppl", {0, 1, 2}, {high, (low + high) / 2, low}, std::nullopt, "")};
    QCustomPlot plot;
    setup_curve_figure(plot, curves);
    ASSERT_FALSE(render_image(plot, kPageSize, 72).isNull());  // lays out the ticks
    const QVector<double> ticks = plot.yAxis->tickVector();
    const QVector<QString> labels = plot.yAxis->tickVectorLabels();
    ASSERT_GE(ticks.size(), 2);
    ASSERT_EQ(ticks.size(), labels.size());
    for (int i = 0; i < ticks.size(); ++i) {
      for (int j = 0; j < i; ++j) EXPECT_NE(labels[i], labels[j]) << ticks[i] << " " << ticks[j];
      if (!powers) {
        EXPECT_NEAR(labels[i].toDouble(), ticks[i], 1e-9 * ticks[i]) << labels[i].toStdString();
      }
    }
    EXPECT_EQ(plot.yAxis->numberFormat(), powers ? QStringLiteral("eb") : QStringLiteral("gb"));
    if (powers) continue;
    const QCPRange range = plot.yAxis->range();
    std::vector<double> marks{range.lower};
    for (double t : ticks) {
      if (t < range.lower || t > range.upper) continue;
      const double m = t / std::pow(10.0, std::floor(std::log10(t) + 1e-9));
      EXPECT_TRUE(std::any_of(mantissas.begin(), mantissas.end(),
                              [&](double v) { return std::abs(v - m) < 1e-9; }))
          << "tick " << t;
      marks.push_back(t);
    }
    marks.push_back(range.upper);
    EXPECT_GE(marks.size(), 4u + 2u) << "at least four ticks on the axis";
    for (size_t i = 1; i < marks.size(); ++i)
      EXPECT_LE(marks[i] / marks[i - 1], 2.5 + 1e-9) << marks[i - 1] << " to " << marks[i];
  }
}

TEST_F(Export, APlotCanBeSetUpAgain) {
  // The GUI reuses one widget: a heatmap after bars after curves leaves one plottable and no
  // stale groups behind.
  QCustomPlot plot;
  BarFigure bars;
  bars.groups = {"a"};
  bars.series = {{"x", {1.0}}, {"y", {2.0}}};
  setup_bar_figure(plot, bars);
  setup_curve_figure(plot, CurveFigure{});
  setup_heatmap(plot, triangle());
  setup_heatmap(plot, triangle());
  EXPECT_EQ(plot.plottableCount(), 1);
  EXPECT_EQ(plot.findChildren<QCPMarginGroup*>(QString(), Qt::FindDirectChildrenOnly).size(), 1);
  EXPECT_TRUE(plot.findChildren<QCPBarsGroup*>(QString(), Qt::FindDirectChildrenOnly).isEmpty());
  EXPECT_FALSE(render_image(plot, kColumnSize, 72).isNull());
}

fathom::experiments::TableCell cell_of(std::optional<double> value, std::optional<double> ci95) {
  fathom::experiments::TableCell c;
  c.value = value;
  c.ci95 = ci95;
  return c;
}

// A comparison table's cells as bars: a group per row, a series per column named by its axis,
// the 95 % interval as the whisker; a cell without a value (everything diverged) has no bar.
TEST_F(Export, AComparisonTableBecomesBarsWithTheirIntervals) {
  fathom::experiments::ComparisonTable t;
  t.row_key = "model.norm+model.init";
  t.col_key = "model.encoder_layers";
  t.metric = "valid_ppl";
  t.row_labels = {"post/xavier", "pre/xavier"};
  t.col_labels = {"6", "18"};
  t.cells = {{cell_of(10.0, 0.5), cell_of(std::nullopt, std::nullopt)},
             {cell_of(9.0, std::nullopt), cell_of(8.5, 1.25)}};
  const BarFigure f = comparison_bar_figure(t);
  EXPECT_EQ(f.groups, t.row_labels);
  EXPECT_EQ(f.x_label, "norm/init");
  EXPECT_EQ(f.y.label, "valid_ppl");
  ASSERT_EQ(f.series.size(), 2u);
  EXPECT_EQ(f.series[0].name, "encoder_layers = 6");
  EXPECT_EQ(f.series[1].name, "encoder_layers = 18");
  EXPECT_EQ(f.series[0].values, (std::vector<double>{10.0, 9.0}));
  EXPECT_EQ(f.series[0].errors[0], 0.5);
  EXPECT_TRUE(std::isnan(f.series[0].errors[1]));  // one seed: no interval
  EXPECT_TRUE(std::isnan(f.series[1].values[0]));
  EXPECT_TRUE(std::isnan(f.series[1].errors[0]));
  EXPECT_EQ(f.series[1].values[1], 8.5);
  EXPECT_EQ(f.series[1].errors[1], 1.25);
  EXPECT_EQ(f.errors_are, "95 % CI of the mean over seeds");
  t.pooled = {"train.lr"};  // a cell over every learning rate: not an interval over seeds
  EXPECT_EQ(comparison_bar_figure(t).errors_are, "95 % CI of the mean over the cell's runs");

  QCustomPlot plot;
  setup_bar_figure(plot, f);
  int whiskers = 0;
  for (int i = 0; i < plot.plottableCount(); ++i)
    whiskers += qobject_cast<QCPErrorBars*>(plot.plottable(i)) != nullptr;
  EXPECT_EQ(whiskers, 3);  // one per series with an interval, and the legend's key
  // The axis holds the tallest whisker (10 + 0.5) and starts at 0 for bars.
  EXPECT_GE(plot.yAxis->range().upper, 10.5);
  EXPECT_EQ(plot.yAxis->range().lower, 0.0);
  EXPECT_EQ(axis_short_name("train.lr"), "lr");
}

// A reference (a fork sweep's parent) is a dashed line across every group at its value, named
// in the legend, and the value axis reaches it though every bar is lower.
TEST_F(Export, ABarReferenceIsALineAcrossTheGroupsInRange) {
  BarFigure f;
  f.groups = {"0.001", "0.003", "0.01"};
  f.series = {{"", {2.0, 3.0, 4.0}}};
  f.references = {{10.0, "parent #1: 10.00"}};
  QCustomPlot plot;
  setup_bar_figure(plot, f);
  ASSERT_EQ(plot.graphCount(), 1);
  const QCPGraph* line = plot.graph(0);
  EXPECT_EQ(line->name(), "parent #1: 10.00");
  ASSERT_EQ(line->dataCount(), 2);
  EXPECT_EQ(line->data()->at(0)->key, -0.6);
  EXPECT_EQ(line->data()->at(1)->key, 2.6);  // the last group's bar edge and margin
  EXPECT_EQ(line->data()->at(0)->value, 10.0);
  EXPECT_EQ(line->data()->at(1)->value, 10.0);
  EXPECT_NE(line->pen().style(), Qt::SolidLine);
  EXPECT_TRUE(plot.legend->hasItemWithPlottable(line));
  EXPECT_GE(plot.yAxis->range().upper, 10.0);
}

// Issue 36: the Compare chart's legend covered the top of the tallest whisker (2 rows x 3
// learning rates, two seeds: wide intervals). Now the axis leaves the legend room above every
// bar and whisker: after layout, the legend's rectangle lies above every whisker's top.
TEST_F(Export, TheBarLegendHidesNoWhiskerTop) {
  BarFigure f;
  f.groups = {"post", "pre"};
  f.y.label = "valid_ppl";
  f.errors_are = "95 % CI of the mean over seeds";
  const std::vector<std::vector<double>> values{{11.2, 13.9}, {6.1, 7.7}, {9.0, 7.7}};
  const std::vector<std::vector<double>> errors{{0.1, 1.3}, {17.0, 10.7}, {8.8, 10.1}};
  for (int k = 0; k < 3; ++k) {
    BarSeries s;
    s.name = "lr = " + std::to_string(k);
    s.values = values[k];
    s.errors = errors[k];
    f.series.push_back(s);
  }
  QCustomPlot plot;
  plot.resize(1076, 270);  // the Compare tab's chart at 1100x700
  setup_bar_figure(plot, f);
  plot.replot();
  ASSERT_TRUE(plot.legend && plot.legend->visible());
  const QRect legend = plot.legend->outerRect();
  for (int k = 0; k < 3; ++k)
    for (int g = 0; g < 2; ++g) {
      const double top = plot.yAxis->coordToPixel(values[k][g] + errors[k][g]);
      EXPECT_GT(top, legend.bottom()) << "series " << k << " group " << g;
    }
}

// Issue 36: a one-column figure of 12 runs with long labels was two thirds legend. Where no
// corner is free, the legend above the plot now drops the words every entry shares (the
// sweep's name) and shrinks its font until it takes at most a third of the figure.
TEST_F(Export, AManyCurveLegendTakesAtMostAThirdOfAColumnFigure) {
  CurveFigure f;
  f.y.label = "valid_ppl";
  for (int run = 1; run <= 12; ++run) {
    Curve c;
    c.label = std::to_string(run) + " screens/norm=" + (run <= 6 ? "post" : "pre") + ",lr=0.000" +
              std::to_string(run % 3 + 1) + ",seed=" + std::to_string(run % 2 + 1);
    // Crossing lines fill every corner, so no corner can hold the legend.
    for (int step = 0; step <= 4; ++step) {
      c.step.push_back(50.0 * step);
      c.value.push_back(run % 2 ? 5 + 3.0 * step + run * 0.1 : 17 - 3.0 * step + run * 0.1);
    }
    f.curves.push_back(c);
  }
  QCustomPlot plot;
  plot.resize(logical_size(kColumnSize));
  setup_curve_figure(plot, f);
  plot.replot();
  ASSERT_TRUE(plot.legend && plot.legend->visible());
  EXPECT_EQ(plot.legend->itemCount(), 12);
  EXPECT_LE(plot.legend->outerRect().height(), plot.height() / 3.0 + 2)
      << plot.legend->outerRect().height() << " of " << plot.height();
  EXPECT_GE(plot.axisRect()->rect().height(), plot.height() / 3.0);
  for (int i = 0; i < plot.legend->itemCount(); ++i) {
    auto* item = qobject_cast<QCPPlottableLegendItem*>(plot.legend->item(i));
    ASSERT_TRUE(item);
    const QString name = item->plottable()->name();
    EXPECT_FALSE(name.contains("screens")) << name.toStdString();  // shared by all: dropped
    EXPECT_TRUE(name.startsWith(QString::number(i + 1) + " norm=")) << name.toStdString();
  }
}

// Issue 58 item 7: a figure of 6 runs whose curves fill every corner. At page width the legend
// sits beside the plot, the data keeping >= 70 % of the width and the whole height; in one
// column, where a column beside would squeeze the data, above it -- never over the curves.
CurveFigure crossing_runs(int n) {
  CurveFigure f;
  f.y.label = "valid_ppl";
  for (int run = 1; run <= n; ++run) {
    Curve c;
    c.label = "norm=" + std::string(run <= 3 ? "post" : "pre") + ",lr=0.00" +
              std::to_string(run % 3 + 1);  // a sweep's compact run name
    for (int step = 0; step <= 4; ++step) {
      c.step.push_back(50.0 * step);
      c.value.push_back(run % 2 ? 5 + 3.0 * step + run * 0.1 : 17 - 3.0 * step + run * 0.1);
    }
    f.curves.push_back(c);
  }
  return f;
}

TEST_F(Export, AnOutsideLegendLeavesSeventyPercentOfTheWidthToTheData) {
  for (const FigureSize& size : {kPageSize, kColumnSize}) {
    QCustomPlot plot;
    plot.resize(logical_size(size));
    setup_curve_figure(plot, crossing_runs(6));
    plot.setViewport(plot.rect());  // laid out at the figure's size, as save_plot paints it
    plot.replot();
    ASSERT_TRUE(plot.legend && plot.legend->visible());
    EXPECT_EQ(plot.legend->itemCount(), 6);
    const QRect legend = plot.legend->outerRect(), data = plot.axisRect()->rect();
    const double width_share = double(data.width()) / plot.width();
    EXPECT_GE(width_share, 1 - detail::kBesideShare) << size.width_in << " in";
    EXPECT_FALSE(legend.intersects(data)) << size.width_in << " in";
    EXPECT_TRUE(plot.rect().contains(legend)) << size.width_in << " in";
    if (size.width_in == kPageSize.width_in) {  // beside, at the top, the data full height
      EXPECT_GE(legend.left(), data.right());
      EXPECT_LE(legend.top(), data.top() + 2);
      EXPECT_GE(double(data.height()) / plot.height(), 0.7);
    } else {  // above, a third of the height at most
      EXPECT_LE(legend.bottom(), data.top());
      EXPECT_LE(legend.height(), plot.height() / 3.0 + 2);
    }
  }
}

// A sweep's 60 runs in one column: at the smallest font step the legend took two thirds of the
// height and left the data a sliver. A legend that fits nowhere is left out, the data keep
// their height, and a line above them names how many entries were left out.
TEST_F(Export, ALegendThatFitsNowhereIsLeftOutAndNamed) {
  QCustomPlot plot;
  plot.resize(logical_size(kColumnSize));
  setup_curve_figure(plot, crossing_runs(60));
  plot.setViewport(plot.rect());
  plot.replot();
  ASSERT_TRUE(plot.legend);
  EXPECT_FALSE(plot.legend->visible());
  EXPECT_GE(plot.axisRect()->rect().height(), 0.6 * plot.height());
  int notes = 0;
  for (auto* text : plot.findChildren<QCPTextElement*>())
    notes += text->text() == QStringLiteral("legend left out: 60 entries do not fit the figure");
  EXPECT_EQ(notes, 1);
  // Set up again with six runs: the legend is back, and the note gone.
  setup_curve_figure(plot, crossing_runs(6));
  plot.replot();
  EXPECT_TRUE(plot.legend->visible());
  EXPECT_EQ(plot.legend->itemCount(), 6);
  for (auto* text : plot.findChildren<QCPTextElement*>())
    EXPECT_FALSE(text->text().startsWith("legend left out")) << text->text().toStdString();
}

// An odd number of entries over 6 wraps into two columns with a gap, which the legend's font
// steps met as a null item (the desktop app's LR sensitivity tab crashed on 7 curves).
TEST_F(Export, AnOddManyEntryLegendOutsideTheDataLaysOut) {
  for (const FigureSize& size : {kPageSize, kColumnSize}) {
    QCustomPlot plot;
    plot.resize(logical_size(size));
    setup_curve_figure(plot, crossing_runs(7));
    plot.setViewport(plot.rect());
    plot.replot();
    ASSERT_TRUE(plot.legend && plot.legend->visible());
    EXPECT_FALSE(plot.legend->outerRect().intersects(plot.axisRect()->rect()));
  }
}

// A curve's y axis of one value: a first validation's BLEU of 1.1 spans 0.99 to 1.21
// (QCustomPlot kept its old width about it: -1.4 to 3.6, a negative BLEU on the axis); a single
// 0 spans up to 1 with a little air below its marker. Curves of several values keep the air
// around them, below 0 too where a marker near 0 needs it (issue 58 item 9).
TEST_F(Export, ACurveAxisOfOneValueSpansTenPercentOfIt) {
  auto y_range = [](std::vector<double> x, std::vector<double> y) {
    CurveFigure curves;
    curves.curves = {curve("r", "valid_bleu", std::move(x), std::move(y), std::nullopt, "")};
    QCustomPlot plot;
    setup_curve_figure(plot, curves);
    return plot.yAxis->range();
  };
  const QCPRange one = y_range({100}, {1.1});
  EXPECT_NEAR(one.lower, 0.99, 1e-12);
  EXPECT_NEAR(one.upper, 1.21, 1e-12);
  const QCPRange zero_alone = y_range({100}, {0});
  EXPECT_LT(zero_alone.lower, 0.0);
  EXPECT_GT(zero_alone.lower, -0.1);
  EXPECT_NEAR(zero_alone.upper, 1.0, 1e-12);
  const QCPRange near_zero = y_range({0, 1, 2}, {0.01, 5, 10});
  EXPECT_NEAR(near_zero.lower, 0.01 - 0.025 * 9.99, 1e-9);  // 2.5 % of the range each side
  EXPECT_NEAR(near_zero.upper, 10 + 0.025 * 9.99, 1e-9);
}

// A curve of points at one x -- a run's first validation, at update 100 -- gets the axis of a
// curve from the origin to that x, 2.5 % of air each side (QCustomPlot left 98 to 102);
// points at x = 0 alone span up to 1; curves of several x keep 5 % of air around them.
TEST_F(Export, ACurveAxisOfOneXStartsAtTheOrigin) {
  auto x_range = [](std::vector<std::vector<double>> xs) {
    CurveFigure curves;
    for (size_t i = 0; i < xs.size(); ++i) {
      std::vector<double> y(xs[i].size(), 20.0 + static_cast<double>(i));
      curves.curves.push_back(curve("r" + std::to_string(i), "valid_bleu", std::move(xs[i]),
                                    std::move(y), std::nullopt, ""));
    }
    QCustomPlot plot;
    setup_curve_figure(plot, curves);
    return plot.xAxis->range();
  };
  const QCPRange one = x_range({{100}});
  EXPECT_NEAR(one.lower, -2.5, 1e-9);
  EXPECT_NEAR(one.upper, 102.5, 1e-9);
  const QCPRange two_runs_one_x = x_range({{100}, {100}});  // two runs' first validations
  EXPECT_NEAR(two_runs_one_x.lower, -2.5, 1e-9);
  EXPECT_NEAR(two_runs_one_x.upper, 102.5, 1e-9);
  const QCPRange at_zero = x_range({{0}});
  EXPECT_LT(at_zero.lower, 0.0);
  EXPECT_NEAR(at_zero.upper, 1.0, 1e-12);
  const QCPRange spread = x_range({{100}, {200}});  // 100 to 200 with 2.5 % air each side
  EXPECT_NEAR(spread.lower, 97.5, 1e-9);
  EXPECT_NEAR(spread.upper, 202.5, 1e-9);
}

}  // namespace test_export
