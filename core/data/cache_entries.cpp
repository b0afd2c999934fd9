#include "core/data/cache_entries.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "base/config/config.h"
#include "base/util/file_bytes.h"
#include "base/util/file_write.h"
#include "core/data/prepared_corpus.h"
#include "core/data/vocab_cache.h"
#include "db/run_paths.h"

namespace fathom {
namespace fs = std::filesystem;
namespace {

std::uint64_t folder_bytes(const fs::path& folder) {
  std::uint64_t bytes = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(folder, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec)) bytes += it->file_size(ec);
  return bytes;
}

// A corpus entry's state: whether its text files still give its key.
void check_corpus(const fs::path& root, CacheEntry& e) {
  try {
    const nlohmann::json meta =
        nlohmann::json::parse(read_file_bytes((fs::path(e.folder) / "meta.json").string()));
    e.pairs = meta.at("pairs").get<std::uint64_t>();
    e.source = meta.at("source").get<std::string>();
    e.target = meta.at("target").get<std::string>();
    VocabConfig vocab;
    vocab.type = meta.at("vocab").at("type").get<std::string>();
    vocab.size = meta.at("vocab").at("size").get<int>();
    if (!fs::path(e.target).is_absolute() ||
        (!e.source.empty() && !fs::path(e.source).is_absolute())) {
      e.state = "relative paths";
      return;
    }
    // Gone only where the system says no such file; any other failure to look is not knowing.
    bool gone = false, unknown = false;
    for (const std::string& file : {e.source, e.target}) {
      if (file.empty()) continue;
      std::error_code ec;
      const bool there = fs::exists(file, ec);
      gone = gone || (!there && !ec);
      unknown = unknown || ec;
    }
    if (gone || unknown) {
      e.state = unknown ? "text unreadable" : "text gone";
      return;
    }
    try {
      e.state = remembered_corpus_key(root.string(), e.source, e.target, vocab) == e.name
                    ? "current"
                    : "text changed";
    } catch (const std::exception&) {
      e.state = "text unreadable";  // here, now (permissions, a FIFO): kept, not judged
    }
  } catch (const std::exception&) {
    e.state = "unreadable";  // no meta.json (an older format) or a damaged one
  }
}

void list_folder(const fs::path& folder, const fs::path& cache_root, bool earlier,
                 const std::set<std::string>& in_cache, std::vector<CacheEntry>& out) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return;
  std::vector<CacheEntry> here;
  for (const auto& item : fs::directory_iterator(folder, ec)) {
    const std::string name = item.path().filename().string();
    const std::string partial_key = key_of_partial_entry(name);
    const std::string temporary_key = key_of_temporary_entry(name);
    const bool learning_vocabulary = !key_of_vocabulary_temporary(name).empty();
    const bool corpus = is_corpus_entry_name(name);
    if (!item.is_directory(ec) || (!corpus && partial_key.empty() && temporary_key.empty() &&
                                   !learning_vocabulary && !is_vocabulary_entry_name(name)))
      continue;
    CacheEntry e;
    e.name = name;
    e.folder = item.path().string();
    e.kind = !partial_key.empty()                            ? CacheEntry::Kind::partial
             : !temporary_key.empty() || learning_vocabulary ? CacheEntry::Kind::temporary
             : corpus                                        ? CacheEntry::Kind::corpus
                                                             : CacheEntry::Kind::vocabulary;
    e.in_earlier = earlier;
    e.bytes = folder_bytes(item.path());
    // A temporary folder is in use while its key's lock is held; once not, it never will be
    // again (each preparation writes into a folder of its own name). A partial in the earlier
    // folder is never resumed: preparation resumes in the cache.
    if (learning_vocabulary)  // its learner holds a lock on the folder itself
      e.state = vocabulary_being_learnt(e.folder) ? "learning" : "killed while learning";
    else if (e.kind == CacheEntry::Kind::temporary)
      e.state = corpus_entry_locked(folder.string(), temporary_key) ? "preparing"
                                                                    : "killed while preparing";
    else if (e.kind == CacheEntry::Kind::partial)
      e.state = fs::exists(folder / partial_key / "meta.json", ec) ? "entry whole"
                : earlier                                          ? "stopped earlier"
                                                                   : "stopped";
    else if (corpus)
      check_corpus(cache_root, e);
    else
      e.state = "vocabulary";
    if (earlier && in_cache.count(name)) e.state = "also in the cache";
    here.push_back(std::move(e));
  }
  std::sort(here.begin(), here.end(),
            [](const CacheEntry& a, const CacheEntry& b) { return a.name < b.name; });
  out.insert(out.end(), here.begin(), here.end());
}

}  // namespace

std::vector<CacheEntry> cache_entries(const std::string& cache_root) {
  std::vector<CacheEntry> out;
  list_folder(cache_root, cache_root, false, {}, out);
  std::set<std::string> in_cache;
  for (const auto& e : out) in_cache.insert(e.name);
  const std::string earlier = db::earlier_cache_root(cache_root);
  if (!earlier.empty()) list_folder(earlier, cache_root, true, in_cache, out);
  return out;
}

std::uint64_t prune_cache_entries(const std::vector<CacheEntry>& entries) {
  std::uint64_t freed = 0;
  for (const auto& e : entries) {
    if (!e.prunable()) continue;
    const fs::path folder(e.folder);
    const fs::path aside =
        folder.parent_path() / ("." + e.name + ".pruned-" + unique_temp_suffix());
    std::error_code ec;
    fs::rename(folder, aside, ec);
    if (ec) continue;  // gone already (another prune)
    fs::remove_all(aside, ec);
    freed += e.bytes;
  }
  return freed;
}

}  // namespace fathom
