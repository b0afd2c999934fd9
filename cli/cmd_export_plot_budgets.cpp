// `fathom export plot budgets`: a metric against a numeric sweep axis (depth) at equal budgets,
// each line's best depth, and over three budgets or more how it grows with the budget
// (plot/budgets_figure.h, plot/scaling_figure.h; docs/plots.md).
#include "cli/export_plot_output.h"

#ifdef FATHOM_HAVE_PLOTS
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "base/util/error.h"
#include "db/store.h"
#include "experiments/value_at_budget.h"
#include "plot/budgets_figure.h"
#include "plot/budgets_json.h"
#include "plot/scaling_figure.h"

namespace fathom::cli {

// `budgets`: a metric against a numeric axis at one or more equal budgets (plot/budgets_figure.h).
void add_budgets(CLI::App* plot_cmd, GlobalOptions& global) {
  struct Args {
    plot::BudgetsQuery query;
    std::vector<std::string> at;
    OutputArgs output;
    std::string scaling_out;  // the best x against the budget (plot/scaling_figure.h)
    std::string agg = "mean";
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = plot_cmd->add_subcommand(
      "budgets",
      "A metric against a numeric sweep axis (depth) at equal budgets, a line per budget and "
      "row value, with 95 % intervals over seeds and each line's best x: the isoFLOP view; "
      "over three budgets or more, how each row's best x grows with the budget (its exponent)");
  cmd->add_option("--sweep", args->query.sweep, "the sweep")->required();
  cmd->add_option("--x", args->query.x, "a sweep axis with numeric values, e.g. model.layers")
      ->required();
  cmd->add_option("--rows", args->query.rows,
                  "a line per value of this axis (a+b: a zip group, the method); default one");
  cmd->add_option("--metric", args->query.metric, "a validation metric (default valid_loss)")
      ->capture_default_str();
  cmd->add_option("--at", args->at,
                  "a budget, repeated or comma-separated: compute=FLOPS, tokens=N, update=N "
                  "or AXIS=least (export table --at)")
      ->delimiter(',')
      ->required();
  cmd->add_option("--where", args->query.where, kWhereHelp);
  // A depth x learning-rate sweep: each depth at its best rate at the budget, as depth-scaling
  // studies compare (Dey et al. 2025 tune each), not pooled over rates.
  cmd->add_option("--agg", args->agg,
                  "several variants in a cell (e.g. learning rates): mean (pool them) | best "
                  "(each cell's best variant at the budget, chosen on --select-by)")
      ->check(CLI::IsMember({"mean", "best"}))
      ->capture_default_str();
  cmd->add_option("--select-by", args->query.select_by,
                  "with --agg best: the validation metric a cell's variant is chosen on, read at "
                  "the budget too (default valid_loss)")
      ->capture_default_str();
  cmd->add_option("--scaling-out", args->scaling_out,
                  "also draw each row's best x against the budget, log-log, with its fitted "
                  "power law (three budgets or more), to this file");
  add_output_options(cmd, args->output);
  cmd->callback([&global, args] {
    plot::format_for_path(args->output.out);
    if (!args->scaling_out.empty()) plot::format_for_path(args->scaling_out);
    args->query.agg = args->agg == "best" ? experiments::CellAgg::Best : experiments::CellAgg::Mean;
    for (const auto& text : args->at)
      args->query.budgets.push_back(experiments::parse_budget(text, "fathom export plot budgets"));
    const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
    const plot::BudgetsFigure made = plot::budgets_figure(store, args->query);
    if (!args->scaling_out.empty() && made.scalings.empty())
      throw InputError("fathom export plot budgets", 0, "--scaling-out",
                       "name three budgets or more of one axis in --at");
    const plot::Figure figure = made.figure;
    save_json({figure}, args->output.save_json);
    nlohmann::json written = nlohmann::json::array();
    write(figure, args->output.out, args->output, global, written);
    if (!args->scaling_out.empty()) {
      // No bracketed optimum is a finding, not an error: the optimum: lines say where each is.
      const plot::LineFigure scaling = plot::optimum_scaling_figure(made.scalings);
      if (!scaling.series.empty())
        write(scaling, args->scaling_out, args->output, global, written);
      else if (!global.json)
        std::cout << "not written: " << args->scaling_out
                  << " (no line's best x is bracketed at any budget)\n";
    }
    if (!global.json) {
      for (const auto& o : made.optima) std::cout << "optimum: " << o.text() << "\n";
      for (const auto& s : made.scalings) std::cout << "scaling: " << s.text() << "\n";
      for (const auto& note : made.notes) std::cout << "note: " << note << "\n";
    }
    report(global, written,
           {{"optima", plot::optima_json(made.optima)},
            {"scalings", plot::scalings_json(made.scalings)}});
  });
}

}  // namespace fathom::cli
#endif
