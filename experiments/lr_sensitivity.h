#pragma once
// Learning-rate sensitivity (Wortsman et al. 2023, "Small-scale proxies for large-scale
// Transformer training instabilities", arXiv 2309.14322): a method is judged by its whole
// loss-against-learning-rate curve, not by its loss at one rate. For a sweep with a
// learning-rate axis, one curve per setting of the other axes (method x depth): at each rate
// the mean over seeds of a loss, each run's value capped at the loss at initialization l0
// (a diverged run counts as l0), and the curve's sensitivity
//     mean over its rates of  min(l(rate), l0) - l*,   l* = the curve's best (lowest) loss.
// l0 is the loss of a uniform prediction over the run's vocabulary, ln V (V for a
// perplexity): an initialized model predicts nearly uniformly, and a uniform prediction's
// cross-entropy is ln V against any target, label-smoothed or not.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "db/store.h"
#include "experiments/comparison_table.h"
#include "experiments/text_table.h"

namespace fathom::experiments {

struct LrPoint {
  double lr = 0;
  double mean = 0;        // over the rate's seeds, each capped at l0 (diverged: l0)
  double lo = 0, hi = 0;  // the seeds' range
  int seeds = 0;          // runs behind the mean
  int diverged = 0;       // of them, diverged (counted at l0)
  double loss0 = 0;       // l0 of these runs
};

struct LrCurve {
  // The other axes' values, e.g. "norm=pre, encoder_layers=18" (or "pre / xavier" when named
  // by a label, see lr_sensitivity); an axis with one value over the runs (e.g. the depth a
  // filter kept) is left out of every label unless named.
  std::string label;
  std::vector<LrPoint> points;  // by rate, ascending
  // NaN with fewer than 2 rates: one point says nothing of how the loss moves with the rate
  // (a sweep still running, or a setting whose other rates all failed).
  double sensitivity = 0;
  double best_lr = 0, best_loss = 0;  // l* and where
};

struct LrSensitivity {
  std::string metric;  // a loss or perplexity: lower is better
  std::vector<LrCurve> curves;
  std::vector<std::string> notes;  // how l0 was found, what was left out
};

// The learning-rate key and the seed key of a sweep.
inline constexpr const char* kLrKey = "train.lr";

// From table runs (axes, status, metric: the final or best-of-run value). `loss0` gives each
// run's l0 (nullopt: unknown). InputError (field --metric / --sweep) when the metric is not a
// loss, or the runs have no learning-rate axis of two or more values.
// `label`: "a+b+c" (the table's --rows syntax) names each curve by those axes' values,
// "va / vb / vc", then any other axis that tells curves apart as key=value ("post / xavier,
// encoder_layers=18"); empty: every such axis as key=value. InputError (field --label) for a
// key that is no axis of the runs.
LrSensitivity lr_sensitivity(const std::vector<TableRun>& runs, const std::string& metric,
                             const std::function<std::optional<double>(int64_t)>& loss0,
                             const std::string& label = "");

// A stored sweep: each run's `value` of `metric` (comparison_table.h) -- by default its last
// logged point, the loss at the end of training as Wortsman et al. take it; its final metric
// is the best checkpoint's, which hides a run that trained, then blew up (a point that is not
// finite counts as l0). l0 from each run's tag vocab.size; runs recorded before that tag take
// the largest finite value of the metric in the sweep, and a note says so. `where`: only the
// runs this filter expression keeps (experiments/sweep_runs.h), e.g. one depth; a note says
// which.
LrSensitivity load_lr_sensitivity(const db::Store& store, const std::string& sweep,
                                  const std::string& metric, RunValue value = RunValue::Last,
                                  const std::string& where = "", const std::string& label = "");

// One row per curve: its sensitivity, best rate and loss, and the rates where seeds diverged.
TextTable lr_sensitivity_table(const LrSensitivity& s);

}  // namespace fathom::experiments
