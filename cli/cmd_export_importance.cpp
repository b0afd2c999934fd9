// `fathom export importance --sweep NAME [--metric valid_loss|diverged|...] [--value ...]
// [--at compute=F] [--where EXPR]`: how much of a metric's variance over a sweep's settings each
// swept axis and each pair of axes explain (experiments/hparam_importance.h: the functional ANOVA
// of the full grid), largest first, with the seeds' own spread beside it.
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "base/util/error.h"
#include "cli/commands.h"
#include "cli/export_output.h"
#include "cli/option_checks.h"
#include "db/metric_names.h"
#include "experiments/hparam_importance.h"
#include "experiments/value_at_budget.h"

namespace fathom::cli {
namespace {

struct ImportanceArgs {
  std::string sweep, metric = db::metric::kValidLoss, value = "final", format = "md", out, where,
                     at;
};

nlohmann::json importance_json(const experiments::HparamImportance& h) {
  nlohmann::json terms = nlohmann::json::array();
  const auto interval = [&](double lo, double hi) {
    return h.interval_draws > 0 ? nlohmann::json::array({lo, hi}) : nlohmann::json();
  };
  for (const auto& t : h.terms)
    terms.push_back({{"axes", t.axes},
                     {"variance", t.variance},
                     {"share", t.share},
                     {"share_ci95", interval(t.share_lo, t.share_hi)}});
  return {{"metric", h.metric},
          {"axes", h.axes},
          {"terms", terms},
          {"total_variance", h.total_variance},
          {"higher_order_share", h.higher_order_share},
          {"higher_order_ci95", interval(h.higher_order_lo, h.higher_order_hi)},
          {"interval_draws", h.interval_draws},
          {"seed_variance", h.seed_variance},
          {"cells", h.cells},
          {"runs", h.runs},
          {"filled_settings", h.filled},
          {"fit_r_squared", h.filled > 0 ? nlohmann::json(h.fit_r_squared) : nlohmann::json()},
          {"notes", h.notes}};
}

void export_importance(const ImportanceArgs& a, const GlobalOptions& global) {
  const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
  const auto h = experiments::load_hparam_importance(
      store, a.sweep, a.metric,
      experiments::run_reading_named(a.value, a.at, "fathom export importance"), a.where);
  std::string text;
  if (global.json) {
    text = importance_json(h).dump(2) + "\n";
  } else {
    text = experiments::format_text_table(experiments::hparam_importance_table(h), a.format);
    text = with_notes(std::move(text), h.notes, a.format);
  }
  write_export(text, a.out);
}

}  // namespace

void add_export_importance_command(CLI::App& export_cmd, GlobalOptions& global) {
  auto a = std::make_shared<ImportanceArgs>();
  CLI::App* cmd = export_cmd.add_subcommand(
      "importance",
      "How much of a metric's variance over a sweep's settings each swept axis and pair of "
      "axes explain (functional ANOVA of the full grid; seeds are replicates)");
  cmd->add_option("--sweep", a->sweep, "the sweep")->required();
  cmd->add_option("--metric", a->metric,
                  "a final metric (default valid_loss), or `diverged` (1 for a diverged run)")
      ->capture_default_str();
  CLI::Option* value =
      cmd->add_option("--value", a->value,
                      "each run's value: final (default: the best checkpoint's) | best | last")
          ->check(CLI::IsMember({"last", "final", "best"}));
  add_budget_option(cmd, a->at, value);
  cmd->add_option("--format", a->format, "md | csv | tex")
      ->check(CLI::IsMember({"md", "csv", "tex"}));
  cmd->add_option("--where", a->where, kWhereHelp);
  cmd->add_option("--out", a->out, "write to this file instead of stdout");
  cmd->callback([a, &global] { export_importance(*a, global); });
}

}  // namespace fathom::cli
