// A long title (a run's name, the default of `export plot probe`) kept inside the figure:
// wrapped at its separators, never wider than the figure, and the heatmap beside it keeps its
// colour scale and row labels apart (they were squeezed and overlapped).
#include <gtest/gtest.h>

#include <QFontMetrics>
#include <QStringList>
#include <string>
#include <vector>

#include <qcustomplot.h>

#include "plot/figure.h"
#include "plot/headless.h"
#include "plot/render.h"
#include "plot/save.h"
#include "plot/size.h"
#include "plot/title_fit.h"

using namespace fathom::plot;

namespace test_title_fit {

const QString kRunName =
    "#94 lr=0.0253984,decoder_layers=12,connection=residual,hc_streams=0,"
    "attention_gate=headwise,seed=1";

class TitleFit : public testing::Test {
 protected:
  static void SetUpTestSuite() { ensure_application(/*force_offscreen=*/true); }
  QFont font_{"DejaVu Serif", 10};
};

TEST_F(TitleFit, AShortTitleStaysOneLine) {
  const QFontMetrics metrics(font_);
  EXPECT_EQ(wrap_to_width("beta, 18L Post-LN", metrics, 1000), "beta, 18L Post-LN");
}

TEST_F(TitleFit, ARunNameBreaksAfterItsSeparatorsIntoLinesThatFit) {
  const QFontMetrics metrics(font_);
  const int max_px = metrics.horizontalAdvance(kRunName) / 2;  // needs three lines
  const QStringList lines = wrap_to_width(kRunName, metrics, max_px).split('\n');
  ASSERT_EQ(lines.size(), 3);
  for (const QString& line : lines) {
    EXPECT_LE(metrics.horizontalAdvance(line), max_px) << line.toStdString();
    EXPECT_FALSE(line.contains(QChar(0x2026))) << line.toStdString();  // nothing elided
  }
  // Broken only after a separator, every character kept (the break's space dropped).
  EXPECT_TRUE(lines[0].endsWith(',') || kRunName.startsWith(lines[0] + ' '));
  QString joined = lines.join("");
  EXPECT_EQ(joined.remove(' '), QString(kRunName).remove(' '));
}

TEST_F(TitleFit, WhatNeedsMoreLinesThanAllowedIsElidedInTheMiddleOfTheLast) {
  const QFontMetrics metrics(font_);
  const int max_px = metrics.horizontalAdvance(kRunName) / 5;
  const QStringList lines = wrap_to_width(kRunName, metrics, max_px, 2).split('\n');
  ASSERT_EQ(lines.size(), 2);
  EXPECT_FALSE(lines[0].contains(QChar(0x2026)));
  EXPECT_TRUE(lines[1].contains(QChar(0x2026))) << lines[1].toStdString();
  EXPECT_TRUE(lines[1].endsWith("seed=1")) << lines[1].toStdString();  // its end kept
  for (const QString& line : lines) EXPECT_LE(metrics.horizontalAdvance(line), max_px);
  // One piece wider than a line: elided too, never wider.
  const QString piece(80, 'x');
  EXPECT_LE(metrics.horizontalAdvance(wrap_to_width(piece, metrics, 100)), 100);
}

// The probe heatmap of one run at column width with its name as title: the title inside the
// figure, the colour scale its full bar width beside the cells, row labels not overlapping.
TEST_F(TitleFit, AColumnHeatmapWithARunNameTitleKeepsItsColourScaleAndLabelsApart) {
  Heatmap h;
  h.title = kRunName.toStdString();
  for (int layer = 0; layer < 12; ++layer)
    for (const char* sub : {"self_attn", "ffn"})
      h.row_labels.push_back("dec." + std::to_string(layer) + "." + sub);
  for (int c = 0; c < 8; ++c) h.col_labels.push_back(std::to_string(50 * (c + 1)));
  h.values.assign(h.row_labels.size(), std::vector<double>(8));
  for (size_t r = 0; r < h.values.size(); ++r)
    for (int c = 0; c < 8; ++c) h.values[r][c] = 1.0 + r + 10.0 * c;
  h.colour_title = "stream.rms";
  QCustomPlot plot;
  plot.resize(logical_size(kColumnSize));
  setup_heatmap(plot, h, Style{});
  plot.setViewport(plot.rect());
  plot.replot();

  auto* title = qobject_cast<QCPTextElement*>(plot.plotLayout()->element(0, 0));
  ASSERT_TRUE(title);
  const QFontMetrics title_metrics(title->font());
  for (const QString& line : title->text().split('\n'))
    EXPECT_LE(title_metrics.horizontalAdvance(line), plot.width()) << line.toStdString();
  QCPColorScale* scale = nullptr;
  for (int i = 0; i < plot.plotLayout()->elementCount(); ++i)
    if (auto* s = qobject_cast<QCPColorScale*>(plot.plotLayout()->elementAt(i))) scale = s;
  ASSERT_TRUE(scale);
  EXPECT_GE(scale->axis()->axisRect()->rect().width(), scale->barWidth());
  EXPECT_TRUE(plot.rect().contains(scale->outerRect())) << scale->outerRect().right();
  EXPECT_GT(scale->outerRect().left(), plot.axisRect()->rect().right());
  // Row labels: at least a line of text apart.
  const QVector<double> ticks = plot.yAxis->tickVector();
  ASSERT_GE(ticks.size(), 2);
  const double gap =
      std::abs(plot.yAxis->coordToPixel(ticks[1]) - plot.yAxis->coordToPixel(ticks[0]));
  EXPECT_GE(gap, QFontMetrics(plot.yAxis->tickLabelFont()).height()) << ticks.size() << " labels";
}

}  // namespace test_title_fit
