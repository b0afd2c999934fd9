#include "core/train/checkpoint_contents.h"

#include <caffe2/serialize/inline_container.h>

#include <cstdint>
#include <filesystem>
#include <string_view>

#include "base/config/config_io.h"
#include "base/util/error.h"
#include "core/model/depth_parameterization.h"

namespace fathom {
namespace fs = std::filesystem;

CheckpointContents read_checkpoint(const std::string& path, bool with_optimizer) {
  if (!fs::exists(path)) throw InputError(path, 0, "", "checkpoint not found");
  torch::serialize::InputArchive archive;
  CheckpointContents c;
  int64_t vocab = 0;
  try {
    archive.load_from(path);
    c.config_yaml = archive_config_yaml(archive);
    vocab = archive_vocab_size(archive);
  } catch (const c10::Error& e) {
    throw InputError(path, 0, "",
                     std::string("cannot read checkpoint: ") + e.what_without_backtrace());
  }
  c.config = load_config_string(c.config_yaml, path, fs::path(path).parent_path().string());
  c.model = Transformer(c.config.model, vocab);
  if (with_optimizer)
    c.optimizer =
        std::make_unique<Optimizer>(parameter_groups(*c.model, c.config.model), c.config.train,
                                    Optimizer::matrices_for(c.config.train, c.model->catalog()));
  restore_checkpoint(archive, path, *c.model, c.optimizer.get(), &c.state);
  c.model->eval();
  return c;
}

std::optional<bool> archive_index_names(const std::string& path, const std::string& key) {
  try {
    caffe2::serialize::PyTorchStreamReader reader(path);
    if (!reader.hasRecord("data.pkl")) return std::nullopt;
    const auto [data, size] = reader.getRecord("data.pkl");
    const std::string_view index(static_cast<const char*>(data.get()), size);
    // An entry's name is pickled as BINUNICODE: 'X', its length (4 bytes, little-endian), the
    // bytes. Written so, it cannot be part of a string value (which would need those control
    // bytes in it).
    const auto pickled = [](const std::string& name) {
      std::string s = "X";
      for (int shift = 0; shift < 32; shift += 8)
        s.push_back(static_cast<char>((name.size() >> shift) & 0xff));
      return s + name;
    };
    if (index.find(pickled(key)) != std::string_view::npos) return true;
    // Every checkpoint names its config: where that is not found as expected, the index is
    // written another way, and its silence about `key` says nothing.
    if (index.find(pickled("config_yaml")) == std::string_view::npos) return std::nullopt;
    return false;
  } catch (const c10::Error&) {
    return std::nullopt;
  }
}

}  // namespace fathom
