// The hyperparameter-importance chart (plot/importance_figure.h) on a synthetic grid whose
// decomposition is known by construction: its bars, in order, are the terms' shares worked by
// hand, the seeds' bar their variance over V, and the drawn bars and labels carry the same
// numbers; each output format writes a non-empty file.
#include <gtest/gtest.h>

#include <QFileInfo>
#include <cmath>
#include <string>
#include <vector>

#include <qcustomplot.h>

#include "experiments/hparam_importance.h"
#include "plot/headless.h"
#include "plot/importance_figure.h"
#include "plot/plot_widget.h"
#include "plot/style.h"
#include "tests/support/temp_dir.h"

namespace fathom::plot {
namespace test_importance_figure {
using experiments::TableRun;

// m = 10 + norm + lr + layers + norm x lr + norm x lr x layers, two seeds at m -+ 0.1, over
// norm (2) x lr (3) x layers (2). Each effect is centred over each of its axes, so each V_S is
// the mean square of its own table: norm -+1.5 (2.25), lr -1, 0, 1 (2/3), layers -+0.5 (1/4),
// norm x lr s * (-0.5, 0, 0.5) (1/6), the three-way s * (-0.3, 0, 0.3) * u (0.06), s and u the
// signs -+1; pairs norm x layers and lr x layers 0. The seeds' variance is 0.01 in every cell.
std::vector<TableRun> known_grid() {
  const double norm[2] = {-1.5, 1.5}, lr[3] = {-1, 0, 1}, layers[2] = {-0.5, 0.5};
  const double sign[2] = {-1, 1}, pair[3] = {-0.5, 0, 0.5}, triple[3] = {-0.3, 0, 0.3};
  const char* norms[2] = {"post", "pre"};
  const char* rates[3] = {"1e-4", "1e-3", "1e-2"};
  const char* depths[2] = {"6", "12"};
  std::vector<TableRun> runs;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k)
        for (int seed = 1; seed <= 2; ++seed) {
          TableRun r;
          r.status = "finished";
          r.axes = {{"model.norm", norms[i]},
                    {"train.lr", rates[j]},
                    {"model.encoder_layers", depths[k]},
                    {"train.seed", std::to_string(seed)}};
          r.metric = 10 + norm[i] + lr[j] + layers[k] + sign[i] * pair[j] +
                     sign[i] * triple[j] * sign[k] + (seed == 1 ? -0.1 : 0.1);
          runs.push_back(r);
        }
  return runs;
}

constexpr double kV = 2.25 + 2.0 / 3 + 0.25 + 1.0 / 6 + 0.06;

struct Expected {
  std::string label;
  double share;
};

// Largest first; the two empty pairs (in either order: both are 0 up to rounding); seeds last.
// A pair is named in the grid's axis order, which is the keys' (model.encoder_layers first).
const std::vector<Expected> kBars = {
    {"norm", 2.25 / kV},           {"lr", (2.0 / 3) / kV},
    {"encoder_layers", 0.25 / kV}, {"norm x lr", (1.0 / 6) / kV},
    {"3 or more axes", 0.06 / kV}, {"encoder_layers x norm", 0},
    {"encoder_layers x lr", 0},    {"seeds (within a setting)", 0.01 / kV}};

TEST(ImportanceFigure, BarsAreTheSharesOfTheKnownDecompositionLargestFirst) {
  const auto h = experiments::hparam_importance(known_grid(), "valid_loss");
  const ImportanceFigure f = importance_figure(h);
  EXPECT_EQ(f.title, "valid_loss: 12 settings, 24 runs");
  experiments::HparamImportance filled = h;
  filled.filled = 3;
  EXPECT_EQ(importance_figure(filled).title, "valid_loss: 12 settings (3 predicted), 24 runs");
  ASSERT_EQ(f.bars.size(), kBars.size());
  for (size_t i = 0; i < kBars.size(); ++i) {
    if (i == 5 || i == 6)  // the empty pairs
      EXPECT_TRUE(f.bars[i].label == kBars[5].label || f.bars[i].label == kBars[6].label)
          << f.bars[i].label;
    else
      EXPECT_EQ(f.bars[i].label, kBars[i].label) << i;
    EXPECT_NEAR(f.bars[i].share, kBars[i].share, 1e-12) << kBars[i].label;
  }
  EXPECT_EQ(f.bars.front().kind, ImportanceBar::Kind::kMain);
  EXPECT_EQ(f.bars[3].kind, ImportanceBar::Kind::kPair);
  EXPECT_EQ(f.bars[4].kind, ImportanceBar::Kind::kRest);
  EXPECT_EQ(f.bars.back().kind, ImportanceBar::Kind::kSeeds);
  // The decomposition's terms and the rest make up V, whatever the seeds do.
  double sum = 0;
  for (size_t i = 0; i + 1 < f.bars.size(); ++i) sum += f.bars[i].share;
  EXPECT_NEAR(sum, 1, 1e-12);
}

TEST(ImportanceFigure, TwoAxesHaveNoRestAndNoVarianceHasNoSeedShare) {
  std::vector<TableRun> runs;
  for (const char* a : {"x", "y"})
    for (const char* b : {"1", "2"}) {
      TableRun r;
      r.status = "finished";
      r.axes = {{"a", a}, {"b", b}};
      r.metric = 3;  // every setting alike: V = 0
      runs.push_back(r);
    }
  const ImportanceFigure f = importance_figure(experiments::hparam_importance(runs, "valid_loss"));
  ASSERT_EQ(f.bars.size(), 4u);  // a, b, a x b, seeds: with two axes the rest is none
  for (const auto& bar : f.bars) EXPECT_NE(bar.kind, ImportanceBar::Kind::kRest);
  EXPECT_TRUE(std::isnan(f.bars.back().share)) << "seeds over V = 0";
}

// Zip groups are one axis each, named by their keys' last parts; a suffix they share is said
// once ("encoder/decoder_layers"), other groups keep every part ("norm/init").
TEST(ImportanceFigure, AZipGroupIsNamedByItsKeysLastParts) {
  std::vector<TableRun> runs;
  for (const char* layers : {"6", "12"})
    for (const auto& [norm, init] : {std::pair{"post", "xavier"}, std::pair{"pre", "admin"}}) {
      TableRun r;
      r.status = "finished";
      r.axes = {{"model.encoder_layers", layers},
                {"model.decoder_layers", layers},
                {"model.norm", norm},
                {"model.init", init}};
      r.metric = std::string(layers) == "6" ? 1 : 2;
      runs.push_back(r);
    }
  const auto h = experiments::hparam_importance(
      runs, "valid_loss", "train.seed",
      {{"model.encoder_layers", "model.decoder_layers"}, {"model.norm", "model.init"}});
  const ImportanceFigure f = importance_figure(h);
  ASSERT_EQ(f.bars.size(), 4u);
  EXPECT_EQ(f.bars[0].label, "encoder/decoder_layers");
  EXPECT_NEAR(f.bars[0].share, 1, 1e-12);  // depth alone moves the loss
  EXPECT_EQ(f.bars[1].label, "norm/init");
  EXPECT_EQ(f.bars[2].label, "encoder/decoder_layers x norm/init");
}

TEST(ImportanceFigure, TheDrawnBarsCarryTheSharesInPercentTopDown) {
  ensure_application(/*force_offscreen=*/true);
  const ImportanceFigure f =
      importance_figure(experiments::hparam_importance(known_grid(), "valid_loss"));
  PlotWidget plot;
  plot.resize(600, 400);
  setup_importance_chart(plot, f, Style{});
  // The bars, and an interval on each but the seeds' (two seeds a setting: resampled).
  std::vector<QCPBars*> drawn;
  int intervals = 0;
  for (int i = 0; i < plot.plottableCount(); ++i) {
    if (auto* b = qobject_cast<QCPBars*>(plot.plottable(i))) drawn.push_back(b);
    if (auto* e = qobject_cast<QCPErrorBars*>(plot.plottable(i))) {
      ++intervals;
      const auto* bar = qobject_cast<QCPBars*>(e->dataPlottable());
      ASSERT_NE(bar, nullptr);
      const size_t at = static_cast<size_t>(f.bars.size() - 1 - bar->data()->at(0)->key);
      // Drawn as value - errorMinus .. value + errorPlus: the interval, in percent.
      EXPECT_NEAR(bar->data()->at(0)->value - e->data()->at(0).errorMinus, 100 * f.bars[at].lo,
                  1e-9);
      EXPECT_NEAR(bar->data()->at(0)->value + e->data()->at(0).errorPlus, 100 * f.bars[at].hi,
                  1e-9);
    }
  }
  ASSERT_EQ(drawn.size(), kBars.size());
  EXPECT_EQ(intervals, static_cast<int>(kBars.size()) - 1);
  const int n = static_cast<int>(kBars.size());
  for (int i = 0; i < n; ++i) {
    auto* bars = drawn[static_cast<size_t>(i)];
    ASSERT_NE(bars, nullptr);
    EXPECT_EQ(bars->keyAxis(), plot.yAxis) << "horizontal: keys up the y axis";
    ASSERT_EQ(bars->data()->size(), 1);
    EXPECT_DOUBLE_EQ(bars->data()->at(0)->key, n - 1 - i) << "the first bar at the top";
    EXPECT_NEAR(bars->data()->at(0)->value, 100 * kBars[static_cast<size_t>(i)].share, 1e-10);
  }
  // Each bar's value printed at its end: norm's 2.25 / V = 66.3 %.
  bool printed = false;
  for (int i = 0; i < plot.itemCount(); ++i)
    if (auto* text = qobject_cast<QCPItemText*>(plot.item(i)))
      printed = printed || text->text() == QStringLiteral("66.3 %");
  EXPECT_TRUE(printed);
  EXPECT_GT(plot.xAxis->range().upper, 100 * kBars[0].share) << "room for the longest bar";
}

TEST(ImportanceFigure, EachFormatWritesANonEmptyFile) {
  fathom::testing::TempDir dir;
  const ImportanceFigure f =
      importance_figure(experiments::hparam_importance(known_grid(), "valid_loss"));
  for (const char* name : {"importance.png", "importance.pdf", "importance.svg"}) {
    const std::string path = dir.file(name);
    export_importance(f, path);
    EXPECT_GT(QFileInfo(QString::fromStdString(path)).size(), 1000) << name;
  }
}

}  // namespace test_importance_figure
}  // namespace fathom::plot
