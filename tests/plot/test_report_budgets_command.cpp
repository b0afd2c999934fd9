// The `fathom export plot budgets` commands a report prints under a table at equal compute
// (experiments/report_budget.h) draw what the report says: run as printed, they give the same
// best depth and the same exponent -- the same runs (--sweep, --where) at the same budget,
// found again from `compute=least` with its slack rather than printed as a number.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "db/store.h"
#include "experiments/report.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/temp_dir.h"

namespace test_report_budgets_command {
using namespace fathom;

// `fathom export plot ARGS...` parsed and run; what it printed.
std::string export_plot(cli::GlobalOptions& options, std::vector<std::string> args) {
  CLI::App app{"test"};
  CLI::App* export_cmd = app.add_subcommand("export");
  cli::add_export_plot_command(*export_cmd, options);
  args.insert(args.begin(), {"export", "plot"});
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses it reversed
  ::testing::internal::CaptureStdout();
  app.parse(reversed);
  return ::testing::internal::GetCapturedStdout();
}

// A printed command's words after `fathom export plot`: split at spaces, single quotes kept
// together.
std::vector<std::string> words_after_export_plot(const std::string& command) {
  std::vector<std::string> words;
  std::string word;
  bool quoted = false, any = false;
  for (char c : command) {
    if (c == '\'') {
      quoted = !quoted;
      any = true;
    } else if (c == ' ' && !quoted) {
      if (any) words.push_back(word);
      word.clear();
      any = false;
    } else {
      word += c;
      any = true;
    }
  }
  if (any) words.push_back(word);
  EXPECT_GE(words.size(), 3u);
  EXPECT_EQ(words[0] + " " + words[1] + " " + words[2], "fathom export plot");
  return {words.begin() + 3, words.end()};
}

// Depths 2, 4 and 8 with the pre norm, two seeds each, a validation every 10 updates, costing
// 1e12 x depth FLOPs an update (the 2-layer model's second seed 1 % more): the cheapest run's
// whole training is 6e14. A run's valid_ppl is its target x 6e14 / (FLOPs so far), so at 6e14
// the depths read 10, 8 and ~9.6 (their last validation inside it) -- best near 4 layers; the
// dearer 2-layer seed reads its last validation only within the budget's 2 % slack. The same
// depths with the post norm cost half as much: left out by --where, they would halve it.
void write_sweep(const std::string& db) {
  auto store = db::Store::open(db);
  const double targets[3] = {10, 8, 9};
  for (const std::string norm : {"pre", "post"})
    for (int i = 0; i < 3; ++i)
      for (int seed = 1; seed <= 2; ++seed) {
        const int layers = 2 << i;
        db::NewRun n;
        n.name = "depth/" + norm + std::to_string(layers) + "-" + std::to_string(seed);
        n.sweep = "depth";
        n.config_json = R"({"model": {"norm": ")" + norm + "\"}}";
        const int64_t id = store.create_run(n);
        store.set_tag(id, "axis.model.norm", norm);
        store.set_tag(id, "axis.model.layers", std::to_string(layers));
        store.set_tag(id, "axis.train.seed", std::to_string(seed));
        const double per_update =
            1e12 * layers * (norm == "post" ? 0.5 : 1.0) * (layers == 2 && seed == 2 ? 1.01 : 1.0);
        std::vector<db::MetricRow> rows;
        double ppl = 0;
        for (int step = 10; step <= 300; step += 10) {
          const double flops = per_update * step;
          ppl = targets[i] * 6e14 / flops + 0.05 * seed;
          rows.emplace_back(step, db::metric::kValidPpl, ppl, 0.0);
          rows.emplace_back(step, db::metric::kTrainFlops, flops, 0.0);
        }
        store.write_metrics(id, rows);
        store.set_final_metric(id, db::metric::kValidPpl, ppl);
        store.set_final_metric(id, db::metric::kTrainTokens, 3e5);
        store.set_final_metric(id, db::metric::kTrainFlops, per_update * 300);
        store.finish_run(id, "finished");
      }
}

// The backquoted command in `section` and the first "- " line after it.
std::pair<std::string, std::string> command_and_finding(const std::string& section) {
  const auto start = section.find("(`") + 2;
  const auto end = section.find("` draws it", start);
  const auto item = section.find("\n- ", end) + 3;
  return {section.substr(start, end - start),
          section.substr(item, section.find('\n', item) - item)};
}

TEST(ReportBudgetsCommand, RunAsPrintedItSaysWhatTheReportSays) {
  const fathom::testing::TempDir scratch;
  cli::GlobalOptions options;
  options.db = scratch.file("runs.db");
  write_sweep(options.db);
  std::string text;
  {
    const auto store = db::Store::open(options.db, db::OpenMode::ReadOnly);
    experiments::ReportOptions report;
    report.out_dir = scratch.file("report");
    report.where = "model.norm=pre";
    text = fathom::testing::read_text(experiments::write_report(store, "depth", report));
  }
  const auto best = text.find("Best layers at this budget");
  const auto growth = text.find("How the best layers grows with compute");
  ASSERT_NE(best, std::string::npos) << text;
  ASSERT_NE(growth, std::string::npos) << text;

  const auto [best_command, best_found] = command_and_finding(text.substr(best));
  EXPECT_NE(best_command.find("--sweep depth --where model.norm=pre "), std::string::npos);
  EXPECT_NE(best_command.find(" --at compute=least"), std::string::npos) << best_command;
  EXPECT_NE(best_found.find("best layers "), std::string::npos) << best_found;
  std::vector<std::string> args = words_after_export_plot(best_command);
  args.insert(args.end(), {"--out", scratch.file("best.png")});
  // The report names its one line by the metric, the figure by the budget: the rest is equal.
  const std::string finding = best_found.substr(best_found.find(": ") + 2);
  const std::string said = export_plot(options, args);
  EXPECT_NE(said.find(" FLOPs (within 2 %): " + finding + "\n"), std::string::npos)
      << finding << "\n"
      << said;

  auto [growth_command, growth_found] = command_and_finding(text.substr(growth));
  EXPECT_NE(growth_command.find(" --at compute=1.5e+14,compute=3e+14,compute=least "),
            std::string::npos)
      << growth_command;
  growth_command.replace(growth_command.find(" FILE"), 5, " " + scratch.file("scaling.png"));
  args = words_after_export_plot(growth_command);
  args.insert(args.end(), {"--out", scratch.file("budgets.png")});
  EXPECT_NE(export_plot(options, args).find("scaling: " + growth_found + "\n"), std::string::npos)
      << growth_found;
}

}  // namespace test_report_budgets_command
