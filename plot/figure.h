#pragma once
// The figure data model: what a figure shows, with no Qt and no LibTorch, so analyses can write
// figures as JSON and the CLI and the GUI draw them the same way. JSON format: docs/plots.md.
#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace fathom::plot {

// "No value": a gap in a series, an empty cell of a table.
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

enum class Scale { Linear, Log };

struct Axis {
  std::string label;
  Scale scale = Scale::Linear;
  std::optional<double> min, max;  // unset: fit the data
  // Counts (updates, steps, layers): a linear axis ticked at whole numbers only
  // (whole_number_ticker.h).
  bool whole_numbers = false;
};

// A matrix as coloured cells, row 0 at the top (e.g. beta[i][j]: layer i reads layer j).
struct Heatmap {
  std::string title;
  std::vector<std::string> row_labels, col_labels;
  std::vector<std::vector<double>> values;  // values[row][col]; NaN: empty cell
  bool lower_triangle = false;              // draw only cells with col <= row
  std::string colour_title;                 // label beside the colour scale
  std::optional<double> vmin, vmax;         // colour range; unset: the data range
  std::string x_label, y_label;
  bool annotate = false;  // print each value in its cell
  // Colours on a log scale (values spanning decades, e.g. a probe over training); cells <= 0
  // are then empty.
  bool log_colour = false;
  // Every row and column labelled, however many (a sentence's tokens); otherwise at most 16 of
  // each, evenly spaced (a probe's updates).
  bool label_every_cell = false;
};

struct LineSeries {
  std::string name;  // legend entry (may carry e.g. "R^2 = 0.98"); empty: no entry
  std::vector<double> x, y;
  // Set: a fit of the series with that name -- its colour, dashed, no markers; naming no series
  // (a reference line drawn across the data), a colour of its own, dashed.
  std::string fit_of;
  // Set (one per point; NaN: none): symmetric error bars, e.g. a 95 % interval's half-width.
  std::vector<double> err;
};

// Points joined by lines, with optional fitted curves (e.g. output shift vs depth).
struct LineFigure {
  std::string title;
  Axis x, y;
  std::vector<LineSeries> series;
  // false: curves of many points (a density on a grid), drawn as lines told apart by colour
  // and dash, without a marker on every point.
  bool markers = true;
};

struct BarSeries {
  std::string name;
  std::vector<double> values;  // one per group; NaN: no bar
  // Empty, or one per group: the half-width of an error bar around the value (NaN: none).
  std::vector<double> errors = {};
};

// Grouped bars: one group per label, one bar per series in each group.
// A dashed line across a bar figure at a value the bars are read against, with its legend
// entry: a fork sweep's parent's result, a baseline's.
struct BarReference {
  double value = 0;
  std::string label;  // e.g. "parent #12: 22.84"
};

struct BarFigure {
  std::string title;
  std::vector<std::string> groups;
  std::vector<BarSeries> series;
  std::string x_label;
  Axis y;
  std::string errors_are;  // what the error bars show, in the legend ("95 % CI of the mean")
  std::vector<BarReference> references;
};

// Where a member of a group stopped early (a diverged run): a marker in the group's colour.
struct MemberEnd {
  double x = 0, y = 0;
  std::string member;  // the member's label
};

// One training curve: a metric of one run against the x axis (the update step, target tokens
// or seconds since the run's start: CurveFigure::x_kind) -- or, for a group of runs
// (plot/curve_groups.h), the members' mean with a shaded band.
struct Curve {
  std::string label;                // legend entry, e.g. "12 admin-18L valid_loss"
  std::string metric;               // curves of the second, third... metric get other dash patterns
  std::vector<double> step, value;  // x and y; `step` holds whatever the x axis is
  std::optional<double> diverged_step;  // set: a marker where the run diverged (x units)
  // Set: the run is a fork (db/fork_tags.h) and left its parent here (x units): a diamond on
  // the line, which before it is the parent's.
  std::optional<double> fork_step;
  bool reference = false;  // a CurveQuery::references run's: drawn beside the selection
  // A run's curve of a spike metric (db::metric::is_spike_metric): its raw points judged spikes
  // (base/metrics/spikes.h), marked in its colour; x in the axis's units.
  std::vector<double> spike_x, spike_y;
  // A run page's milestones on the curve they were decided on (x units): the checkpoint the
  // final evaluation measured, the update where train.patience stopped training -- a hollow
  // triangle on the line.
  std::vector<double> milestone_x;
  // Set: the figure compares at a budget (CurveFigure::budget) and this run's value is read
  // here -- its last point inside the budget, which with sparse validations can lie well short
  // of the line: a square on the curve in its colour (x units, the raw value); a group's is the
  // mean of its members' readings, as a table cell's mean over seeds, off its mean line.
  std::optional<double> read_x, read_y;
  std::string colour_key;  // curves with the same key share a style; empty: own
  // >= 0: this curve's style (colour, marker, dash) by index, wherever it stands in the figure,
  // so a run keeps its look across charts, views and sessions (the dashboard passes its id).
  int style = -1;
  // A group's curve only: the band around the mean (empty: none), the members present at each
  // point, every member's label, diverged members' last points, and whether the mean ends
  // because fewer than half the members are left (a hollow marker at its last point).
  std::vector<double> band_lo, band_hi;
  std::vector<int> count;
  std::vector<std::string> members;
  std::vector<MemberEnd> ends;
  bool stopped_early = false;
};

// A comparison at an equal budget (experiments/value_at_budget.h) drawn on curves whose x axis
// is the budget's: a dashed vertical line at `x`, named `label` in the legend.
struct BudgetLine {
  double x = 0;
  std::string label;  // "compute <= 6e+14 FLOPs (within 2 %)"
};

struct CurveFigure {
  std::string title;
  std::vector<Curve> curves;
  double smoothing = 0;  // debiased EMA weight in [0, 1); 0 draws the raw values
  Axis x{"update", Scale::Linear, std::nullopt, std::nullopt}, y;
  std::string x_kind = "update";  // update | tokens | time (seconds; ticks read h:mm)
  std::string band;               // what group bands show: "std", "minmax" or "" (none)
  std::string spikes_are;         // the spike marks' legend entry (the rule that found them)
  std::optional<BudgetLine> budget;
};

using Figure = std::variant<Heatmap, LineFigure, BarFigure, CurveFigure>;

// "heatmap", "line", "bar" or "curves": the JSON "kind" field.
std::string kind_name(const Figure& figure);

// NaN is written as null (JSON has no NaN) and read back as NaN.
nlohmann::json to_json(const Figure& figure);
// Bad or missing fields throw fathom::InputError naming `source` and the field.
Figure figure_from_json(const nlohmann::json& j, const std::string& source = "<json>");
// Reads a figure JSON file.
Figure load_figure(const std::string& path);

}  // namespace fathom::plot
