// `fathom export noise-scale RUN [--pool K]`: the gradient noise scale the trainer logged
// (train.noise_scale), window by window or K windows pooled, with each one's >= 95 % interval
// (experiments/noise_scale_curve.h; docs/analyses.md).
#include <cmath>
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "base/util/json_number.h"
#include "cli/commands.h"
#include "cli/export_output.h"
#include "experiments/noise_scale_curve.h"
#include "experiments/report_numbers.h"

namespace fathom::cli {
namespace {

struct NoiseArgs {
  std::string run, out;
  int pool = 1;
};

nlohmann::json point_json(const experiments::NoiseScalePoint& p) {
  const NoiseScaleEstimate& e = p.estimate;
  return {{"first_update", p.first_update},
          {"last_update", p.last_update},
          {"readings", p.window.updates},
          {"b_simple", number_or_null(e.b_simple)},
          {"b_low", number_or_null(e.b_low)},
          {"b_high", number_or_null(e.b_high)},
          {"resolved", e.resolved},
          {"trace", e.trace},
          {"trace_se", number_or_null(e.trace_se)},
          {"grad_sq", e.grad_sq},
          {"grad_sq_se", number_or_null(e.grad_sq_se)},
          {"train_loss", p.train_loss ? nlohmann::json(*p.train_loss) : nlohmann::json()}};
}

void export_noise_scale(const NoiseArgs& a, const GlobalOptions& global) {
  const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
  const db::RunRecord run = named_run(store, a.run);
  const auto points = experiments::noise_scale_curve(store, run.id, a.pool);
  std::string text;
  if (global.json) {
    nlohmann::json j{{"run", run.id}, {"pool", a.pool}, {"points", nlohmann::json::array()}};
    for (const auto& p : points) j["points"].push_back(point_json(p));
    text = j.dump(2) + "\n";
  } else {
    text =
        "| updates | readings | train loss | B_simple (target tokens) | >= 95 % interval | "
        "tr(Sigma) ± se | \\|G\\|² ± se |\n|---|---:|---:|---:|---|---:|---:|\n";
    for (const auto& p : points) {
      const NoiseScaleEstimate& e = p.estimate;
      text += "| " + std::to_string(p.first_update) + "-" + std::to_string(p.last_update) + " | " +
              std::to_string(p.window.updates) + " | " +
              (p.train_loss ? experiments::cell_number(*p.train_loss, "%.3f") : "-") + " | " +
              experiments::cell_number(e.b_simple, "%.1f") + " | [" +
              experiments::cell_number(e.b_low, "%.1f") + ", " +
              (e.resolved ? experiments::cell_number(e.b_high, "%.1f") + "]" : "inf)") + " | " +
              experiments::cell_number(e.trace) + " ± " + experiments::cell_number(e.trace_se) +
              " | " + experiments::cell_number(e.grad_sq) + " ± " +
              experiments::cell_number(e.grad_sq_se) + " |\n";
    }
    text += "\n*run " + std::to_string(run.id) + ", " +
            (a.pool == 1 ? std::string("each log window")
                         : std::to_string(a.pool) + " log windows pooled") +
            ": the means of the per-update estimates (McCandlish et al. 2018, appendix A.1); "
            "B_simple '-' where |G|²'s mean is not positive, the interval open (inf) where its "
            "lower end is*\n";
  }
  write_export(text, a.out);
}

}  // namespace

void add_export_noise_scale_command(CLI::App& export_cmd, GlobalOptions& global) {
  auto a = std::make_shared<NoiseArgs>();
  CLI::App* cmd = export_cmd.add_subcommand(
      "noise-scale", "The gradient noise scale a run logged in training (train.noise_scale)");
  cmd->add_option("run", a->run, "run id, or name (the latest run with that name)")->required();
  cmd->add_option("--pool", a->pool,
                  "pool this many consecutive log windows into one estimate (a tighter "
                  "interval, a coarser curve)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--out", a->out, "write to this file instead of stdout");
  cmd->callback([a, &global] { export_noise_scale(*a, global); });
}

}  // namespace fathom::cli
