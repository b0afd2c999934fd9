// `fathom export plot
// curves|figure|analysis|lr-sensitivity|lr-transfer|parallel|probe|importance|budgets|reach`:
// publication figures (PNG, PDF, SVG) of training curves from the store, of any figure JSON, and of
// `fathom analyze` results (docs/plots.md). Qt stays behind plot/export.h, so this file builds like
// any other command.
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/util/error.h"
#include "cli/commands.h"
#include "cli/export_plot_output.h"
#include "cli/option_checks.h"

#ifdef FATHOM_HAVE_PLOTS
#include "db/metric_names.h"
#include "db/store.h"
#include "experiments/hparam_importance.h"
#include "experiments/lr_sensitivity.h"
#include "experiments/value_at_budget.h"
#include "plot/analysis_figures.h"
#include "plot/analysis_kinds.h"
#include "plot/export.h"
#include "plot/importance_figure.h"
#include "plot/lr_sensitivity_figure.h"
#include "plot/lr_transfer_figure.h"
#include "plot/parallel_coordinates.h"
#include "plot/probe_figures.h"
#include "plot/store_curves.h"
#endif

namespace fathom::cli {

#ifdef FATHOM_HAVE_PLOTS
namespace {

struct CurvesArgs {
  OutputArgs output;
  std::vector<int64_t> runs;
  std::string sweep;
  std::vector<int64_t> references;
  std::vector<std::string> metrics;
  double smooth = 0;
  bool logy = false;
  std::string colour_by;
  std::vector<std::string> group_by;
  std::string band = "std";
  std::string x = "update";
  bool x_given = false;
  std::string at;
  SpikeRule spikes;
  bool no_spikes = false;
};

void run_curves(const GlobalOptions& global, const CurvesArgs& args) {
  if (args.runs.empty() == args.sweep.empty())
    throw InputError("", 0, "--runs", "name the runs: either --runs ID,ID,... or --sweep NAME");
  plot::format_for_path(args.output.out);  // fail on a bad extension before reading the store
  plot::parse_size(args.output.size);
  if (!args.group_by.empty() && !args.colour_by.empty())
    throw InputError("", 0, "--group-by", "--group-by colours by group; leave out --colour-by");
  auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
  plot::CurveQuery query;
  query.runs = args.runs;
  query.sweep = args.sweep;
  query.references = args.references;
  query.metrics = args.metrics;
  query.smoothing = args.smooth;
  query.log_y = args.logy;
  query.colour_by = args.colour_by;
  query.group_by = args.group_by;
  query.band = plot::parse_band(args.band);
  query.at = experiments::budget_option(args.at, "fathom export plot curves");
  // --at alone draws on its own axis; with --x another, curves_from_store says which to use.
  query.x = plot::parse_x_axis(query.at && !args.x_given ? query.at->axis : args.x);
  query.spikes = args.no_spikes ? std::nullopt : std::optional<SpikeRule>(args.spikes);
  plot::Figure figure = plot::curves_from_store(store, query);
  save_json({figure}, args.output.save_json);
  nlohmann::json written = nlohmann::json::array();
  write(figure, args.output.out, args.output, global, written);
  report(global, written);
}

void add_curves(CLI::App* plot_cmd, GlobalOptions& global) {
  auto args = std::make_shared<CurvesArgs>();
  CLI::App* cmd = plot_cmd->add_subcommand("curves", "Training curves of runs in the store");
  auto* runs = cmd->add_option("--runs", args->runs, "run ids, comma-separated")->delimiter(',');
  auto* sweep = cmd->add_option("--sweep", args->sweep, "every run of this sweep");
  runs->excludes(sweep);
  cmd->add_option("--reference", args->references,
                  "run ids drawn beside them, first, each its own curve -- never coloured by "
                  "--colour-by nor grouped (a baseline, a fork sweep's parent)")
      ->delimiter(',');
  cmd->add_option("--metric", args->metrics, "metric(s), comma-separated: valid_loss,train_loss")
      ->delimiter(',')
      ->required();
  cmd->add_option("--smooth", args->smooth, "debiased EMA weight in [0, 1), e.g. 0.9")
      ->check(CLI::Range(0.0, 0.999));
  cmd->add_flag("--logy", args->logy, "logarithmic y axis");
  cmd->add_option("--colour-by,--color-by", args->colour_by,
                  "runs with the same value share a style: a sweep axis (model.init), a tag or a "
                  "dotted config key");
  cmd->add_option(
         "--group-by", args->group_by,
         "one curve per group of runs with equal values of these keys (sweep axes, tags or "
         "dotted config keys, comma-separated; 'axes' = every sweep axis but the seed): the "
         "mean, a band, the member count, diverged members marked")
      ->delimiter(',');
  cmd->add_option("--band", args->band,
                  "what a group's shading shows: std (mean +- sample std), "
                  "minmax or none")
      ->check(CLI::IsMember({"std", "minmax", "min-max", "none"}))
      ->default_str("std");
  auto* x = cmd->add_option("--x", args->x,
                            "x axis: update, tokens (target tokens seen), compute (training "
                            "FLOPs, core/train/training_flops.h) or time (since the run's start)")
                ->check(CLI::IsMember({"update", "tokens", "compute", "time"}))
                ->default_str("update");
  cmd->add_option("--at", args->at,
                  "the budget a comparison reads the runs at (export table --at): a dashed line "
                  "at compute=FLOPS, tokens=N or update=N (AXIS=least: the least any finished "
                  "run reached), and on each run's curve the point read there; the x axis is "
                  "the budget's");
  cmd->add_option("--spike-k", args->spikes.k,
                  "a run's train_loss and grad_norm curves mark their spikes: points more than K "
                  "sample standard deviations above the mean of the points before (fathom show)")
      ->check(positive_number())
      ->capture_default_str();
  cmd->add_option("--spike-window", args->spikes.window, "how many points before it (N)")
      ->check(CLI::Range(2, 100000))
      ->capture_default_str();
  cmd->add_flag("--no-spikes", args->no_spikes, "mark no spikes");
  add_output_options(cmd, args->output);
  cmd->callback([&global, args, x] {
    args->x_given = x->count() > 0;
    run_curves(global, *args);
  });
}

void add_figure(CLI::App* plot_cmd, GlobalOptions& global) {
  auto spec = std::make_shared<std::string>();
  auto output = std::make_shared<OutputArgs>();
  CLI::App* cmd = plot_cmd->add_subcommand("figure", "Draw a figure JSON file (docs/plots.md)");
  cmd->add_option("spec", *spec, "figure JSON")->required();
  add_output_options(cmd, *output);
  cmd->callback([&global, spec, output] {
    plot::Figure figure = plot::load_figure(*spec);
    save_json({figure}, output->save_json);
    nlohmann::json written = nlohmann::json::array();
    write(figure, output->out, *output, global, written);
    report(global, written);
  });
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "", "cannot open the file");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path, 0, "", std::string("not valid JSON: ") + e.what());
  }
}

void add_analysis(CLI::App* plot_cmd, GlobalOptions& global) {
  auto result = std::make_shared<std::string>();
  auto kind = std::make_shared<std::string>();
  auto output = std::make_shared<OutputArgs>();
  CLI::App* cmd = plot_cmd->add_subcommand(
      "analysis", "Draw a `fathom analyze` result; beta writes FILE-encoder and FILE-decoder");
  cmd->add_option("result", *result, "the analysis result JSON")->required();
  cmd->add_option("--kind", *kind, "which analysis made it")
      ->required()
      ->check(CLI::IsMember(plot::analysis_kind_names()));
  add_output_options(cmd, *output);
  cmd->callback([&global, result, kind, output] {
    plot::format_for_path(output->out);
    const auto named = plot::analysis_figures(read_json(*result), *kind, *result);
    std::vector<plot::Figure> figures;
    for (const auto& [suffix, figure] : named) figures.push_back(figure);
    save_json(figures, output->save_json);
    nlohmann::json written = nlohmann::json::array();
    for (const auto& [suffix, figure] : named)
      write(figure, with_suffix(output->out, named.size() > 1 ? suffix : ""), *output, global,
            written);
    report(global, written);
  });
}

void add_lr_transfer(CLI::App* plot_cmd, GlobalOptions& global) {
  struct Args {
    std::string sweep, depth, metric = db::metric::kValidLoss, value = "last", where, label, at;
    OutputArgs output;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = plot_cmd->add_subcommand(
      "lr-transfer", "Each method's best learning rate against depth (log-log), with its interval");
  cmd->add_option("--sweep", args->sweep, "a sweep with a train.lr axis and a depth axis")
      ->required();
  cmd->add_option("--depth", args->depth,
                  "the depth axis (default: the one axis ending in 'layers')");
  cmd->add_option("--metric", args->metric, "a loss or perplexity (default valid_loss)")
      ->capture_default_str();
  add_budget_option(cmd, args->at,
                    cmd->add_option("--value", args->value, kLrValueHelp)
                        ->check(CLI::IsMember({"last", "final", "best"})));
  cmd->add_option("--where", args->where, kWhereHelp);
  cmd->add_option("--label", args->label, kLrLabelHelp);
  add_output_options(cmd, args->output);
  cmd->callback([&global, args] {
    plot::format_for_path(args->output.out);
    const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
    const experiments::LrTransfer t = experiments::load_lr_transfer(
        store, args->sweep, args->depth, args->metric,
        experiments::run_reading_named(args->value, args->at, "fathom export plot"), args->where,
        args->label);
    const plot::Figure figure = plot::lr_transfer_figure(t);
    save_json({figure}, args->output.save_json);
    nlohmann::json written = nlohmann::json::array();
    write(figure, args->output.out, args->output, global, written);
    if (!global.json)
      for (const auto& note : t.notes) std::cout << "note: " << note << "\n";
    report(global, written);
  });
}

void add_lr_sensitivity(CLI::App* plot_cmd, GlobalOptions& global) {
  struct Args {
    std::string sweep, metric = db::metric::kValidLoss, value = "last", where, label, range, at;
    OutputArgs output;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = plot_cmd->add_subcommand(
      "lr-sensitivity",
      "A sweep's loss against the learning rate, one curve per method, with its sensitivity");
  cmd->add_option("--sweep", args->sweep, "a sweep with a train.lr axis")->required();
  cmd->add_option("--metric", args->metric, "a loss or perplexity (default valid_loss)")
      ->capture_default_str();
  add_budget_option(cmd, args->at,
                    cmd->add_option("--value", args->value, kLrValueHelp)
                        ->check(CLI::IsMember({"last", "final", "best"})));
  cmd->add_option("--where", args->where, kWhereHelp);
  cmd->add_option("--label", args->label, kLrLabelHelp);
  cmd->add_option("--range", args->range, kLrRangeHelp);
  add_output_options(cmd, args->output);
  cmd->callback([&global, args] {
    plot::format_for_path(args->output.out);
    const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
    const experiments::LrSensitivity s = experiments::load_lr_sensitivity(
        store, args->sweep, args->metric,
        experiments::run_reading_named(args->value, args->at, "fathom export plot"), args->where,
        args->label, args->range);
    const plot::Figure figure = plot::lr_sensitivity_figure(s);
    save_json({figure}, args->output.save_json);
    nlohmann::json written = nlohmann::json::array();
    write(figure, args->output.out, args->output, global, written);
    // How it was computed and what was left out (a filter, unfinished runs): for the caption.
    if (!global.json)
      for (const auto& note : s.notes) std::cout << "note: " << note << "\n";
    report(global, written);
  });
}

void add_parallel(CLI::App* plot_cmd, GlobalOptions& global) {
  struct Args {
    std::string sweep, where;
    std::vector<std::string> metrics{db::metric::kValidPpl};
    OutputArgs output;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = plot_cmd->add_subcommand(
      "parallel",
      "A sweep's parallel coordinates: an axis per swept key and metric, a line per run, "
      "coloured by the last metric");
  cmd->add_option("--sweep", args->sweep, "the sweep")->required();
  cmd->add_option("--metric", args->metrics, "final metrics, comma-separated (default valid_ppl)")
      ->delimiter(',');
  cmd->add_option("--where", args->where, kWhereHelp);
  add_output_options(cmd, args->output);
  cmd->callback([&global, args] {
    plot::format_for_path(args->output.out);
    const plot::ExportOptions options = export_options(args->output);
    const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
    const plot::ParallelFigure figure =
        plot::parallel_from_store(store, args->sweep, args->metrics, args->where);
    if (figure.lines.empty())
      throw InputError(store.path(), 0, "--sweep",
                       "no run of sweep '" + args->sweep + "' has ended yet (" +
                           std::to_string(figure.not_ended) + " queued or running)");
    plot::export_parallel(figure, args->output.out, options);
    nlohmann::json written = nlohmann::json::array({args->output.out});
    if (!global.json) {
      std::cout << "wrote " << args->output.out << "\n";
      if (figure.where_note) std::cout << *figure.where_note << "\n";
      if (figure.not_ended > 0)
        std::cout << "left out " << figure.not_ended << " runs not ended yet (queued or running)\n";
    }
    report(global, written);
  });
}

// A sweep's hyperparameter importance (experiments/hparam_importance.h) as horizontal bars:
// each axis's, each pair's and the higher-order rest's share of the variance between settings,
// and the seeds' (plot/importance_figure.h).
void add_importance(CLI::App* plot_cmd, GlobalOptions& global) {
  struct Args {
    std::string sweep, metric = db::metric::kValidLoss, value = "final", where, at;
    OutputArgs output;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = plot_cmd->add_subcommand(
      "importance",
      "How much of a metric's variance over a sweep's settings each axis, pair of axes and the "
      "rest explain, with the seeds' variance, as bars (functional ANOVA of the full grid)");
  cmd->add_option("--sweep", args->sweep, "the sweep")->required();
  cmd->add_option("--metric", args->metric,
                  "a final metric (default valid_loss), or `diverged` (1 for a diverged run)")
      ->capture_default_str();
  add_budget_option(
      cmd, args->at,
      cmd->add_option("--value", args->value,
                      "each run's value: final (default: the best checkpoint's) | best | last")
          ->check(CLI::IsMember({"last", "final", "best"})));
  cmd->add_option("--where", args->where, kWhereHelp);
  add_output_options(cmd, args->output);
  cmd->callback([&global, args] {
    plot::format_for_path(args->output.out);
    if (!args->output.save_json.empty())
      throw InputError("", 0, "--save-json", "an importance chart has no figure JSON");
    const plot::ExportOptions options = export_options(args->output);  // a bad --size: first
    const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
    const experiments::HparamImportance h = experiments::load_hparam_importance(
        store, args->sweep, args->metric,
        experiments::run_reading_named(args->value, args->at, "fathom export plot"), args->where);
    plot::ImportanceFigure figure = plot::importance_figure(h);
    if (!args->output.title.empty()) figure.title = args->output.title;
    plot::export_importance(figure, args->output.out, options);
    if (!global.json) {
      std::cout << "wrote " << args->output.out << "\n";
      for (const auto& note : h.notes) std::cout << "note: " << note << "\n";
    }
    report(global, nlohmann::json::array({args->output.out}));
  });
}

}  // namespace

// The training probes of runs (docs/probes.md): a depth x update heatmap per run, every run
// on one colour scale (FILE-run<ID> each when there are several), or per-position lines.
void add_probe(CLI::App* plot_cmd, GlobalOptions& global) {
  struct Args {
    std::vector<int64_t> runs;
    std::string probe, heads = "max";
    bool lines = false;
    OutputArgs output;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = plot_cmd->add_subcommand(
      "probe", "A training probe of runs as depth x update heatmaps on one colour scale");
  cmd->add_option("--runs", args->runs, "run ids, comma-separated")->required()->delimiter(',');
  cmd->add_option("--probe", args->probe,
                  "attn.max_logit, attn.entropy, attn.first_key_mass, stream.rms, "
                  "stream.max_abs, stream.kurtosis, stream.max_over_median, stream.angle, "
                  "stream.token_cosine, attn.grad_q_over_v, "
                  "branch.rms, update.ratio, or hc.gain, hc.gain_backward (hyper-connections; "
                  "`fathom show RUN` lists a run's)")
      ->required();
  cmd->add_option("--heads", args->heads, "per-head probes: all heads, or their max or mean")
      ->capture_default_str();
  cmd->add_flag("--lines", args->lines, "one line per position over training instead");
  add_output_options(cmd, args->output);
  cmd->callback([&global, args] {
    plot::format_for_path(args->output.out);
    const plot::HeadReduction heads = plot::parse_head_reduction(args->heads);
    const auto store = db::Store::open(resolve_db_path(global), db::OpenMode::ReadOnly);
    std::vector<std::pair<std::string, db::ProbeSeries>> runs;
    for (const int64_t id : args->runs) {
      const auto run = store.find_run(std::to_string(id));
      if (!run) throw InputError("", 0, "--runs", "no run with id " + std::to_string(id));
      db::ProbeSeries series = store.probe_series(id, args->probe);
      if (series.steps.empty()) {
        std::string known;
        for (const auto& name : store.probe_names(id)) known += (known.empty() ? "" : ", ") + name;
        throw InputError(
            "", 0, "--probe",
            "run " + std::to_string(id) + " has no probe \"" + args->probe + "\" (" +
                (known.empty() ? "it was trained without train.probe_every" : "it has " + known) +
                ")");
      }
      runs.emplace_back(plot::probe_run_label(*run), std::move(series));
    }
    std::vector<plot::Figure> figures;
    if (args->lines)
      for (const auto& [label, series] : runs)
        figures.push_back(plot::probe_lines(series, args->probe, label, heads));
    else
      for (auto& h : plot::probe_heatmaps(runs, args->probe, heads)) figures.push_back(h);
    save_json(figures, args->output.save_json);
    nlohmann::json written = nlohmann::json::array();
    for (size_t i = 0; i < figures.size(); ++i)
      write(figures[i],
            with_suffix(args->output.out,
                        figures.size() > 1 ? "run" + std::to_string(args->runs[i]) : ""),
            args->output, global, written);
    report(global, written);
  });
}

void add_export_plot_command(CLI::App& export_cmd, GlobalOptions& options) {
  CLI::App* plot_cmd =
      export_cmd.add_subcommand("plot", "Publication figures as PNG, PDF or SVG (docs/plots.md)");
  plot_cmd->require_subcommand(1);
  add_curves(plot_cmd, options);
  add_figure(plot_cmd, options);
  add_analysis(plot_cmd, options);
  add_lr_sensitivity(plot_cmd, options);
  add_lr_transfer(plot_cmd, options);
  add_parallel(plot_cmd, options);
  add_probe(plot_cmd, options);
  add_importance(plot_cmd, options);
  add_budgets(plot_cmd, options);
  add_reach_plot(plot_cmd, options);
}

#else  // !FATHOM_HAVE_PLOTS

void add_export_plot_command(CLI::App& export_cmd, GlobalOptions&) {
  CLI::App* plot_cmd = export_cmd.add_subcommand(
      "plot", "Figures (unavailable: this fathom was built without Qt 6)");
  plot_cmd->allow_extras();
  plot_cmd->callback([] {
    throw std::runtime_error(
        "this fathom was built without figures (no Qt 6 found): install qt6-base-dev "
        "qt6-svg-dev libqcustomplot-dev (scripts/install-deps.sh), re-run cmake and rebuild");
  });
}

#endif

}  // namespace fathom::cli
