#include "core/train/model_only_checkpoint.h"

#include <filesystem>

#include "base/config/config_io.h"
#include "core/model/transformer.h"
#include "core/train/checkpoint.h"

namespace fathom {

void save_model_only(const std::string& from, const std::string& to) {
  const std::string config_yaml = checkpoint_config(from);
  const RunConfig config =
      load_config_string(config_yaml, from, std::filesystem::path(from).parent_path().string());
  Transformer model(config.model, checkpoint_vocab_size(from));
  TrainerState state;
  load_checkpoint(from, *model, nullptr, &state);
  save_checkpoint(to, *model, nullptr, state, config_yaml);
}

}  // namespace fathom
