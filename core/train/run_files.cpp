#include "core/train/run_files.h"

#include <algorithm>

#include <filesystem>
#include <regex>

namespace fathom {
namespace fs = std::filesystem;

RunFiles::RunFiles(db::Store& store, db::Lease lease, std::string dir)
    : store_(store), lease_(lease), dir_(std::move(dir)) {
  for (auto a : store_.artifacts(lease_.run)) {
    a.path = (fs::path(dir_) / fs::path(a.path).filename()).string();
    rows_[a.kind] = a;
  }
}

std::string RunFiles::name(const std::string& stem, std::optional<int64_t> update,
                           const std::string& ext) const {
  std::string file = stem;
  if (update) file += ".u" + std::to_string(*update);
  file += ".g" + std::to_string(lease_.generation) + ext;
  return (fs::path(dir_) / file).string();
}

std::string RunFiles::current(const std::string& kind) const {
  auto it = rows_.find(kind);
  return it == rows_.end() ? "" : it->second.path;
}

int64_t RunFiles::current_step(const std::string& kind) const {
  auto it = rows_.find(kind);
  return it == rows_.end() ? -1 : it->second.step.value_or(-1);
}

bool RunFiles::named_by_a_row(const std::string& path) const {
  for (const auto& [kind, a] : rows_)
    if (a.path == path) return true;
  return false;
}

std::vector<db::Artifact> RunFiles::rows() const {
  std::vector<db::Artifact> out;
  for (const auto& [kind, a] : rows_) out.push_back(a);
  return out;
}

void RunFiles::record(const std::string& kind, const std::string& path, int64_t step,
                      const std::string& previous_kind, const std::vector<std::string>& retired) {
  std::vector<db::Artifact> rows{{kind, path, step}};
  const std::string before = current(kind);
  // The files no row may name once this is recorded.
  std::vector<std::string> displaced{before};
  if (!previous_kind.empty() && !before.empty() && before != path) {
    db::Artifact moved = rows_.at(kind);
    moved.kind = previous_kind;
    rows.push_back(moved);
    displaced = {current(previous_kind)};
  }
  for (const auto& r : retired) displaced.push_back(current(r));
  try {
    store_.add_artifacts(lease_, rows, retired);
  } catch (...) {
    std::error_code ec;
    if (path != before) fs::remove(path, ec);  // never recorded: nobody will read it
    throw;
  }
  settle(rows, retired, displaced);
}

void RunFiles::adopt(const std::string& kind, const std::string& path, int64_t step) {
  const std::string displaced = current(kind);
  const std::vector<db::Artifact> rows{{kind, path, step}};
  store_.add_artifacts(lease_, rows);  // on failure `path` stays: it is a recorded file
  settle(rows, {}, {displaced});
}

void RunFiles::settle(const std::vector<db::Artifact>& recorded,
                      const std::vector<std::string>& retired,
                      const std::vector<std::string>& displaced) {
  for (const auto& kind : retired) rows_.erase(kind);
  for (const auto& a : recorded) rows_[a.kind] = a;
  std::error_code ec;
  for (const auto& file : displaced)
    if (!file.empty() && !named_by_a_row(file)) fs::remove(file, ec);
}

void RunFiles::remove_strays() const {
  // <stem>[.u<update>].g<generation><ext>[.tmp]
  static const std::regex ours(R"(^.+?(\.u[0-9]+)?\.g([0-9]+)\.[A-Za-z0-9]+(\.tmp)?$)");
  std::error_code ec;
  // increment(ec), not a range-for: the range-for's increment throws where the folder goes away
  // under the walk (a `fathom delete` beside a stale worker), and tidying is never worth that.
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::directory_entry& entry = *it;
    const std::string file = entry.path().filename().string();
    std::smatch m;
    std::error_code type_ec;
    if (!entry.is_regular_file(type_ec) || !std::regex_match(file, m, ours)) continue;
    if (std::stoll(m[2].str()) >= lease_.generation) continue;
    std::error_code remove_ec;
    if (!named_by_a_row((fs::path(dir_) / file).string())) fs::remove(entry.path(), remove_ec);
  }
}

}  // namespace fathom
