#include "experiments/config_leaves.h"

#include <algorithm>
#include <utility>

#include <nlohmann/json.hpp>

namespace fathom::experiments {
namespace {

// Follows the object nesting of the text -- each value's dotted path and key -- and hands the
// leaves asked for to `asked`. The contents of lists are skipped, as a field never looks into
// one; a list asked for stops the read.
class LeafReader : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit LeafReader(std::vector<ConfigLeaves::Asked>* asked) : asked_(asked) {}
  bool needs_document = false;

  // A value is made only for a leaf asked for: writing out every number of a config cost
  // more than the read.
  bool null() override {
    return value([] { return std::optional<QueryValue>(); });
  }
  bool boolean(bool v) override {
    return value([v] { return std::optional(QueryValue{std::nullopt, v ? "true" : "false"}); });
  }
  bool number_integer(number_integer_t v) override {
    return value([v] { return std::optional(number_query_value(static_cast<double>(v))); });
  }
  bool number_unsigned(number_unsigned_t v) override {
    return value([v] { return std::optional(number_query_value(static_cast<double>(v))); });
  }
  bool number_float(number_float_t v, const string_t&) override {
    return value([v] { return std::optional(number_query_value(v)); });
  }
  bool string(string_t& v) override {
    return value([&v] { return std::optional(QueryValue{std::nullopt, v}); });
  }
  bool binary(binary_t&) override {
    return value([] { return std::optional<QueryValue>(); });
  }
  bool key(string_t& k) override {
    key_ = k;
    return true;
  }
  bool start_object(std::size_t) override {
    if (skipping_ > 0) return ++skipping_, true;
    if (!started_) return started_ = true;  // the root
    const bool dotted = key_.find('.') != std::string::npos;
    opened_.emplace_back(prefix_.size(), dotted);
    dotted_keys_ += dotted;
    prefix_ += key_ + ".";
    return true;
  }
  bool end_object() override {
    if (skipping_ > 0) return --skipping_, true;
    if (opened_.empty()) return true;  // the root's end
    prefix_.resize(opened_.back().first);
    dotted_keys_ -= opened_.back().second;
    opened_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    if (skipping_ > 0) return ++skipping_, true;
    if (!started_) return false;  // not an object: no leaves
    for (const auto& a : *asked_)
      if (names_this_value(a)) {
        needs_document = true;
        return false;
      }
    skipping_ = 1;
    return true;
  }
  bool end_array() override { return --skipping_, true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  // The value now read sits at this path, or has this last part.
  bool at_path(const ConfigLeaves::Asked& a) const {
    return dotted_keys_ == 0 && key_.find('.') == std::string::npos &&
           a.name.size() == prefix_.size() + key_.size() &&
           a.name.compare(0, prefix_.size(), prefix_) == 0 &&
           a.name.compare(prefix_.size(), std::string::npos, key_) == 0;
  }
  bool names_this_value(const ConfigLeaves::Asked& a) const {
    return at_path(a) || (!a.dotted && key_ == a.name);
  }

  template <typename MakeValue>
  bool value(MakeValue&& make) {
    if (skipping_ > 0) return true;
    if (!started_) return false;  // not an object: no leaves
    for (auto& a : *asked_) {
      if (!names_this_value(a)) continue;
      const std::optional<QueryValue> v = make();
      if (!v) return true;  // null is no leaf
      if (at_path(a)) a.at_path = *v;
      if (!a.dotted && key_ == a.name && ++a.named_count == 1) a.first_named = *v;
    }
    return true;
  }

  std::vector<ConfigLeaves::Asked>* asked_;
  std::string key_, prefix_;  // prefix_: the open objects' keys below the root, each + "."
  std::vector<std::pair<size_t, bool>> opened_;  // prefix_'s length before each, its key dotted
  int dotted_keys_ = 0;  // keys holding a dot in prefix_: no dotted path reaches below them
  int skipping_ = 0;     // lists open
  bool started_ = false;
};

}  // namespace

std::optional<ConfigLeaves> ConfigLeaves::read(const std::string& json,
                                               const std::vector<std::string>& names) {
  ConfigLeaves leaves;
  for (const auto& n : names)
    if (!leaves.knows(n)) {
      Asked a;
      a.name = n;
      a.dotted = n.find('.') != std::string::npos;
      leaves.asked_.push_back(std::move(a));
    }
  LeafReader reader(&leaves.asked_);
  if (nlohmann::json::sax_parse(json, &reader)) return leaves;
  if (reader.needs_document) return std::nullopt;
  for (auto& a : leaves.asked_) {  // not JSON, or not an object: no leaves
    a.at_path.reset();
    a.named_count = 0;
    a.first_named.reset();
  }
  return leaves;
}

bool ConfigLeaves::knows(const std::string& name) const {
  return std::any_of(asked_.begin(), asked_.end(), [&](const Asked& a) { return a.name == name; });
}

std::optional<QueryValue> ConfigLeaves::value(const std::string& name) const {
  for (const auto& a : asked_) {
    if (a.name != name) continue;
    if (a.at_path) return a.at_path;
    if (!a.dotted && a.named_count == 1) return a.first_named;
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace fathom::experiments
