#pragma once
// The table of every config key: its dotted name, type, documentation and where it lives in
// RunConfig. Parsing, `--set key=value`, type errors, "did you mean" suggestions, JSON/YAML
// output and the generated reference (docs/config.md) all read this one table, so a new
// option is one line in config_schema.cpp plus its field in config.h.
#include <functional>
#include <string>
#include <vector>

#include "core/config/config.h"

namespace fathom {

enum class FieldType { Int, UInt, Double, Bool, String, Path, DoublePair };

struct FieldSpec {
  std::string key;                    // dotted key, e.g. "model.d_model"
  FieldType type;
  std::string doc;                    // one line for the reference
  std::vector<std::string> choices;   // allowed values of a String field (empty: any)
  std::function<void*(RunConfig&)> member;  // where the value lives
};

// Every key, in documentation order.
const std::vector<FieldSpec>& config_fields();

// The spec for `key`, or nullptr.
const FieldSpec* find_field(const std::string& key);

// The names of all keys (for suggestions).
std::vector<std::string> config_keys();

// The shortest decimal text (15 to 17 significant digits) that reads back as exactly `v`.
std::string double_text(double v);

// A field's current value rendered as YAML / JSON scalar text.
std::string field_value_text(const RunConfig& config, const FieldSpec& field);

// A Markdown table of every key with type, default and documentation.
std::string config_reference_markdown();

}  // namespace fathom
