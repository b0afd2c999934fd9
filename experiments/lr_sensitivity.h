#pragma once
// Learning-rate sensitivity (Wortsman et al. 2023, "Small-scale proxies for large-scale
// Transformer training instabilities", arXiv 2309.14322, section 3.1): a method is judged by
// its whole loss-against-learning-rate curve, not by its loss at one rate. For a sweep with a
// learning-rate axis, one curve per setting of the other axes (method x depth): at each rate
// the mean over seeds of a loss, each run's value capped at its own loss at initialization l0
// (a diverged run counts as l0), and the curve's sensitivity over a range [a, b] of rates
//     E_{rate in [a, b]} [ min(l(rate), l0) - l* ],   l* = the curve's best loss in [a, b].
// The curves of one table or figure are averaged over ONE range, common to all of them (their
// rates' intersection, or one given): a curve with a run at a rate the others lack would
// otherwise be judged on more of its curve. The expectation weights each rate by its share of
// the range in log rate (sensitivity_over); a 95 % interval comes from resampling each
// rate's seeds (bootstrap_sensitivity).
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "db/store.h"
#include "experiments/comparison_table.h"
#include "experiments/text_table.h"

namespace fathom::experiments {

struct LrPoint {
  double lr = 0;
  double mean = 0;             // over the rate's seeds, each capped at its l0 (diverged: l0)
  double lo = 0, hi = 0;       // the seeds' range
  int seeds = 0;               // runs behind the mean
  int diverged = 0;            // of them, diverged (counted at l0)
  double loss0 = 0;            // the mean l0 of these runs (where a diverged run is drawn)
  double loss0_max = 0;        // the highest: no mean of the capped values can pass it
  std::vector<double> values;  // each run's capped value: what the interval resamples
};

struct LrCurve {
  // The other axes' values, e.g. "norm=pre, encoder_layers=18" (or "pre / xavier" when named
  // by a label, see lr_sensitivity); an axis with one value over the runs (e.g. the depth a
  // filter kept) is left out of every label unless named.
  std::string label;
  // The same axes as key -> value as written in the sweep (axis.KEY tags): what tells this
  // curve's runs from the others' (experiments/lr_grid_edges.h writes them into a sweep file).
  std::map<std::string, std::string> setting;
  std::vector<LrPoint> points;  // every rate, ascending
  // Over the table's range only. NaN when fewer than 2 of the curve's rates lie in it (one
  // point says nothing of how the loss moves with the rate) or the curve does not reach both
  // ends of a range given with --range.
  double sensitivity = 0;
  // The 95 % percentile bootstrap interval of `sensitivity`; NaN when it is, or when a rate in
  // the range has one seed (nothing to resample).
  double ci_lo = 0, ci_hi = 0;
  int in_range = 0;  // the curve's rates in the range
  // The curve's best (lowest) mean over all its rates, and where; l* of the sensitivity is the
  // best inside the range, which can differ.
  double best_lr = 0, best_loss = 0;
};

// Whether the curve's lowest mean is at its lowest or highest rate (two rates or more): its
// optimum may lie beyond its grid (experiments/lr_grid_edges.h writes the next rate).
bool best_at_an_end(const LrCurve& c);

struct LrSensitivity {
  std::string metric;  // a loss or perplexity: lower is better
  std::vector<LrCurve> curves;
  // The range the sensitivities are over; both 0 when the curves share no two rates.
  double range_lo = 0, range_hi = 0;
  std::vector<std::string> notes;  // how l0 was found, the range, what was left out
  // Of `notes`, those that name the runs a budget (--at) left out, for a caller that gathers
  // several sensitivities' (lr_transfer_of: one per depth).
  std::vector<std::string> budget_notes;
};

// The learning-rate key of a sweep.
inline constexpr const char* kLrKey = "train.lr";

// Resamples behind each interval, and the generator's seed: the same table every time.
inline constexpr int kLrBootstrapResamples = 2000;
inline constexpr unsigned long long kLrBootstrapSeed = 20230914;  // the paper's arXiv date

// Sum_i w_i (loss_i - min loss) / Sum_i w_i over points sorted by rate, w_i the point's cell
// in log rate: from the midpoint to its left neighbour to the midpoint to its right one, the
// end cells as wide as their one neighbour's gap (w_0 = x_1 - x_0, x = ln rate). On an evenly
// spaced grid every w_i is equal and this is Wortsman et al.'s plain mean over the rates; on an
// uneven one (a second grid adding one rate close to another) each rate counts for the part
// of the log-rate range it stands for. Cells rather than the trapezoid rule: the trapezoid
// halves the end rates' weight, so it would differ from the paper's mean even on its own even
// grids. NaN for fewer than 2 points. InputError (field --range) for a rate <= 0 or repeated.
double sensitivity_over(const std::vector<double>& rates, const std::vector<double>& losses);

// The 95 % interval of sensitivity_over from `resamples` bootstrap draws, each drawing every
// rate's values (seeds) with replacement, independently across rates (runs at different rates
// are separate trainings); `values[i]` are rate i's. Each drawn mean is rescaled about its
// rate's mean by sqrt(n / (n - 1)) and the ends are the expanded percentile's for the rates'
// pooled degrees of freedom (base/metrics/statistics.h; 12 at six rates of three seeds: the
// 1.47 % and 98.53 % points): the plain 2.5 % and 97.5 % held a known curve's sensitivity in
// 80-85 % of curves at three seeds a rate, these in 89-92 % (bench_seed_bootstrap_coverage).
// A rescaled mean is kept at or below `caps[i]` where given (rate i's highest l0: its values are
// capped at their runs' l0, so their mean cannot pass it; rescaling would carry a rate whose
// seeds mostly diverged past it). Deterministic in `seed`.
std::pair<double, double> bootstrap_sensitivity(const std::vector<double>& rates,
                                                const std::vector<std::vector<double>>& values,
                                                int resamples = kLrBootstrapResamples,
                                                unsigned long long seed = kLrBootstrapSeed,
                                                const std::vector<double>& caps = {});

// "LO:HI" (--range), two rates 0 < LO < HI; InputError (field --range) otherwise.
std::pair<double, double> parse_lr_range(const std::string& text);

// From table runs (axes, status, metric: the final or best-of-run value). `loss0` gives each
// run's l0 (nullopt: unknown, the run is left out). InputError (field --metric / --sweep) when
// the metric is not a loss, or the runs have no learning-rate axis of two or more values.
// `label`: "a+b+c" (the table's --rows syntax) names each curve by those axes' values,
// "va / vb / vc", then any other axis that tells curves apart as key=value ("post / xavier,
// encoder_layers=18"); empty: every such axis as key=value. InputError (field --label) for a
// key that is no axis of the runs. `range`: the rates to average over; nullopt: the
// intersection of the curves' (of two or more rates) ranges.
LrSensitivity lr_sensitivity(const std::vector<TableRun>& runs, const std::string& metric,
                             const std::function<std::optional<double>(int64_t)>& loss0,
                             const std::string& label = "",
                             std::optional<std::pair<double, double>> range = std::nullopt);

// A stored sweep: each run's `value` of `metric` (comparison_table.h) -- by default its last
// logged point, the loss at the end of training as Wortsman et al. take it; its final metric
// is the best checkpoint's, which hides a run that trained, then blew up (a point that is not
// finite counts as l0). Each run's l0 is its validation loss before the first update (the
// valid_* form of the metric at update 0, which the trainer logs); a run recorded before that
// takes its first logged training loss (the train_* form's first point: the mean over the
// first log window, below the loss at initialization by what those updates learnt), and a
// note counts which. At a budget (value.at) each run's last point inside it instead
// (value_at_budget.h: every rate is cut at the same budget), runs short of it left out and
// named. `where`: only the runs this filter expression keeps
// (experiments/sweep_runs.h), e.g. one depth; a note says which. `range`: "LO:HI" or "".
LrSensitivity load_lr_sensitivity(const db::Store& store, const std::string& sweep,
                                  const std::string& metric, RunReading value = RunValue::Last,
                                  const std::string& where = "", const std::string& label = "",
                                  const std::string& range = "");
// The same of runs already selected (a report's one selection; see hparam_importance_of).
LrSensitivity lr_sensitivity_of(const db::Store& store, const SweepRuns& selected,
                                const std::string& metric, RunReading value = RunValue::Last,
                                const std::string& label = "", const std::string& range = "");

// One row per curve: its sensitivity and interval, best rate ("(an end)" where best_at_an_end)
// and loss, its rates in the range, and the rates where seeds diverged.
TextTable lr_sensitivity_table(const LrSensitivity& s);

}  // namespace fathom::experiments
