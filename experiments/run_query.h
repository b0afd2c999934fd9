#pragma once
// A filter expression over runs (the desktop app's runs table, issue 36):
//
//   norm=pre and valid_ppl<3 and status=finished
//   (lr>=0.001 or name~deep) and not status=diverged
//   post                      (a bare word: name, status or sweep contains it)
//
// A comparison is FIELD OP VALUE with OP one of = != < <= > >= ~ (contains). FIELD is, in
// this order: a run's own field (id, name, sweep, status, host, device, updates,
// diverged_step), a final metric (valid_ppl, test_bleu, ...), or a config key -- dotted
// (model.norm) or by its last part alone where that is unambiguous (norm, lr, seed). Words
// and numbers compare as numbers when both sides are numbers, else as text (= and != ignore
// case). A run without the field fails every comparison on it. `and` binds tighter than
// `or`; words side by side mean `and`. Keywords are case-insensitive. Values with spaces or
// operators go in quotes ("a b").
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "db/records.h"

namespace fathom::experiments {

// A malformed expression: what is wrong and where (column, from 1).
class RunQueryError : public std::runtime_error {
 public:
  RunQueryError(const std::string& what, int column)
      : std::runtime_error(what + " (column " + std::to_string(column) + ")"), column_(column) {}
  int column() const { return column_; }

 private:
  int column_;
};

// A field's value for one run: a number, or text.
struct QueryValue {
  std::optional<double> number;
  std::string text;
};

// A number as fields answer it: its text to 12 significant digits ("0.001", "1e-05", "12").
QueryValue number_query_value(double v);

// What a query asks of one run; nullopt: the run has no such field.
using RunFields = std::function<std::optional<QueryValue>(const std::string& field)>;

// A run's fields as the expression language names them. `config` is the run's parsed
// config_json (parse it once per run; it never changes): shared, it is not copied, and a field
// is looked up in it only when asked. The first form copies `config`.
RunFields fields_of(const db::RunRecord& run, std::shared_ptr<const nlohmann::json> config);
RunFields fields_of(const db::RunRecord& run, const nlohmann::json& config);
// The same, reading the run's config_json only when a config key is first asked (a filter or a
// sort on final metrics and run fields reads none); not JSON: no config keys. The fields in
// `names` (lower_case_fields: those a selection will ask) are read in one pass without parsing
// the config, at about half the cost; any other parses it.
RunFields fields_parsing_config(const db::RunRecord& run,
                                std::shared_ptr<const std::vector<std::string>> names = nullptr);
std::shared_ptr<const std::vector<std::string>> lower_case_fields(
    const std::vector<std::string>& names);

// The config keys of one config_json text (asked in lower case), answered as
// fields_parsing_config answers them: the `names` read in one pass at the first ask, any other
// by parsing the text. For a caller that keeps the answers across queries rather than a
// parsed config a run (the app's runs filter, gui/runs_filter.h).
using ConfigFields = std::function<std::optional<QueryValue>(const std::string& lower_field)>;
ConfigFields config_fields_of(std::string config_json,
                              std::shared_ptr<const std::vector<std::string>> names);
// A run's fields whose config keys `config` answers.
RunFields fields_answering_config(const db::RunRecord& run, ConfigFields config);

// Every name fields_of answers for this run: its columns, final metrics, config keys in full
// and by their last part. What a typo in a filter is matched against.
std::vector<std::string> field_names(const db::RunRecord& run, const nlohmann::json& config);

// " (did you mean norm?)" for a field no run has that is a small edit from one of
// `known_fields`; "" when none is close.
std::string did_you_mean_field(const std::string& field,
                               const std::vector<std::string>& known_fields);

class RunQuery {
 public:
  // Throws RunQueryError. An empty or blank text matches every run.
  static RunQuery parse(const std::string& text);
  bool matches(const RunFields& run) const;
  // The fields its comparisons name, in order of appearance (for "no run has test_bleu").
  const std::vector<std::string>& fields() const { return fields_; }
  bool empty() const { return !root_; }
  // Texts the config JSON of every run it matches holds (ASCII case ignored), one for each of
  // its top-level `key=word` terms on config keys, for a store to narrow a listing with before
  // any config is parsed (db::Store::list_runs): "\"pre\"" for norm=pre, "true" for
  // tied=true. A word of letters, digits and _ . + - that is no number can equal only a
  // config leaf's text (a metric's is a number's; a run's own fields are not config), and such
  // a leaf is a string, written in JSON as the word in quotes, or true or false, written bare.
  // Empty where it names no such term (or, not, ~, numbers, values needing quotes).
  std::vector<std::string> config_words() const;

  struct Node;  // the parsed expression (run_query.cpp)

 private:
  std::shared_ptr<const Node> root_;
  std::vector<std::string> fields_;
};

}  // namespace fathom::experiments
