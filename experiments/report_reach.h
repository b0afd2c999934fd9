#pragma once
// The sweep report's "Time to a target" section (`fathom report --reach METRIC=VALUE`): the
// updates and tokens each cell of the report's layout took to first reach the value
// (experiments/time_to_target.h, as `fathom export reach` tables it), and with
// `--fit-critical-batch` the critical batch over the rows' best cells. A sweep no table can be
// made of says why in one line.
#include <functional>
#include <optional>
#include <ostream>
#include <string>

#include "db/store.h"
#include "experiments/sweep_runs.h"
#include "experiments/time_to_target.h"

namespace fathom::experiments {

struct ReachRequest {
  std::string metric;  // a curve: valid_loss, valid_bleu, ...
  double target = 0;
  bool fit_critical_batch = false;
};

// "valid_loss=2.0" -> {valid_loss, 2.0}; InputError (`fathom report`, --reach) otherwise.
ReachRequest reach_request(const std::string& text);

// Draws the table's figure (plot/reach_figure.h) with the fit, where asked, and the best cells'
// B_simple into the report's folder as `<stem>.png`; returns that file name, or "" where figures
// are not available. Null: no figure.
struct ReachFigureRequest {
  const ReachTable& table;
  const ReachOptions& options;
  std::optional<CriticalBatchFit> fit;
  std::optional<double> b_simple;
  std::string file_stem;  // "reach-valid_loss"
};
using ReachRenderer = std::function<std::string(const ReachFigureRequest&)>;

// `selected`: the report's runs; `rows`, `cols`: its tables' layout.
void reach_section(std::ostream& out, const db::Store& store, const std::string& sweep,
                   const SweepRuns& selected, const std::string& rows, const std::string& cols,
                   const ReachRequest& request, const ReachRenderer& render = nullptr);

}  // namespace fathom::experiments
