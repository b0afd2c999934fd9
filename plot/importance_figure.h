#pragma once
// The hyperparameter-importance figure (experiments/hparam_importance.h, methods.md s7): one
// horizontal bar per term of the functional ANOVA -- each swept axis's main effect, each pair's
// interaction and, with three or more axes, the higher-order rest -- its length the term's
// share of V, the variance between the settings, largest at the top; under them, in a colour of
// their own, the seeds' variance within a setting as a share of the same V (what the settings
// do not explain; it may pass 100 %). The title names the metric and how many settings and runs
// went in; where the decomposition has intervals (resampled seeds), each term's is an error bar.
// `fathom export plot importance` and the desktop app's Importance tab draw it.
#include <limits>
#include <string>
#include <vector>

#include "experiments/hparam_importance.h"
#include "plot/export.h"

class QCustomPlot;

namespace fathom::plot {

struct Style;

struct ImportanceBar {
  enum class Kind { kMain, kPair, kRest, kSeeds };
  std::string label;  // "lr", "norm/init x lr", "3 or more axes", "seeds (within a setting)"
  double share = 0;   // a term's V_S / V; the seeds' variance / V (NaN when V is 0)
  Kind kind = Kind::kMain;
  // The share's 95 % interval, drawn as an error bar; NaN: none (the seeds' bar, or a
  // decomposition without intervals).
  double lo = std::numeric_limits<double>::quiet_NaN(), hi = lo;
};

struct ImportanceFigure {
  std::string title;                // "valid_loss: 12 settings, 36 runs"
  std::vector<ImportanceBar> bars;  // top to bottom: the terms by share, then the seeds
};

// The bars of `h`: its terms (axes named by their last key part, plot/comparison_chart.h) and
// the rest sorted by share, largest first, then the seeds. A zip group's keys sharing a suffix
// say it once ("encoder/decoder_layers").
ImportanceFigure importance_figure(const experiments::HparamImportance& h);

// A term's name on its bar: its axes by bar name, joined by " x " ("lr x norm/init").
std::string importance_term_label(const std::vector<std::string>& axes);

// Draws it on `plot` (replacing what was there): shares in percent on the x axis, each bar's
// value printed at its end.
void setup_importance_chart(QCustomPlot& plot, const ImportanceFigure& figure, const Style& style);

// Writes it to `path` (.png, .pdf, .svg) as export_figure does (Qt stays out of the caller).
void export_importance(const ImportanceFigure& figure, const std::string& path,
                       const ExportOptions& options = {});

}  // namespace fathom::plot
