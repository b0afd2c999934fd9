// `fathom params CONFIG [CONFIG...] [--set key=value ...]`: parameter counts of each config's
// model split by kind (embeddings, attention, ffn_lstm, norms, omega, other, total), side by
// side, so methods can be compared at equal size before anything trains. Parallel-text
// configs are counted at their configured vocabulary size (data.vocab.size); the synthetic
// task's vocabulary is generated (cheap) and counted exactly.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "base/config/config_io.h"
#include "cli/commands.h"
#include "core/data/dataset.h"
#include "core/model/registry.h"
#include "core/model/transformer.h"
#include "core/train/memory_check.h"

namespace fathom::cli {
namespace {

struct ParamsArgs {
  std::vector<std::string> configs;
  std::vector<std::string> overrides;
};

int64_t vocab_size(const RunConfig& config) {
  if (config.data.task == "synthetic") return load_dataset(config.data, "", "").vocab->size();
  return config.data.vocab.size;
}

void print_params(const GlobalOptions& global, const ParamsArgs& args) {
  // The usual kinds in this order; a method's own kind (dyt_alpha, ...) before the total.
  std::vector<std::string> kinds{"embeddings", "attention", "ffn_lstm", "norms", "omega", "other"};
  std::vector<std::string> names;
  std::vector<std::map<std::string, int64_t>> counts;
  for (const auto& path : args.configs) {
    RunConfig config = load_config_file(path);
    apply_overrides(config, args.overrides);
    check_config(config);
    check_model_methods(config);
    check_weights_fit(config);  // a billion layers: refused at the key, not after 15 GB
    Transformer model(config.model, vocab_size(config));
    names.push_back(config.name + " (" + path + ")");
    counts.push_back(model->parameter_counts());
  }
  for (const auto& c : counts)
    for (const auto& [kind, n] : c)
      if (kind != "total" && std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
        kinds.push_back(kind);
  kinds.push_back("total");
  if (global.json) {
    nlohmann::json out = nlohmann::json::array();
    for (size_t i = 0; i < names.size(); ++i)
      out.push_back({{"config", args.configs[i]}, {"counts", counts[i]}});
    std::cout << out.dump(2) << "\n";
    return;
  }
  for (size_t i = 0; i < names.size(); ++i) std::printf("[%zu] %s\n", i + 1, names[i].c_str());
  std::printf("%-12s", "kind");
  for (size_t i = 0; i < names.size(); ++i)
    std::printf(" %14s", ("[" + std::to_string(i + 1) + "]").c_str());
  std::printf("\n");
  for (const auto& kind : kinds) {
    std::printf("%-12s", kind.c_str());
    for (const auto& c : counts)
      std::printf(" %14lld", static_cast<long long>(c.count(kind) ? c.at(kind) : 0));
    std::printf("\n");
  }
}

}  // namespace

void add_params_command(CLI::App& app, GlobalOptions& options) {
  auto args = std::make_shared<ParamsArgs>();
  CLI::App* cmd = app.add_subcommand(
      "params", "Parameter counts by kind for one or more configs, side by side");
  cmd->add_option("configs", args->configs, "YAML run configs")->required();
  cmd->add_option("--set", args->overrides, "override a config key in every config")->take_all();
  cmd->callback([&options, args] { print_params(options, *args); });
}

}  // namespace fathom::cli
