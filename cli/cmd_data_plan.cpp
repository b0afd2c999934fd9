// `fathom data plan CONFIG [--multiples 1,8,16] [--set key=value ...]`: the batch plan a run of
// CONFIG would train on, before any device time is spent: per data.pad_to_multiple, its
// batches, the distinct tensor shapes they collate to (each one CUDA graph under
// train.cuda_graphs, which captures at most kGraphedShapesLimit), the share of an epoch's
// batches a graphed run replays, and the padding. Torch-free (core/data/batch_plan.h); the
// corpus is loaded as a run loads it (prepared into the store's cache the first time).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/config/config_io.h"
#include "cli/commands.h"
#include "cli/option_checks.h"
#include "core/data/batch_plan.h"
#include "core/data/dataset.h"

namespace fathom::cli {
namespace {

struct DataPlanArgs {
  std::string config;
  std::vector<std::string> overrides;
  std::vector<int> multiples{1, 8, 16};
  bool no_progress = false;
};

struct PlanRow {
  int multiple = 1;
  std::size_t batches = 0;
  BatchShapes shapes;
  double replayable = 0;  // a share of the first epoch's batches
};

PlanRow plan_row(const TokenPairs& train, const RunConfig& config, int multiple) {
  const BatchPlan plan = plan_batches(train, config.data.max_tokens, multiple);
  PlanRow row;
  row.multiple = multiple;
  row.batches = plan.size();
  row.shapes = batch_shapes(train, plan);
  row.replayable = replayable_share(row.shapes, epoch_order(plan, config.train.seed, 0));
  return row;
}

void run_data_plan(const GlobalOptions& global, DataPlanArgs args) {
  take_config_from_overrides(args.config, args.overrides);
  RunConfig config = load_config_file(args.config);
  apply_overrides(config, args.overrides);
  check_config(config);
  std::vector<int> multiples = args.multiples;
  if (std::find(multiples.begin(), multiples.end(), config.data.pad_to_multiple) == multiples.end())
    multiples.push_back(config.data.pad_to_multiple);
  std::sort(multiples.begin(), multiples.end());
  multiples.erase(std::unique(multiples.begin(), multiples.end()), multiples.end());

  PrepareOptions prepare;
  prepare.progress = !global.json && !args.no_progress;
  // The config's paths were resolved against its folder when it was read.
  const Dataset data =
      load_run_dataset(config, resolve_store_paths(global).cache_root, "", prepare);
  std::vector<PlanRow> rows;
  for (int m : multiples) rows.push_back(plan_row(data.train, config, m));

  if (global.json) {
    nlohmann::json out{{"pairs", data.train.size()},
                       {"max_tokens", config.data.max_tokens},
                       {"config_multiple", config.data.pad_to_multiple},
                       {"graphed_shapes_limit", kGraphedShapesLimit},
                       {"rows", nlohmann::json::array()}};
    for (const PlanRow& r : rows)
      out["rows"].push_back({{"multiple", r.multiple},
                             {"batches", r.batches},
                             {"shapes", r.shapes.distinct},
                             {"replayable", r.replayable},
                             {"padded_positions", r.shapes.padded_positions},
                             {"longer_side_tokens", r.shapes.longer_side_tokens},
                             {"padding_percent", r.shapes.padding_percent()}});
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::printf(
      "%zu training examples, data.max_tokens %d; train.cuda_graphs captures at most %zu "
      "shapes (replayed: of the first epoch's batches, train.seed %llu)\n",
      data.train.size(), config.data.max_tokens, kGraphedShapesLimit,
      static_cast<unsigned long long>(config.train.seed));
  std::printf("%8s %9s %8s %9s %9s\n", "multiple", "batches", "shapes", "replayed", "padding");
  for (const PlanRow& r : rows)
    std::printf("%8d %9zu %8zu %7.1f %% %7.1f %%%s\n", r.multiple, r.batches, r.shapes.distinct,
                100.0 * r.replayable, r.shapes.padding_percent(),
                r.multiple == config.data.pad_to_multiple ? "   (the config's)" : "");
}

}  // namespace

void add_data_plan_command(CLI::App& data, GlobalOptions& options) {
  auto args = std::make_shared<DataPlanArgs>();
  CLI::App* plan = data.add_subcommand(
      "plan",
      "A config's training batch plan by data.pad_to_multiple: batches, distinct shapes (CUDA "
      "graphs), the share a graphed run replays, padding");
  plan->add_option("config", args->config, "YAML run config")->required();
  plan->add_option("--set", args->overrides, "override a config key")->take_all();
  plan->add_option("--multiples", args->multiples,
                   "data.pad_to_multiple values to compare (the config's is added)")
      ->delimiter(',')
      ->check(positive_number());
  plan->add_flag("--no-progress", args->no_progress, "no progress bar while a corpus is prepared");
  plan->callback([&options, args] { run_data_plan(options, *args); });
}

}  // namespace fathom::cli
