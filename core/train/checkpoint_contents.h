#pragma once
// A checkpoint read in one pass of its file, and what can be told of it without reading its
// tensors. Rebuilding a model from a checkpoint alone needs its config, its vocabulary size
// and its weights; read one by one (checkpoint_config, checkpoint_vocab_size, load_checkpoint)
// that was three reads of the whole file -- 3 x 0.8 s for a Transformer-base checkpoint with
// Adam's moments (bench/bench_checkpoint.cpp).
#include <memory>
#include <optional>
#include <string>

#include "base/config/config.h"
#include "core/model/transformer.h"
#include "core/train/checkpoint.h"
#include "core/train/optimizer.h"

namespace fathom {

struct CheckpointContents {
  std::string config_yaml;               // as saved
  RunConfig config;                      // parsed, paths relative to the checkpoint's folder
  Transformer model{nullptr};            // its shape, its weights, in eval mode
  std::unique_ptr<Optimizer> optimizer;  // read_checkpoint's `with_optimizer` only
  TrainerState state;
};

// Reads `path` once. With `with_optimizer`, an optimizer built as the trainer builds it for
// this model holds the checkpoint's moments (InputError where it has none). Throws InputError
// naming the file when it is missing or unreadable, its checksums disagree or its config fails.
CheckpointContents read_checkpoint(const std::string& path, bool with_optimizer = false);

// Whether the archive at `path` names `key` among its entries, read from its small pickled
// index (data.pkl) alone, not its tensors; nullopt where that index cannot tell (not such an
// archive, or one a LibTorch wrote in another way), and the caller must load the archive.
std::optional<bool> archive_index_names(const std::string& path, const std::string& key);

}  // namespace fathom
