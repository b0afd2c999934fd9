// `fathom data prepare CONFIG [--set key=value ...]`: prepares a parallel corpus's training
// pairs (data.task parallel), or a language model's training documents (data.task lm), as token
// shards in the cache (core/data/prepared_corpus.h), on train.threads threads
// with a progress bar, so that the runs (and every worker of a sweep) that train on it map
// it instead of reading and tokenising the text on each start. A run prepares its corpus
// itself when needed; this command does it ahead of a sweep, once.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "base/config/config_io.h"
#include "base/util/error.h"
#include "cli/commands.h"
#include "cli/stop_signals.h"
#include "core/data/prepared_corpus.h"
#include "core/data/text_reader.h"
#include "core/train/stop_request.h"

namespace fathom::cli {
namespace {

struct DataPrepareArgs {
  std::string config;
  std::vector<std::string> overrides;
  bool no_progress = false;
};

void run_data_prepare(const GlobalOptions& global, DataPrepareArgs args) {
  take_config_from_overrides(args.config, args.overrides);
  RunConfig config = load_config_file(args.config);
  apply_overrides(config, args.overrides);
  check_config(config);
  const DataConfig& data = config.data;
  const bool documents = data.task == "lm";
  if (data.task != "parallel" && !documents)
    config_error(config, "data.task",
                 "'" + data.task +
                     "' has nothing to prepare: prepared corpora are for data.task: parallel or "
                     "lm (text files)");
  if (documents && data.train_text.empty())
    config_error(config, "data.train_text", "required when data.task is lm");
  if (!documents && (data.train_source.empty() || data.train_target.empty()))
    config_error(config, data.train_source.empty() ? "data.train_source" : "data.train_target",
                 "required when data.task is parallel");
  PrepareOptions options;
  options.threads = config.train.threads;
  options.progress = !args.no_progress && !global.json;
  install_stop_signals();  // Ctrl+C stops between chunks; the next call resumes from them
  options.stop = &stop_requested();
  const auto paths = resolve_store_paths(global);
  const auto start = std::chrono::steady_clock::now();
  PreparedCorpus corpus;
  try {
    corpus = documents ? prepare_documents(resolve_data_path(data.train_text, ""), data.vocab,
                                           paths.cache_root, options)
                       : prepare_corpus(resolve_data_path(data.train_source, ""),
                                        resolve_data_path(data.train_target, ""), data.vocab,
                                        paths.cache_root, options);
  } catch (const StopRequested&) {
    std::fprintf(stderr,
                 "stopped: the pairs encoded so far are kept; run the same command again to "
                 "go on\n");
    std::exit(130);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (global.json) {
    std::cout << nlohmann::json{{"entry", corpus.entry},
                                {"pairs", corpus.train.size()},
                                {"tokens", corpus.train.stored_tokens()},
                                {"bytes_per_token", corpus.train.width()},
                                {"vocab_size", corpus.vocab->size()},
                                {"reused", corpus.reused},
                                {"resumed_pairs", corpus.resumed_pairs},
                                {"seconds", seconds}}
                     .dump(2)
              << "\n";
    return;
  }
  if (corpus.resumed_pairs > 0)
    std::printf("resumed: %zu pairs were encoded by an earlier, stopped run\n",
                corpus.resumed_pairs);
  std::printf("%s %zu %s (%llu ids, %d bytes an id, vocabulary of %lld) in %.1f s\n%s\n",
              corpus.reused ? "already prepared:" : "prepared", corpus.train.size(),
              documents ? "documents" : "pairs",
              static_cast<unsigned long long>(corpus.train.stored_tokens()), corpus.train.width(),
              static_cast<long long>(corpus.vocab->size()), seconds, corpus.entry.c_str());
}

}  // namespace

void add_data_command(CLI::App& app, GlobalOptions& options) {
  CLI::App* data = app.add_subcommand(
      "data",
      "Corpora: fetch public ones, prepare token shards ahead of training, list and prune the "
      "cache, see a config's batch plan");
  data->require_subcommand(1);
  auto args = std::make_shared<DataPrepareArgs>();
  CLI::App* prepare = data->add_subcommand(
      "prepare",
      "Tokenise a config's training corpus (parallel pairs or lm documents) into token shards "
      "in the cache (once; every run on it then maps them)");
  prepare->add_option("config", args->config, "YAML run config")->required();
  prepare->add_option("--set", args->overrides, "override a config key")->take_all();
  prepare->add_flag("--no-progress", args->no_progress, "no progress bar");
  prepare->callback([&options, args] { run_data_prepare(options, *args); });
  add_data_get_command(*data, options);
  add_data_cache_command(*data, options);
  add_data_plan_command(*data, options);
}

}  // namespace fathom::cli
