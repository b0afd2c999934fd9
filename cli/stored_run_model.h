#pragma once
// A stored run's model as `fathom analyze`, `translate` and `attention` load it: `--checkpoint
// best|last|average|init|STEP` (average: eval.average_checkpoints' mean; STEP: an update kept
// by train.keep_checkpoint_every) resolved to the file the store's artifact rows name, or
// `--average N [--average-by last|best]` (the mean of N kept checkpoints), with the config the
// checkpoint was trained with, its data (the vocabulary) and its weights (analysis/subject.h).
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "analysis/subject.h"
#include "db/run_paths.h"

namespace fathom::db {
class Store;
}

namespace fathom::cli {

// best, last, average, init or a positive update.
bool is_checkpoint_name(const std::string& name);

// --checkpoint on `cmd`, into `checkpoint`: refused unless is_checkpoint_name ("0300" is taken
// as checkpoint_300).
CLI::Option* add_checkpoint_option(CLI::App& cmd, std::string& checkpoint, const std::string& help);

// The run `target` (id or name) at `checkpoint`. InputError when the store has no such run or
// the run no such checkpoint (naming the steps it kept).
analysis::Subject load_stored_run(db::Store& store, const db::StorePaths& paths,
                                  const std::string& target, const std::string& checkpoint);

// Replaces the model of `run` (a stored run) by the mean of `count` checkpoints it kept every
// train.keep_checkpoint_every updates (core/train/checkpoint_average.h) -- the newest, or with
// `by_best` those whose update's train.best_metric is best (db/averaged_checkpoints.h) -- as
// eval.average_checkpoints (and eval.average_by) would have evaluated it; `run.label` and
// `run.checkpoint` say so. InputError naming --average when it kept fewer (with a validation).
void average_stored_checkpoints(analysis::Subject& run, const db::Store& store,
                                const db::StorePaths& paths, int count, bool by_best = false);

// Which model of a stored run a command reads: one checkpoint, or the mean of `average` kept
// ones (the newest, or with average_by "best" those of the best train.best_metric).
struct ModelChoice {
  std::string checkpoint = "best";
  std::optional<int> average;
  std::string average_by = "last";
};

// --checkpoint (with `checkpoint_help`), --average N and --average-by on `cmd`, into `choice`;
// --average excludes --checkpoint, --average-by needs --average. Returns --average.
CLI::Option* add_model_choice_options(CLI::App& cmd, ModelChoice& choice,
                                      const std::string& checkpoint_help);

// The run `target` (id or name) with the model `choice` names: load_stored_run, then
// average_stored_checkpoints where it asks for a mean.
analysis::Subject load_chosen_model(db::Store& store, const db::StorePaths& paths,
                                    const std::string& target, const ModelChoice& choice);

}  // namespace fathom::cli
