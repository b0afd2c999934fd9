#pragma once
// The table of every config key: its dotted name, type, documentation and where it lives in
// RunConfig. Parsing, `--set key=value`, type errors, "did you mean" suggestions, JSON/YAML
// output and the generated reference (docs/config.md) all read this one table, so a new
// option is one line in config_schema.cpp plus its field in config.h.
#include <functional>
#include <string>
#include <vector>

#include "base/config/config.h"

namespace fathom {

enum class FieldType { Int, UInt, Double, Bool, String, Path, DoublePair, StringList };

// The values a numeric field (Int, UInt, Double) accepts; check_config() enforces it and the
// reference prints it, so a key's range is declared once, beside the key.
struct Range {
  double min = -1e308, max = 1e308;
  bool min_open = false, max_open = false;  // open: the bound itself is excluded
  bool limited() const { return min > -1e308 || max < 1e308; }
  bool contains(double v) const;
  std::string text() const;  // "> 0", ">= 0", "in [0, 1)", ...
};
inline const Range kPositive{0, 1e308, true, false};
inline const Range kNonNegative{0, 1e308, false, false};
inline const Range kProbability{0, 1, false, true};    // [0, 1): dropout, label smoothing
inline const Range kUnitInterval{0, 1, false, false};  // [0, 1]

struct FieldSpec {
  std::string key;  // dotted key, e.g. "model.d_model"
  FieldType type;
  std::string doc;                          // one line for the reference
  std::vector<std::string> choices;         // allowed values of a String field, or of each
                                            // item of a StringList (empty: any)
  Range range;                              // allowed values of a numeric field (default: any)
  std::function<void*(RunConfig&)> member;  // where the value lives
};

// A numeric field's value as a double (Int, UInt, Double).
double numeric_value(const RunConfig& config, const FieldSpec& field);

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
