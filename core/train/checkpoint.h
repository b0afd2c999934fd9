#pragma once
// Checkpoints: model parameters and buffers, optimizer state, the trainer's position in the
// data, and the config the run was started with (so resuming cannot mismatch). Written to a
// temporary file and renamed, so a crash or a full disk never leaves a broken checkpoint.
#include <torch/torch.h>

#include <limits>
#include <stdexcept>
#include <string>

#include "base/metrics/noise_scale_window.h"
#include "base/util/file_write.h"
#include "core/train/early_stop.h"

namespace fathom {

class TransformerImpl;
class Optimizer;

// The log window a checkpoint was taken in: updates since the last logged point and the sums
// their logged means divide (DeviceMetrics::Reading). Empty at a log point.
struct LogWindowState {
  int64_t tokens = 0, updates = 0, grad_norm_updates = 0, skipped = 0;
  double smoothed = 0, nll = 0, grad_norm = 0;
  NoiseScaleWindow noise;  // train.noise_scale's sums
};

struct TrainerState {
  int64_t update = 0;                                            // updates completed
  int64_t epoch = 0;                                             // current epoch (0-based)
  int64_t batch_in_epoch = 0;                                    // next batch of that epoch to read
  double first_loss = std::numeric_limits<double>::quiet_NaN();  // divergence reference
  ValidationRecord validation;  // the best train.best_metric, when, and validations since
  double loss_scale = 65536.0;  // fp16 loss scaler (core/train/loss_scaler.h), so a resumed
  int64_t loss_scale_clean_updates = 0;  // run skips and grows exactly as an uninterrupted one
  LogWindowState window;                 // so a checkpoint between log points resumes the same rows
  // Training time and target tokens of every session up to this checkpoint: a resumed run's
  // train_time_s and tokens_per_s count all of its training, not only the last session.
  double train_seconds = 0;
  int64_t train_tokens = 0;
  // Its training compute (core/train/training_flops.h); NaN where a checkpoint written before
  // Fathom counted it left earlier sessions' unknown (the run then logs no train_flops).
  double train_flops = 0;
  // The update whose valid_bleu decode a stop request cut short (0: none): the session that
  // resumes from this update decodes it first, so the curve misses no point.
  int64_t valid_bleu_pending = 0;
};

// Archive keys may not contain '.', which parameter names do.
std::string archive_key(const std::string& prefix, const std::string& name);

// Writes to `path`.tmp and renames it, so `path` is never half written. A full disk or an I/O
// error throws CheckpointWriteError, leaving `path` as it was.
void save_checkpoint(const std::string& path, TransformerImpl& model, const Optimizer* optimizer,
                     const TrainerState& state, const std::string& config_yaml);

// The checkpoint's bytes as save_checkpoint writes them, and their reading: what rank 0 of a
// data-parallel run hands the other ranks (docs/distributed.md). `what` names them in errors.
std::string checkpoint_bytes(TransformerImpl& model, const Optimizer* optimizer,
                             const TrainerState& state, const std::string& config_yaml);
void load_checkpoint_bytes(const std::string& bytes, const std::string& what,
                           TransformerImpl& model, Optimizer* optimizer, TrainerState* state);

// A checkpoint that could not be written (disk full, I/O error): a failure while working
// (exit status 1), not bad input. The message names the file and the reason.
using CheckpointWriteError = FileWriteError;

// Restores what `path` holds into the given objects (optimizer/state may be null). Throws
// InputError naming the file when it is missing, unreadable or from a different model shape.
void load_checkpoint(const std::string& path, TransformerImpl& model, Optimizer* optimizer,
                     TrainerState* state);

// What an archive read from a checkpoint holds, into the given objects (optimizer/state may be
// null); `path` names it in errors. load_checkpoint and read_checkpoint (checkpoint_contents.h).
void restore_checkpoint(torch::serialize::InputArchive& archive, const std::string& path,
                        TransformerImpl& model, Optimizer* optimizer, TrainerState* state);

// Whether the checkpoint holds the optimizer state (resume points and, since forks, kept
// checkpoints; not checkpoint_best), from the archive's index where it tells (its tensors
// unread). False for a file that does not load.
bool checkpoint_has_optimizer_state(const std::string& path);

// The config_yaml and the vocabulary size an archive read from a checkpoint holds (c10::Error
// where it has none); checkpoint_config and checkpoint_vocab_size read them from a file.
std::string archive_config_yaml(torch::serialize::InputArchive& archive);
int64_t archive_vocab_size(torch::serialize::InputArchive& archive);

// The config_yaml a checkpoint was saved with.
std::string checkpoint_config(const std::string& path);

// The vocabulary size of the model in a checkpoint (rows of its source embedding), so a model
// can be rebuilt from the checkpoint alone.
int64_t checkpoint_vocab_size(const std::string& path);

}  // namespace fathom
