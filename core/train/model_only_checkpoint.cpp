#include "core/train/model_only_checkpoint.h"

#include <filesystem>

#include "base/config/config_io.h"
#include "core/model/transformer.h"
#include "core/train/checkpoint_contents.h"

namespace fathom {

void save_model_only(const std::string& from, const std::string& to) {
  CheckpointContents saved = read_checkpoint(from);
  save_checkpoint(to, *saved.model, nullptr, saved.state, saved.config_yaml);
}

}  // namespace fathom
