// `fathom fold RUN [--checkpoint best|last] [--out PATH]`: removes Admin's omega vectors from a
// trained run (Liu et al. 2020, Appendix C), writing a plain Post-LN checkpoint whose outputs
// equal the Admin model's. The equivalence is checked on random tokens before anything is
// written, and the folded checkpoint is recorded as the run's artifact "checkpoint_folded".
#include <cstdio>
#include <filesystem>
#include <memory>

#include "base/config/config_io.h"
#include "base/util/error.h"
#include "cli/commands.h"
#include "core/model/admin.h"
#include "core/train/checkpoint.h"
#include "core/train/checkpoint_contents.h"
#include "core/train/run_files.h"
#include "db/run_paths.h"
#include "db/store.h"

namespace fathom::cli {
namespace {
namespace fs = std::filesystem;

struct FoldArgs {
  std::string run;
  std::string checkpoint = "best";
  std::string out;
};

// Largest |logit| difference between two models on random token batches (eval mode).
double max_difference(TransformerImpl& a, TransformerImpl& b, int64_t vocab) {
  torch::NoGradGuard no_grad;
  a.eval();
  b.eval();
  torch::manual_seed(0);
  double worst = 0;
  for (int trial = 0; trial < 3; ++trial) {
    torch::Tensor src = torch::randint(4, vocab, {4, 20}, torch::kInt64);
    torch::Tensor tgt = torch::randint(4, vocab, {4, 15}, torch::kInt64);
    worst = std::max(worst, (a.forward(src, tgt) - b.forward(src, tgt)).abs().max().item<double>());
  }
  return worst;
}

void fold_run(const GlobalOptions& global, const FoldArgs& args) {
  const std::string db_path = resolve_db_path(global);
  auto store = db::Store::open(db_path);
  const db::RunRecord run = named_run(store, args.run);
  const std::string dir = resolve_store_paths(global).run_dir(run.id);
  const fs::path checkpoint =
      recorded_file(store.artifacts(run.id), dir, "checkpoint_" + args.checkpoint);
  if (checkpoint.empty() || !fs::exists(checkpoint))
    throw InputError(
        checkpoint.empty() ? dir : checkpoint.string(), 0, "",
        "run " + std::to_string(run.id) + " has no " + args.checkpoint + " checkpoint");
  CheckpointContents saved = read_checkpoint(checkpoint.string());
  const RunConfig& config = saved.config;
  if (config.model.init != "admin")
    throw InputError(checkpoint.string(), 0, "model.init",
                     "run " + std::to_string(run.id) + " uses init '" + config.model.init +
                         "'; only Admin models have omega to fold");
  const int64_t vocab = saved.model->vocab_size();
  Transformer admin = saved.model;
  const TrainerState& state = saved.state;

  Transformer folded = fold_admin(*admin);
  const double difference = max_difference(*admin, *folded, vocab);
  const double tolerance = 1e-4;  // float precision of logits, with room for depth
  if (!(difference < tolerance))
    throw std::runtime_error("fold check failed: outputs differ by " + std::to_string(difference));

  RunConfig folded_config = config;
  folded_config.model = folded->config();
  const std::string out =
      args.out.empty() ? (checkpoint.parent_path() / "checkpoint_folded.pt").string() : args.out;
  save_checkpoint(out, *folded, nullptr, state, config_to_yaml(folded_config));
  store.add_artifact(run.id, "checkpoint_folded", out, state.update);
  std::printf("folded run %lld (%s checkpoint, update %lld): %zu omega vectors removed\n",
              static_cast<long long>(run.id), args.checkpoint.c_str(),
              static_cast<long long>(state.update), admin_omegas(*admin).size());
  std::printf("max |logit difference| on 3 random batches: %.3g\n", difference);
  std::printf("plain Post-LN checkpoint: %s\n", out.c_str());
}

}  // namespace

void add_fold_command(CLI::App& app, GlobalOptions& options) {
  auto args = std::make_shared<FoldArgs>();
  CLI::App* cmd = app.add_subcommand(
      "fold", "Fold an Admin run's omega into a plain Post-LN checkpoint (Admin, Appendix C)");
  cmd->add_option("run", args->run, "run id, or name (the latest run with that name)")->required();
  cmd->add_option("--checkpoint", args->checkpoint, "which checkpoint to fold")
      ->check(CLI::IsMember({"best", "last"}));
  cmd->add_option("--out", args->out, "output path (default: the run's checkpoint_folded.pt)");
  cmd->callback([&options, args] { fold_run(options, *args); });
}

}  // namespace fathom::cli
