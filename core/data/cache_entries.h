#pragma once
// What a store's cache holds, and which of it no run can use again: `fathom data cache`. A
// corpus whose text changes is prepared again under a new key and its old entry stays (a WMT14
// En-Fr entry holds gigabytes), as do entries an earlier version left in the earlier folder
// (core/data/earlier_cache.h) that the cache now has too.
#include <cstdint>
#include <string>
#include <vector>

namespace fathom {

struct CacheEntry {
  std::string name;    // corpus-<hash> or spm-<type>-<size>-<hash>
  std::string folder;  // where it is
  enum class Kind { corpus, partial, temporary, vocabulary };
  // a prepared corpus, a stopped preparation's chunks, a preparation's output folder before it
  // is renamed into place, a vocabulary
  Kind kind = Kind::vocabulary;
  bool in_earlier = false;     // in the earlier folder, not the cache
  std::uint64_t bytes = 0;     // its files' sizes
  std::uint64_t pairs = 0;     // a corpus's pairs (documents)
  std::string source, target;  // a corpus's text files ("" source: documents)
  // "current"; "text changed", "text gone", "unreadable", "also in the cache" (an earlier
  // folder's copy): no run can use it, --prune removes it; kept whatever --prune: "vocabulary"
  // (which runs use one is not recorded), "relative paths" (text named relative to the folder
  // it was prepared from, which is not known: entries before 2026-12-04), "text unreadable"
  // (its files there but not readable by this process), "stopped" (a partial
  // preparation the next one of the same text resumes from); prunable: "entry whole" (a
  // partial whose entry was placed, left by a process killed before it removed it), "stopped
  // earlier" (a partial in the earlier folder: nothing resumes from there). A temporary folder
  // is "preparing" (kept: a process holds its key's lock) or "killed while preparing" (prunable);
  // a vocabulary's ("."+key+".tmp-...": its training text and model) "learning" (kept: its
  // learner holds a lock on the folder) or "killed while learning" (prunable).
  std::string state;
  // "corpus", "partial", "temporary", "vocabulary": as `fathom data cache` shows it.
  const char* kind_name() const {
    switch (kind) {
      case Kind::corpus:
        return "corpus";
      case Kind::partial:
        return "partial";
      case Kind::temporary:
        return "temporary";
      case Kind::vocabulary:
        break;
    }
    return "vocabulary";
  }
  bool prunable() const {
    return state == "text changed" || state == "text gone" || state == "unreadable" ||
           state == "also in the cache" || state == "entry whole" || state == "stopped earlier" ||
           state == "killed while preparing" || state == "killed while learning";
  }
};

// The entries under `cache_root` and its earlier folder, by folder then name. Checking a
// corpus takes its files' key as a start does (the remembered key: a stat(), or a read of the
// text where it changed since).
std::vector<CacheEntry> cache_entries(const std::string& cache_root);

// Removes the prunable entries (renamed aside first, so a process that mapped one keeps its
// pages); returns the bytes freed.
std::uint64_t prune_cache_entries(const std::vector<CacheEntry>& entries);

}  // namespace fathom
