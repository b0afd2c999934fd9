// `fathom export plot reach`: updates to a target against the batch on log-log axes, a line per
// column, each row's best cell and with --fit-critical-batch McCandlish et al.'s model over them
// (plot/reach_figure.h); the same options as `fathom export reach`, which tables it.
#include "cli/export_plot_output.h"

#ifdef FATHOM_HAVE_PLOTS
#include <iostream>
#include <memory>

#include "cli/reach_args.h"
#include "plot/reach_figure.h"

namespace fathom::cli {

void add_reach_plot(CLI::App* plot_cmd, GlobalOptions& global) {
  struct Args {
    ReachArgs reach;
    OutputArgs output;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = plot_cmd->add_subcommand(
      "reach",
      "Updates each cell's runs took to first reach a value against the batch (log-log), a line "
      "per column with 95 % intervals, each row's best cell and the critical-batch fit");
  add_reach_options(cmd, args->reach);
  add_output_options(cmd, args->output);
  cmd->callback([&global, args] {
    plot::format_for_path(args->output.out);
    const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
    const ReachResult r = read_reach(store, args->reach);
    const plot::Figure figure =
        plot::reach_figure(r.table, reach_options(args->reach), r.fit, r.b_simple);
    save_json({figure}, args->output.save_json);
    nlohmann::json written = nlohmann::json::array();
    write(figure, args->output.out, args->output, global, written);
    if (!global.json) {
      for (const auto& note : r.table.notes) std::cout << "note: " << note << "\n";
      if (args->reach.fit) std::cout << experiments::critical_batch_text(r.fit, r.b_simple);
    }
    report(global, written);
  });
}

}  // namespace fathom::cli
#endif
