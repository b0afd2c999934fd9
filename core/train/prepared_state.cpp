#include "core/train/prepared_state.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "base/util/file_write.h"

namespace fathom {

std::function<std::optional<std::string>(int64_t, const std::string&)> stored_tag_reader(
    const db::Store& store) {
  return [&store](int64_t run, const std::string& key) -> std::optional<std::string> {
    const auto tags = store.tags(run);
    auto it = tags.find(key);
    if (it == tags.end()) return std::nullopt;
    return it->second;
  };
}

void keep_prepared_state(db::Store& store, int64_t run, const std::string& artifacts_dir,
                         const PreparedState& state) {
  for (const auto& [key, value] : state.tags) store.set_tag(run, key, value);
  if (artifacts_dir.empty()) return;
  for (const auto& file : state.files) {
    std::filesystem::create_directories(artifacts_dir);
    const auto path = std::filesystem::path(artifacts_dir) / file.file_name;
    write_file_or_throw(path.string(), file.contents, file.kind);
    store.add_artifact(run, file.kind, path.string(), 0);
  }
}

}  // namespace fathom
