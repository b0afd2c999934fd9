#pragma once
// The one shape of every registry of named extensions: model methods, analyses, launchers, store
// backends. Entries are added once, by name, at start-up (each extension's file has a register
// function; one line calls it); lookups of an unknown name all word their error the same way,
// with the registered names and the closest one ("did you mean").
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "base/util/strings.h"

namespace fathom {

template <typename Entry>
class Registry {
 public:
  // `what` names one entry in messages: "method", "analysis", "launcher".
  explicit Registry(std::string what) : what_(std::move(what)) {}

  void add(const std::string& name, Entry entry) {
    if (!entries_.emplace(name, std::move(entry)).second)
      throw std::logic_error(what_ + " registered twice: " + name);
  }
  const Entry* find(const std::string& name) const {
    auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : &it->second;
  }
  // The entry `name`; std::invalid_argument worded by unknown_name() when there is none.
  const Entry& at(const std::string& name) const {
    if (const Entry* entry = find(name)) return *entry;
    throw std::invalid_argument(unknown_name(name));
  }
  // "unknown analysis 'betta' (registered: beta, linearize); did you mean 'beta'?"
  std::string unknown_name(const std::string& name) const {
    const std::vector<std::string> all = names();
    const std::string hint = closest_match(name, all);
    return "unknown " + what_ + " '" + name + "' (registered: " + join(all, ", ") + ")" +
           (hint.empty() ? "" : "; did you mean '" + hint + "'?");
  }
  std::vector<std::string> names() const {  // sorted
    std::vector<std::string> out;
    for (const auto& entry : entries_) out.push_back(entry.first);
    return out;
  }
  bool contains(const std::string& name) const { return find(name) != nullptr; }
  // (name, entry) pairs in name order.
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }

 private:
  std::string what_;
  std::map<std::string, Entry> entries_;
};

}  // namespace fathom
