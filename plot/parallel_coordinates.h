#pragma once
// A sweep's parallel-coordinates plot (issue 37.5): one vertical axis per swept key and per
// chosen metric, one line per run through its values, coloured by the last metric (viridis,
// dark = low), diverged runs red and dashed. An axis whose values are all numbers is numeric,
// and logarithmic where they are positive and span a decade or more (learning rates); other
// axes list their values in order (norm: post, pre). A run without a value on an axis (a
// diverged run's metric) breaks its line there.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "db/store.h"
#include "plot/export.h"

class QCustomPlot;

namespace fathom::plot {

struct Style;

struct ParallelAxis {
  std::string name;  // "model.norm", "valid_ppl"
  bool numeric = true;
  bool log = false;
  std::vector<std::string> categories;  // a non-numeric axis's values, top to bottom
  double min = 0, max = 1;              // a numeric axis's range
  // A numeric axis's labelled values: each value a run has where there are at most
  // kMaxTickValues (a swept axis: every swept rate gets its tick), else min, middle and max.
  std::vector<double> ticks;
};

constexpr size_t kMaxTickValues = 12;

struct ParallelLine {
  std::string label;           // "#12 norm=pre,lr=0.001"
  int64_t run_id = 0;          // the run it draws (0: none known)
  std::vector<double> values;  // per axis: the number, or a category's index; NaN: none
  bool diverged = false;
};

struct ParallelFigure {
  std::vector<ParallelAxis> axes;
  std::vector<ParallelLine> lines;
  // Runs of the sweep left out because they have not ended (queued or running): a live
  // sweep's hundreds of queued runs would otherwise cover the plot with lines that carry a
  // config and no result.
  size_t not_ended = 0;
  // "only the runs where EXPR (K of N)" when a filter kept part of the sweep (sweep_runs.h).
  std::optional<std::string> where_note;
};

// Axes from columns of text cells (one row per run; "" = no value): see the header comment.
ParallelFigure parallel_figure(const std::vector<std::string>& axis_names,
                               const std::vector<std::string>& labels,
                               const std::vector<std::vector<std::string>>& rows,
                               const std::vector<bool>& diverged);

// min, the middle (geometric on a log axis) and max: the ticks of a continuous axis.
std::vector<double> spread_ticks(const ParallelAxis& axis);

// Where `value` sits on `axis`, from 0 (bottom) to 1 (top); NaN for no value. Categories
// spread evenly; a single value sits in the middle.
double axis_position(const ParallelAxis& axis, double value);

// The ended runs of `sweep` (its swept keys but the seed, then `metrics`' final values); the
// queued and running ones are counted in `not_ended`. `where`: only the runs this filter
// expression keeps (experiments/sweep_runs.h). Throws fathom::InputError for an unknown or
// empty sweep, no metric, or a filter that is malformed or keeps nothing.
ParallelFigure parallel_from_store(const db::Store& store, const std::string& sweep,
                                   const std::vector<std::string>& metrics,
                                   const std::string& where = "");

// Writes it to `path` (.png, .pdf, .svg) as export_figure does (Qt stays out of the caller).
void export_parallel(const ParallelFigure& figure, const std::string& path,
                     const ExportOptions& options = {});

// Draws it on `plot` (replacing what was there): after the axes' title row, plot.plottable(i)
// is the curve of f.lines[i]. The values at an axis's ends are written above its top and below
// its bottom, where no line passes; the inner ones on a light box with a tick mark.
void setup_parallel_coordinates(QCustomPlot& plot, const ParallelFigure& figure,
                                const Style& style);

// A poll that brings finished runs inside the drawn axes needs their lines alone (a sweep of
// 16,384 runs took 274 ms to draw again). True when `now` has the axes `drawn` has (names,
// ranges, ticks, categories) and every line of `drawn` unchanged (by run id); `now`'s lines
// are then put in `drawn`'s order, the new ones after them.
bool parallel_extends(const ParallelFigure& drawn, ParallelFigure* now);
// Draws lines[from, end) on a plot set up for `figure` (setup_parallel_coordinates draws them
// all): plot.plottable(i) stays the curve of figure.lines[i].
void add_parallel_lines(QCustomPlot& plot, const ParallelFigure& figure, size_t from);

}  // namespace fathom::plot
