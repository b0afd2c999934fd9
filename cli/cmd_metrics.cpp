// `fathom metrics [NAME ...]`: how each metric a run records is presented -- shown by default,
// smoothed, log axis, unit, which way is better, its group -- from the one table the dashboard,
// reports and tables read (db/metric_presentation.h). With names: each name as it resolves (its
// own row, its family's, else by its parts). `--json` is what the Python package ships as
// python/fathom/metric_presentation.json (scripts/check/metric-table.sh keeps it current).
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "db/metric_presentation.h"

namespace fathom::cli {
namespace {

nlohmann::json presentation_json(const std::string& name, const db::metric::MetricPresentation& p) {
  nlohmann::json better = nullptr;
  if (p.higher_is_better) better = *p.higher_is_better;
  return {{"name", name},
          {"shown", p.shown},
          {"smoothed", p.smoothed},
          {"log_axis", p.log_axis},
          {"unit", p.unit},
          {"higher_is_better", better},
          {"group", db::metric::metric_group(name)}};
}

std::string better_text(const db::metric::MetricPresentation& p) {
  if (!p.higher_is_better) return "";
  return *p.higher_is_better ? "higher" : "lower";
}

void run_metrics(const GlobalOptions& global, const std::vector<std::string>& names) {
  nlohmann::json rows = nlohmann::json::array();
  if (names.empty()) {
    for (const auto& row : db::metric::presented_metrics())
      rows.push_back(presentation_json(row.name, row.presentation));
  } else {
    for (const auto& name : names)
      rows.push_back(presentation_json(name, db::metric::presentation_of(name)));
  }
  if (global.json) {
    std::cout << rows.dump(2) << "\n";
    return;
  }
  std::cout << "| metric | shown | smoothed | axis | unit | better | group |\n"
               "| --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& r : rows) {
    const std::string name = r["name"];
    const auto p = db::metric::presentation_of(name);
    // A family row ("gradnorm.") covers every name it starts.
    const std::string shown_name = name.back() == '.' ? name + "*" : name;
    std::cout << "| `" << shown_name << "` | " << (p.shown ? "yes" : "no") << " | "
              << (p.smoothed ? "yes" : "no") << " | " << (p.log_axis ? "log" : "linear") << " | "
              << p.unit << " | " << better_text(p) << " | " << r["group"].get<std::string>()
              << " |\n";
  }
}

}  // namespace

void add_metrics_command(CLI::App& app, GlobalOptions& options) {
  auto names = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand(
      "metrics",
      "How each metric is presented (shown, smoothed, log axis, unit, which way is better): "
      "the table, or NAMEs as they resolve");
  cmd->add_option("names", *names, "metric names (default: every row of the table)");
  cmd->callback([&options, names] { run_metrics(options, *names); });
}

}  // namespace fathom::cli
