#pragma once
// The cache's working folders are hidden and named after the entry they make: "." + key +
// a marker (".partial", ".tmp-" + a suffix). Reading the key back, for corpora
// (prepared_corpus.h) and vocabularies (vocab_cache.h) alike.
#include <cstddef>
#include <string>

namespace fathom {

// `name`'s characters [1, end) where `name` starts with "." and they are `key_prefix` followed by
// more ("corpus-<hash>", "spm-<...>"); "" otherwise (end npos or <= 1 included).
inline std::string key_after_dot(const std::string& name, std::size_t end,
                                 const std::string& key_prefix) {
  if (name.empty() || name[0] != '.' || end == std::string::npos || end <= 1) return "";
  std::string key = name.substr(1, end - 1);
  return key.size() > key_prefix.size() && key.compare(0, key_prefix.size(), key_prefix) == 0 ? key
                                                                                              : "";
}

}  // namespace fathom
