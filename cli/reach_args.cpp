#include "cli/reach_args.h"

#include "cli/commands.h"

namespace fathom::cli {

void add_reach_options(CLI::App* cmd, ReachArgs& a) {
  cmd->add_option("--sweep", a.sweep, "sweep name")->required();
  cmd->add_option("--metric", a.metric, "a curve: valid_loss, valid_ppl, valid_bleu, ...")
      ->required();
  cmd->add_option("--target", a.target, "the value to reach, e.g. 2.0")->required();
  cmd->add_option("--rows", a.rows, "axis of the rows, e.g. data.max_tokens")->required();
  cmd->add_option("--cols", a.cols, "axis of the columns, e.g. train.lr (default: one column)");
  cmd->add_option("--direction", a.direction,
                  "reached at or below (min) or at or above (max) the target; auto: the "
                  "metric's own direction (loss/ppl down, BLEU up)")
      ->check(CLI::IsMember({"auto", "max", "min"}));
  cmd->add_flag("--fit-critical-batch", a.fit,
                "fit S = S_min (1 + B_crit / B) to the rows' best cells, B their target tokens "
                "per update (McCandlish et al. 2018): the critical batch B_crit");
  cmd->add_option("--where", a.where, kWhereHelp);
}

experiments::ReachOptions reach_options(const ReachArgs& a) {
  experiments::ReachOptions o;
  o.rows = a.rows;
  o.cols = a.cols;
  o.metric = a.metric;
  o.target = a.target;
  o.where = a.where;
  if (a.direction != "auto") o.lower_is_better = a.direction == "min";
  return o;
}

ReachResult read_reach(const db::Store& store, const ReachArgs& a) {
  ReachResult r;
  r.table = experiments::reach_table(store, a.sweep, reach_options(a));
  if (a.fit) r.fit = experiments::fit_best_cells(r.table);
  r.b_simple = experiments::best_cells_b_simple(r.table);
  return r;
}

}  // namespace fathom::cli
