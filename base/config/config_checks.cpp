// check_config (base/config/config_io.h): what a parsed config must satisfy beyond each key's
// own type, range and choices -- keys that depend on each other (a schedule's phases, what
// averaging or early stopping needs kept), files that must exist. Each refusal names the key
// and where it was set (config_error).
#include <filesystem>
#include <string>

#include "base/config/budget_text.h"
#include "base/config/config_io.h"
#include "base/config/config_schema.h"
#include "base/config/corpus_path.h"
#include "base/config/lr_schedule.h"
#include "base/util/error.h"
#include "base/util/strings.h"

namespace fathom {
namespace fs = std::filesystem;

namespace {

// Each of `keys` that names a file must name one that exists.
void require_existing_files(const RunConfig& c, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    const std::string path = field_value_text(c, *find_field(key));
    std::error_code ec;  // a path the system refuses (too long) is not found either
    if (path.empty() || fs::exists(path, ec)) continue;
    if (const auto corpus = missing_corpus_of(path))
      config_error(c, key,
                   "corpus '" + *corpus + "' is not in " + corpora_home() +
                       ": fetch it with `fathom data get " + *corpus +
                       "` (or `--from DIR` with a local copy; docs/data.md)");
    config_error(c, key, "file not found: " + path);
  }
}

// Whether the config file gave `key` a value other than its default. A config written out
// whole (a run's stored config, `fathom config`) names every key with its default: those
// say nothing, and reading one back must not be refused for them.
bool set_to_other_than_default(const RunConfig& c, const std::string& key) {
  const FieldSpec& field = *find_field(key);
  return c.locations.count(key) &&
         field_value_text(c, field) != field_value_text(RunConfig{}, field);
}

// A schedule's keys (base/config/lr_schedule.h): those of another schedule would be silently
// ignored, and the warmup must end before the decay begins.
void check_schedule(const RunConfig& c) {
  const auto& t = c.train;
  const bool decays = lr_schedule(t.schedule).decay != nullptr;  // a name the schema admitted
  std::vector<const char*> unused;
  if (!decays) unused.push_back("train.min_lr_ratio");
  if (t.schedule != "wsd")
    unused.insert(unused.end(), {"train.decay_fraction", "train.decay_shape"});
  for (const char* key : unused)
    if (set_to_other_than_default(c, key))
      config_error(c, key, "means nothing with train.schedule: " + t.schedule);
  if (!decays) return;
  // The decay's first update; the warmup must end before it (linear, cosine: before the last).
  const int64_t bound = t.schedule == "wsd" ? decay_start(t) : t.max_updates;
  if (t.warmup >= bound)
    config_error(
        c, "train.warmup",
        std::to_string(t.warmup) + " warmup updates leave no update to decay in: with " +
            "train.schedule " + t.schedule + " and train.max_updates " +
            std::to_string(t.max_updates) +
            (t.schedule == "wsd" ? " (train.decay_fraction " + double_text(t.decay_fraction) + ")"
                                 : std::string()) +
            " it must be below " + std::to_string(bound));
}

// train.cuda_graphs replays a recorded forward and backward (core/train/graphed_updates.h):
// nothing in them may decide on the host, restore the generator, or wait for another rank.
void check_cuda_graphs(const RunConfig& c) {
  const auto& t = c.train;
  if (!t.cuda_graphs) return;
  const char* key = "train.cuda_graphs";
  if (c.device == "cpu") config_error(c, key, "needs a CUDA device, and device is cpu");
  if (t.precision == "fp16")
    config_error(c, key,
                 "cannot be combined with train.precision: fp16 (its loss scaler decides on the "
                 "host every update); use bf16");
  if (t.checkpoint_activations)
    config_error(c, key,
                 "cannot be combined with train.checkpoint_activations (the recomputation "
                 "restores the generator's state)");
  if (t.processes > 1)
    config_error(c, key,
                 "cannot be combined with train.processes > 1 (the ranks reduce their gradients "
                 "during the backward)");
}

// The train section's rules that relate keys.
void check_training(const RunConfig& c) {
  const auto& t = c.train;
  check_schedule(c);
  check_cuda_graphs(c);
  if (t.optimizer != "muon" && set_to_other_than_default(c, "train.muon_momentum"))
    config_error(c, "train.muon_momentum", "means nothing with train.optimizer: " + t.optimizer);
  // Known without a device only when the config names the CPU (core/train/precision.h).
  if (t.precision == "fp16" && c.device == "cpu")
    config_error(c, "train.precision",
                 "fp16 needs a CUDA device (LibTorch's CPU autocast has no float16); use bf16 "
                 "or fp32 on the CPU");
  if (t.precision == "tf32" && c.device == "cpu")
    config_error(c, "train.precision",
                 "tf32 is a CUDA tensor-core format (Ampere and later); on the CPU every "
                 "product is float32 already: use fp32");
  for (double b : t.betas)
    if (!(b >= 0 && b < 1)) config_error(c, "train.betas", "each beta must be in [0, 1)");
  // Each rank trains whole batches of an update (methods.md s9.1): an update must hold at
  // least one batch per rank, i.e. more target tokens than world - 1 full batches.
  if (t.processes > 1 && static_cast<int64_t>(t.update_tokens) <=
                             static_cast<int64_t>(t.processes - 1) * c.data.max_tokens)
    config_error(c, "train.update_tokens",
                 std::to_string(t.update_tokens) +
                     " target tokens per update cannot give each of " +
                     std::to_string(t.processes) +
                     " processes (train.processes) a batch of up to data.max_tokens = " +
                     std::to_string(c.data.max_tokens) + "; give more than " +
                     std::to_string(static_cast<int64_t>(t.processes - 1) * c.data.max_tokens) +
                     " (about processes x data.max_tokens)");
  // One process reads the noise scale from an update's batches against the whole update: more
  // target tokens than one batch holds guarantee a second batch.
  if (t.noise_scale && t.processes <= 1 && t.update_tokens <= c.data.max_tokens)
    config_error(c, "train.noise_scale",
                 "compares an update's batches with the whole update, so each update needs "
                 "several batches: give train.update_tokens more than data.max_tokens = " +
                     std::to_string(c.data.max_tokens) + " (now " +
                     std::to_string(t.update_tokens) + "), or train.processes > 1");
}

// Averaging the best N kept checkpoints ranks them by train.best_metric at their updates: each
// needs a validation there (train.keep_checkpoints then keeps the best, not the newest).
void check_average_by(const RunConfig& c) {
  if (c.eval.average_by != "best") return;
  const int every = c.train.keep_checkpoint_every, valid = c.train.valid_every;
  if (valid <= 0 || every % valid != 0)
    config_error(c, "eval.average_by",
                 "best ranks the kept checkpoints by " + c.train.best_metric +
                     " at their updates, but train.keep_checkpoint_every " + std::to_string(every) +
                     " is not a multiple of train.valid_every " + std::to_string(valid) +
                     ": some would have no validation");
}

// Selecting on valid_bleu needs its decode; averaging needs that many kept checkpoints
// (core/train/checkpoint_average.h).
void check_evaluation(const RunConfig& c) {
  const int n = c.eval.average_checkpoints, every = c.train.keep_checkpoint_every;
  if (c.train.best_metric == "valid_bleu" && c.train.valid_bleu == 0)
    config_error(c, "train.best_metric",
                 "valid_bleu needs train.valid_bleu > 0: the validation sentences decoded for it");
  if (c.train.keep_checkpoints > 0 && every == 0)
    config_error(c, "train.keep_checkpoints",
                 "limits the checkpoints train.keep_checkpoint_every keeps, which keeps none (0)");
  if (n == 0 && c.eval.average_by == "best")
    config_error(c, "eval.average_by",
                 "best chooses which kept checkpoints eval.average_checkpoints averages, which "
                 "is 0 (none: the final evaluation measures checkpoint_best)");
  if (n == 0) return;
  if (every == 0)
    config_error(c, "eval.average_checkpoints",
                 "averages checkpoints kept by train.keep_checkpoint_every, which keeps none (0)");
  if (c.train.max_updates / every < n)
    config_error(c, "eval.average_checkpoints",
                 std::to_string(n) + " checkpoints to average, but train.max_updates " +
                     std::to_string(c.train.max_updates) + " / train.keep_checkpoint_every " +
                     std::to_string(every) + " keeps " +
                     std::to_string(c.train.max_updates / every));
  const int stay = c.train.keep_checkpoints;
  if (stay > 0 && stay < n)
    config_error(c, "eval.average_checkpoints",
                 std::to_string(n) + " checkpoints to average, but train.keep_checkpoints " +
                     std::to_string(stay) + " leaves only the " +
                     (c.eval.average_by == "best" ? "best " : "newest ") + std::to_string(stay));
  check_average_by(c);
}

// Each of train.valid_at's budgets as `--at` reads one, but for least: a run knows no other.
void check_valid_at(const RunConfig& c) {
  for (const std::string& text : c.train.valid_at) {
    std::string why;
    if (!parse_budget_text(text, /*allow_least=*/false, why))
      config_error(c, "train.valid_at", why);
  }
}

// An alert needs both an event and a command (experiments/notify.h).
void check_notify(const RunConfig& c) {
  if (c.notify.on.empty() != c.notify.command.empty())
    config_error(c, c.notify.on.empty() ? "notify.command" : "notify.on",
                 c.notify.on.empty() ? "is set, but notify.on names no event to run it on"
                                     : "names events, but notify.command is empty");
}

}  // namespace

void check_config(const RunConfig& c) {
  // Ranges are declared with the keys (config_schema.cpp); the rules below relate keys.
  for (const auto& field : config_fields()) {
    // inf and nan are no setting of any number (`train.lr=.inf` was "must be > 0, got inf").
    if (field.type == FieldType::Double && !std::isfinite(numeric_value(c, field)))
      config_error(c, field.key, "must be a finite number, got " + field_value_text(c, field));
    if (!field.range.limited()) continue;
    const double value = numeric_value(c, field);
    if (!field.range.contains(value))
      config_error(c, field.key,
                   "must be " + field.range.text() + ", got " + field_value_text(c, field));
  }
  const auto& m = c.model;
  if (m.d_model % m.heads != 0)
    config_error(
        c, "model.heads",
        std::to_string(m.heads) + " heads do not divide d_model = " + std::to_string(m.d_model));

  // An activation-checkpointed layer is recomputed in backward, after the forward has put
  // each linear's weight back (core/model/sigma_reparam.h): it would compute with the raw W.
  if (m.sigma_reparam && c.train.checkpoint_activations)
    config_error(c, "model.sigma_reparam", "cannot be combined with train.checkpoint_activations");
  check_notify(c);
  check_valid_at(c);
  check_evaluation(c);

  if (is_decoder_only(m)) {
    // No encoder, one embedding: keys that shape what is not there would be silently ignored.
    for (const char* key : {"model.encoder_layers", "model.share_embeddings"})
      if (set_to_other_than_default(c, key))
        config_error(c, key, "means nothing with model.arch: decoder_only (there is no encoder)");
    if (!m.tie_decoder_embeddings)
      config_error(c, "model.tie_decoder_embeddings",
                   "model.arch: decoder_only ties its input embedding to the output projection");
    if (c.train.valid_bleu > 0)
      config_error(c, "train.valid_bleu",
                   "a language model (model.arch: decoder_only) has no translations to score; its "
                   "validation logs valid_bpb where the data counts bytes");
  }

  const auto& d = c.data;
  // A language model reads one sequence per example: lm text, or a synthetic pair joined.
  if (is_decoder_only(m) && d.task == "parallel")
    config_error(c, "data.task",
                 "model.arch: decoder_only has no encoder to read source files: use data.task "
                 "lm (data.train_text, ...) or synthetic");
  if (d.task == "parallel") {
    for (const char* key : {"data.train_source", "data.train_target"})
      if (field_value_text(c, *find_field(key)).empty())
        config_error(c, key, "required when data.task is 'parallel'");
    require_existing_files(c, {"data.train_source", "data.train_target", "data.valid_source",
                               "data.valid_target", "data.test_source", "data.test_target"});
    if (d.valid_source.empty() != d.valid_target.empty())
      config_error(c, "data.valid_target", "give both valid_source and valid_target, or neither");
    if (d.test_source.empty() != d.test_target.empty())
      config_error(c, "data.test_target", "give both test_source and test_target, or neither");
    if (d.vocab.size < 8) config_error(c, "data.vocab.size", "must be at least 8");
  } else if (d.task == "lm") {
    if (!is_decoder_only(m))
      config_error(c, "data.task",
                   "lm text has no source side to translate: it trains model.arch: decoder_only");
    for (const char* key : {"data.train_source", "data.train_target", "data.valid_source",
                            "data.valid_target", "data.test_source", "data.test_target"})
      if (set_to_other_than_default(c, key))
        config_error(c, key, "means nothing with data.task: lm (use data.train_text, ...)");
    if (d.train_text.empty()) config_error(c, "data.train_text", "required when data.task is 'lm'");
    require_existing_files(c, {"data.train_text", "data.valid_text", "data.test_text"});
    if (d.vocab.size < 8) config_error(c, "data.vocab.size", "must be at least 8");
  } else {
    const auto& s = d.synthetic;
    if (s.max_len < s.min_len) config_error(c, "data.synthetic.max_len", "must be >= min_len");
  }

  check_training(c);

  const std::string& dev = c.device;
  if (!(dev == "auto" || dev == "cpu" || dev == "cuda" || dev.rfind("cuda:", 0) == 0))
    config_error(c, "device", "expected auto, cpu, cuda or cuda:N, got '" + dev + "'");
}

}  // namespace fathom
