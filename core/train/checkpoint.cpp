#include "core/train/checkpoint.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "base/util/error.h"
#include "base/util/file_write.h"
#include "core/model/transformer.h"
#include "core/train/checkpoint_checksum.h"
#include "core/train/checkpoint_contents.h"
#include "core/train/optimizer.h"

namespace fathom {
namespace fs = std::filesystem;

std::string archive_key(const std::string& prefix, const std::string& name) {
  std::string key = prefix + "__";
  for (char c : name) key += (c == '.') ? '|' : c;
  return key;
}

namespace {

torch::Tensor scalar(double v) { return torch::tensor(v, torch::kFloat64); }
torch::Tensor scalar(int64_t v) { return torch::tensor(v, torch::kInt64); }

torch::Tensor read_tensor(torch::serialize::InputArchive& archive, const std::string& key) {
  torch::Tensor t;
  archive.read(key, t, /*is_buffer=*/true);
  return t;
}

// Checksums of the tensors read, against those written beside them (checkpoints from before
// them have none: nothing to compare).
const char* const kModelChecksum = "checksum_model";
const char* const kOptimizerChecksum = "checksum_optimizer";

void compare_checksum(torch::serialize::InputArchive& archive, const char* key,
                      const TensorChecksum& read, const std::string& path, const char* what) {
  torch::Tensor written;
  if (!archive.try_read(key, written, true) || written.item<int64_t>() == read.value()) return;
  throw InputError(path, 0, "",
                   std::string("cannot read checkpoint: ") + what +
                       " do not match the checksum written with them (the file changed on disk "
                       "since: a flipped bit, a bad block)");
}
}  // namespace

std::string checkpoint_bytes(TransformerImpl& model, const Optimizer* optimizer,
                             const TrainerState& state, const std::string& config_yaml) {
  torch::serialize::OutputArchive archive;
  TensorChecksum model_sum, optimizer_sum;
  const auto write = [&](const std::string& key, const torch::Tensor& tensor) {
    archive.write(key, tensor, /*is_buffer=*/true);
    model_sum.add(key, tensor);
  };
  for (const auto& p : model.named_parameters())
    write(archive_key("param", p.key()), p.value().detach().cpu());
  for (const auto& b : model.named_buffers())
    write(archive_key("buffer", b.key()), b.value().cpu());
  archive.write(kModelChecksum, torch::tensor(model_sum.value(), torch::kInt64), true);
  if (optimizer) {
    optimizer->save(archive, &optimizer_sum);
    archive.write(kOptimizerChecksum, torch::tensor(optimizer_sum.value(), torch::kInt64), true);
  }
  archive.write("state_update", scalar(state.update), true);
  archive.write("state_epoch", scalar(state.epoch), true);
  archive.write("state_batch_in_epoch", scalar(state.batch_in_epoch), true);
  archive.write("state_first_loss", scalar(state.first_loss), true);
  // "valid_loss" in the keys is historical: the value is train.best_metric's.
  archive.write("state_best_valid_loss", scalar(state.validation.best), true);
  archive.write("state_best_valid_update", scalar(state.validation.best_update), true);
  archive.write("state_validations_since_best", scalar(state.validation.validations_since_best),
                true);
  archive.write("state_improved_valid_loss", scalar(state.validation.improved), true);
  archive.write("state_improved_valid_update", scalar(state.validation.improved_update), true);
  archive.write("state_loss_scale", scalar(state.loss_scale), true);
  archive.write("state_loss_scale_clean_updates", scalar(state.loss_scale_clean_updates), true);
  const LogWindowState& w = state.window;
  // float64 holds these counts exactly (< 2^53) and the sums bit for bit.
  archive.write("state_log_window",
                torch::tensor({static_cast<double>(w.tokens), static_cast<double>(w.updates),
                               static_cast<double>(w.grad_norm_updates),
                               static_cast<double>(w.skipped), w.smoothed, w.nll, w.grad_norm},
                              torch::kFloat64),
                true);
  const NoiseScaleWindow& noise = w.noise;
  archive.write("state_noise_window",
                torch::tensor({static_cast<double>(noise.updates), noise.trace, noise.trace_sq,
                               noise.grad_sq, noise.grad_sq_sq},
                              torch::kFloat64),
                true);
  archive.write("state_train_seconds", scalar(state.train_seconds), true);
  archive.write("state_train_tokens", scalar(state.train_tokens), true);
  archive.write("state_train_flops", scalar(state.train_flops), true);
  archive.write("state_valid_bleu_pending", scalar(state.valid_bleu_pending), true);
  archive.write("config_yaml", c10::IValue(config_yaml));
  // Serialized in memory, then written with every error checked: LibTorch's own file writer
  // aborts the whole process (an exception out of a destructor) when the disk fills up.
  std::string bytes;
  archive.save_to([&bytes](const void* data, size_t n) {
    bytes.append(static_cast<const char*>(data), n);
    return n;
  });
  return bytes;
}

void save_checkpoint(const std::string& path, TransformerImpl& model, const Optimizer* optimizer,
                     const TrainerState& state, const std::string& config_yaml) {
  const std::string bytes = checkpoint_bytes(model, optimizer, state, config_yaml);
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  const std::string temporary = path + ".tmp";
  write_file_or_throw(temporary, bytes, "checkpoint");
  fs::rename(temporary, path);
}

// The trainer state of a checkpoint; keys a version before them lacks keep their defaults.
static void read_trainer_state(torch::serialize::InputArchive& archive, TrainerState* state) {
  state->update = read_tensor(archive, "state_update").item<int64_t>();
  state->epoch = read_tensor(archive, "state_epoch").item<int64_t>();
  state->batch_in_epoch = read_tensor(archive, "state_batch_in_epoch").item<int64_t>();
  state->first_loss = read_tensor(archive, "state_first_loss").item<double>();
  state->validation.best = read_tensor(archive, "state_best_valid_loss").item<double>();
  // Absent before train.patience: a count from 0 (such a run never asked for it).
  torch::Tensor best_update, since_best;
  if (archive.try_read("state_best_valid_update", best_update, true))
    state->validation.best_update = best_update.item<int64_t>();
  if (archive.try_read("state_validations_since_best", since_best, true))
    state->validation.validations_since_best = since_best.item<int64_t>();
  // Absent before train.patience_min_delta: the best, which it equals with no min_delta.
  torch::Tensor improved, improved_update;
  state->validation.improved = archive.try_read("state_improved_valid_loss", improved, true)
                                   ? improved.item<double>()
                                   : state->validation.best;
  state->validation.improved_update =
      archive.try_read("state_improved_valid_update", improved_update, true)
          ? improved_update.item<int64_t>()
          : state->validation.best_update;
  // Absent from checkpoints written before fp16 training existed: keep the defaults.
  torch::Tensor scale, clean;
  if (archive.try_read("state_loss_scale", scale, true)) state->loss_scale = scale.item<double>();
  if (archive.try_read("state_loss_scale_clean_updates", clean, true))
    state->loss_scale_clean_updates = clean.item<int64_t>();
  torch::Tensor seconds, tokens;  // absent before cumulative training time: 0
  if (archive.try_read("state_train_seconds", seconds, true))
    state->train_seconds = seconds.item<double>();
  if (archive.try_read("state_train_tokens", tokens, true))
    state->train_tokens = tokens.item<int64_t>();
  torch::Tensor flops;  // absent before Fathom counted compute: unknown past update 0
  if (archive.try_read("state_train_flops", flops, true))
    state->train_flops = flops.item<double>();
  else
    state->train_flops = state->update > 0 ? std::numeric_limits<double>::quiet_NaN() : 0.0;
  torch::Tensor pending;  // absent before valid_bleu decodes could be cut short: none
  if (archive.try_read("state_valid_bleu_pending", pending, true))
    state->valid_bleu_pending = pending.item<int64_t>();
  // Absent from checkpoints written before preemption support: an empty window.
  torch::Tensor window;
  if (archive.try_read("state_log_window", window, true) && window.numel() == 7) {
    const torch::Tensor w = window.to(torch::kFloat64).contiguous();
    const double* v = w.data_ptr<double>();
    state->window = LogWindowState{static_cast<int64_t>(v[0]),
                                   static_cast<int64_t>(v[1]),
                                   static_cast<int64_t>(v[2]),
                                   static_cast<int64_t>(v[3]),
                                   v[4],
                                   v[5],
                                   v[6],
                                   NoiseScaleWindow{}};
  }
  torch::Tensor noise;  // absent before train.noise_scale: an empty window
  if (archive.try_read("state_noise_window", noise, true) && noise.numel() == 5) {
    const torch::Tensor n = noise.to(torch::kFloat64).contiguous();
    const double* v = n.data_ptr<double>();
    state->window.noise = NoiseScaleWindow{static_cast<int64_t>(v[0]), v[1], v[2], v[3], v[4]};
  }
}

void restore_checkpoint(torch::serialize::InputArchive& archive, const std::string& path,
                        TransformerImpl& model, Optimizer* optimizer, TrainerState* state) {
  try {
    torch::NoGradGuard no_grad;
    TensorChecksum model_sum, optimizer_sum;
    for (auto& p : model.named_parameters()) {
      const std::string key = archive_key("param", p.key());
      torch::Tensor saved = read_tensor(archive, key);
      if (saved.sizes() != p.value().sizes())
        throw InputError(path, 0, p.key(), "checkpoint shape differs from the model's");
      model_sum.add(key, saved);
      p.value().copy_(saved);
    }
    for (auto& b : model.named_buffers()) {
      const std::string key = archive_key("buffer", b.key());
      torch::Tensor saved = read_tensor(archive, key);
      model_sum.add(key, saved);
      b.value().set_data(saved.to(b.value().device()));
    }
    compare_checksum(archive, kModelChecksum, model_sum, path, "the model's tensors");
    if (optimizer) {
      optimizer->load(archive, &optimizer_sum);
      compare_checksum(archive, kOptimizerChecksum, optimizer_sum, path, "the optimizer's moments");
    }
    if (state) read_trainer_state(archive, state);
  } catch (const InputError&) {
    throw;
  } catch (const c10::Error& e) {
    throw InputError(path, 0, "",
                     std::string("cannot read checkpoint: ") + e.what_without_backtrace());
  }
}

void load_checkpoint(const std::string& path, TransformerImpl& model, Optimizer* optimizer,
                     TrainerState* state) {
  if (!fs::exists(path)) throw InputError(path, 0, "", "checkpoint not found");
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path);
  } catch (const c10::Error& e) {
    throw InputError(path, 0, "",
                     std::string("cannot read checkpoint: ") + e.what_without_backtrace());
  }
  restore_checkpoint(archive, path, model, optimizer, state);
}

void load_checkpoint_bytes(const std::string& bytes, const std::string& what,
                           TransformerImpl& model, Optimizer* optimizer, TrainerState* state) {
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(bytes.data(), bytes.size());
  } catch (const c10::Error& e) {
    throw InputError(what, 0, "",
                     std::string("cannot read checkpoint: ") + e.what_without_backtrace());
  }
  restore_checkpoint(archive, what, model, optimizer, state);
}

bool checkpoint_has_optimizer_state(const std::string& path) {
  // The archive's index tells without reading the tensors (a fork lists every kept checkpoint).
  if (const auto named = archive_index_names(path, "optimizer_step")) return *named;
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(path);
    torch::Tensor step;
    return archive.try_read("optimizer_step", step);
  } catch (const std::exception&) {
    return false;
  }
}

std::string archive_config_yaml(torch::serialize::InputArchive& archive) {
  c10::IValue value;
  archive.read("config_yaml", value);
  return value.toStringRef();
}

int64_t archive_vocab_size(torch::serialize::InputArchive& archive) {
  // The encoder-decoder's source embedding, or a decoder-only model's one embedding.
  torch::Tensor embedding;
  if (!archive.try_read(archive_key("param", "source_embedding"), embedding, true))
    embedding = read_tensor(archive, archive_key("param", "embedding"));
  return embedding.size(0);
}

std::string checkpoint_config(const std::string& path) {
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path);
    return archive_config_yaml(archive);
  } catch (const c10::Error& e) {
    throw InputError(path, 0, "",
                     std::string("cannot read checkpoint: ") + e.what_without_backtrace());
  }
}

int64_t checkpoint_vocab_size(const std::string& path) {
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path);
    return archive_vocab_size(archive);
  } catch (const c10::Error& e) {
    throw InputError(path, 0, "",
                     std::string("cannot read checkpoint: ") + e.what_without_backtrace());
  }
}

}  // namespace fathom
