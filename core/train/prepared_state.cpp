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

void keep_prepared_state(db::Store& store, RunFiles& files, const PreparedState& state) {
  for (const auto& [key, value] : state.tags) store.set_tag(files.lease(), key, value);
  if (files.dir().empty()) return;
  for (const auto& file : state.files) {
    std::filesystem::create_directories(files.dir());
    const std::filesystem::path given(file.file_name);
    const std::string path =
        files.name(given.stem().string(), std::nullopt, given.extension().string());
    write_file_or_throw(path, file.contents, file.kind);
    files.record(file.kind, path, 0);
  }
}

}  // namespace fathom
