#pragma once
// The leaves of a run's config a filter names, read from its JSON text in one pass of
// nlohmann's SAX parser without building the document: what RunQuery's fields answer for a
// config key (the leaf at a dotted path, or the one leaf anywhere with that last part), at
// about half the cost of parsing a whole config for the few keys a filter names. Internal to
// experiments/run_query.cpp; a config whose objects repeat a key (no JSON writer Fathom or
// Python uses makes one) may answer otherwise than its parsed document. Torch-free.
#include <optional>
#include <string>
#include <vector>

#include "experiments/run_query.h"

namespace fathom::experiments {

class ConfigLeaves {
 public:
  // The leaves `names` (lower case, as fields are asked) name. nullopt where the answer needs
  // the whole document: a named leaf is a list (answered as the list's JSON text). A text
  // that is not JSON, or not an object, has no leaves.
  static std::optional<ConfigLeaves> read(const std::string& json,
                                          const std::vector<std::string>& names);

  bool knows(const std::string& name) const;
  // For a name read: the leaf at that dotted path (a top-level key for a name without dots),
  // else, for a name without dots, the leaf named so where exactly one is (outside lists).
  std::optional<QueryValue> value(const std::string& name) const;

  struct Asked {
    std::string name;
    bool dotted = false;
    std::optional<QueryValue> at_path;
    int named_count = 0;  // leaves named so at any depth (outside lists)
    std::optional<QueryValue> first_named;
  };

 private:
  std::vector<Asked> asked_;
};

}  // namespace fathom::experiments
