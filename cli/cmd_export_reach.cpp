// `fathom export reach --sweep NAME --metric M --target X --rows AXIS [--cols AXIS]
// [--fit-critical-batch]`: the updates and tokens each cell's runs took to first reach a value
// of a curve, the best cell of each row, and with the batch as the row axis McCandlish et al.'s
// critical batch fitted to the rows' best cells (experiments/time_to_target.h; docs/sweeps.md).
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "base/util/json_number.h"
#include "cli/commands.h"
#include "cli/export_output.h"
#include "cli/reach_args.h"
#include "experiments/reach_text.h"

namespace fathom::cli {
namespace {

nlohmann::json cell_json(const experiments::ReachCell& c) {
  return {{"row", c.row},
          {"col", c.col},
          {"runs", c.runs},
          {"reached", c.reached},
          {"updates", number_or_null(c.updates)},
          {"updates_ci95", number_or_null(c.updates_ci95)},
          {"tokens", number_or_null(c.tokens)},
          {"tokens_ci95", number_or_null(c.tokens_ci95)},
          {"tokens_per_update", number_or_null(c.tokens_per_update)},
          {"b_simple", number_or_null(c.b_simple)},
          {"b_simple_runs", c.b_simple_runs}};
}

// An interval's end: null where not drawn, "inf" where unbounded (JSON has no infinity).
nlohmann::json bound_json(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return number_or_null(v);
}

void export_reach(const ReachArgs& a, const std::string& out, const GlobalOptions& global) {
  const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
  const auto [t, fit, b_simple] = read_reach(store, a);
  std::string text;
  if (global.json) {
    nlohmann::json j{{"metric", a.metric}, {"target", a.target}, {"notes", t.notes}};
    j["cells"] = nlohmann::json::array();
    for (const auto& c : t.cells) j["cells"].push_back(cell_json(c));
    j["best"] = t.best;
    if (fit)
      j["fit"] = {{"s_min", fit->s_min},
                  {"b_crit", fit->b_crit},
                  {"r2", fit->r2},
                  {"points", fit->points},
                  {"diminishing", fit->diminishing},
                  {"b_simple", b_simple ? nlohmann::json(*b_simple) : nlohmann::json()},
                  // 95 % bootstrap intervals (experiments/critical_batch_interval.h); an end
                  // the draws leave unbounded is "inf".
                  {"b_crit_ci95", {bound_json(fit->b_crit_lo), bound_json(fit->b_crit_hi)}},
                  {"ratio_ci95", {bound_json(fit->ratio_lo), bound_json(fit->ratio_hi)}},
                  {"draws", fit->draws},
                  {"unfit_draws", fit->unfit},
                  {"ratio_draws", fit->ratio_draws},
                  {"interval_df", fit->interval_df},
                  {"best_kept", number_or_null(fit->best_kept)}};
    text = j.dump(2) + "\n";
  } else {
    text = experiments::reach_markdown(t, reach_options(a));
    if (a.fit) text += "\n" + experiments::critical_batch_text(fit, b_simple);
  }
  write_export(text, out);
}

}  // namespace

void add_export_reach_command(CLI::App& export_cmd, GlobalOptions& global) {
  struct Args {
    ReachArgs reach;
    std::string out;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = export_cmd.add_subcommand(
      "reach", "Updates and tokens each cell's runs took to first reach a value of a curve");
  add_reach_options(cmd, a->reach);
  cmd->add_option("--out", a->out, "write to this file instead of stdout");
  cmd->callback([a, &global] { export_reach(a->reach, a->out, global); });
}

}  // namespace fathom::cli
