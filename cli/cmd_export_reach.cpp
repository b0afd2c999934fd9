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
#include "experiments/reach_text.h"

namespace fathom::cli {
namespace {

struct ReachArgs {
  std::string sweep, rows, cols, metric, where, direction = "auto", out;
  double target = NAN;
  bool fit = false;
};

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

void export_reach(const ReachArgs& a, const GlobalOptions& global) {
  experiments::ReachOptions o;
  o.rows = a.rows;
  o.cols = a.cols;
  o.metric = a.metric;
  o.target = a.target;
  o.where = a.where;
  if (a.direction != "auto") o.lower_is_better = a.direction == "min";
  const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
  const experiments::ReachTable t = experiments::reach_table(store, a.sweep, o);
  const auto fit = a.fit ? experiments::fit_best_cells(t) : std::nullopt;
  const auto b_simple = experiments::best_cells_b_simple(t);
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
                  {"b_simple", b_simple ? nlohmann::json(*b_simple) : nlohmann::json()}};
    text = j.dump(2) + "\n";
  } else {
    text = experiments::reach_markdown(t, o);
    if (a.fit) text += "\n" + experiments::critical_batch_text(fit, b_simple);
  }
  write_export(text, a.out);
}

}  // namespace

void add_export_reach_command(CLI::App& export_cmd, GlobalOptions& global) {
  auto a = std::make_shared<ReachArgs>();
  CLI::App* cmd = export_cmd.add_subcommand(
      "reach", "Updates and tokens each cell's runs took to first reach a value of a curve");
  cmd->add_option("--sweep", a->sweep, "sweep name")->required();
  cmd->add_option("--metric", a->metric, "a curve: valid_loss, valid_ppl, valid_bleu, ...")
      ->required();
  cmd->add_option("--target", a->target, "the value to reach, e.g. 2.0")->required();
  cmd->add_option("--rows", a->rows, "axis of the rows, e.g. data.max_tokens")->required();
  cmd->add_option("--cols", a->cols, "axis of the columns, e.g. train.lr (default: one column)");
  cmd->add_option("--direction", a->direction,
                  "reached at or below (min) or at or above (max) the target; auto: the "
                  "metric's own direction (loss/ppl down, BLEU up)")
      ->check(CLI::IsMember({"auto", "max", "min"}));
  cmd->add_flag("--fit-critical-batch", a->fit,
                "fit S = S_min (1 + B_crit / B) to the rows' best cells, B their target tokens "
                "per update (McCandlish et al. 2018): the critical batch B_crit");
  cmd->add_option("--where", a->where, kWhereHelp);
  cmd->add_option("--out", a->out, "write to this file instead of stdout");
  cmd->callback([a, &global] { export_reach(*a, global); });
}

}  // namespace fathom::cli
