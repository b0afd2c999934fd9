#include "experiments/run_query.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>

#include "base/util/strings.h"
#include "experiments/config_leaves.h"

namespace fathom::experiments {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return lower(haystack).find(lower(needle)) != std::string::npos;
}

std::optional<double> as_number(const std::string& word) {
  if (word.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(word.c_str(), &end);
  if (end != word.c_str() + word.size() || std::isnan(v)) return std::nullopt;
  return v;
}

// As an ostream with precision 12 writes it ("0.001", "1e-05", "12"), without an ostream.
std::string number_word(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return buf;
}

}  // namespace

QueryValue number_query_value(double v) { return QueryValue{v, number_word(v)}; }

namespace {

// --- tokens ------------------------------------------------------------------------------

enum class Kind { Word, Quoted, Op, Open, Close, End };
struct Token {
  Kind kind;
  std::string text;
  int column;  // from 1
};

bool operator_char(char c) { return c == '=' || c == '!' || c == '<' || c == '>' || c == '~'; }

std::vector<Token> tokens_of(const std::string& text) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    const int column = static_cast<int>(i) + 1;
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '(' || c == ')') {
      out.push_back({c == '(' ? Kind::Open : Kind::Close, std::string(1, c), column});
      ++i;
    } else if (c == '"' || c == '\'') {
      const size_t close = text.find(c, i + 1);
      if (close == std::string::npos) throw RunQueryError("the quote is never closed", column);
      out.push_back({Kind::Quoted, text.substr(i + 1, close - i - 1), column});
      i = close + 1;
    } else if (operator_char(c)) {
      std::string op(1, c);  // = == != < <= > >= ~
      if (i + 1 < text.size() && text[i + 1] == '=' && c != '~') op += '=';
      if (op == "!") throw RunQueryError("'!' must be '!='", column);
      i += op.size();
      out.push_back({Kind::Op, op == "==" ? "=" : op, column});
    } else {
      size_t end = i;
      while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) &&
             !operator_char(text[end]) && text[end] != '(' && text[end] != ')' &&
             text[end] != '"' && text[end] != '\'')
        ++end;
      out.push_back({Kind::Word, text.substr(i, end - i), column});
      i = end;
    }
  }
  out.push_back({Kind::End, "", static_cast<int>(text.size()) + 1});
  return out;
}

bool keyword(const Token& t, const char* word) {
  return t.kind == Kind::Word && lower(t.text) == word;
}

}  // namespace

// --- the expression -----------------------------------------------------------------------

struct RunQuery::Node {
  enum class Kind { And, Or, Not, Compare, Text } kind;
  std::vector<std::shared_ptr<const Node>> children;
  std::string field, op;
  QueryValue value;  // Compare: the right side; Text: the word

  bool eval(const RunFields& run) const {
    switch (kind) {
      case Kind::And:
        return std::all_of(children.begin(), children.end(),
                           [&](const auto& c) { return c->eval(run); });
      case Kind::Or:
        return std::any_of(children.begin(), children.end(),
                           [&](const auto& c) { return c->eval(run); });
      case Kind::Not:
        return !children[0]->eval(run);
      case Kind::Text:
        for (const char* f : {"name", "status", "sweep"})
          if (const auto v = run(f); v && contains(v->text, value.text)) return true;
        return false;
      case Kind::Compare:
        return compare(run);
    }
    return false;
  }

  bool compare(const RunFields& run) const {
    const std::optional<QueryValue> have = run(field);
    if (!have) return false;
    if (op == "~") return contains(have->text, value.text);
    if (have->number && value.number) {
      const double a = *have->number, b = *value.number;
      if (std::isnan(a)) return false;
      const bool equal = a == b || std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b));
      if (op == "=") return equal;
      if (op == "!=") return !equal;
      if (op == "<") return a < b && !equal;
      if (op == "<=") return a < b || equal;
      if (op == ">") return a > b && !equal;
      return a > b || equal;  // >=
    }
    if (op == "=") return lower(have->text) == lower(value.text);
    if (op == "!=") return lower(have->text) != lower(value.text);
    return false;  // an order between a number and a word, or two words: no match
  }
};

namespace {

using Node = RunQuery::Node;
using NodePtr = std::shared_ptr<const Node>;

class Parser {
 public:
  Parser(std::vector<Token> tokens, std::vector<std::string>* fields)
      : tokens_(std::move(tokens)), fields_(fields) {}

  NodePtr parse() {
    if (peek().kind == Kind::End) return nullptr;
    NodePtr root = disjunction();
    if (peek().kind == Kind::Close) throw RunQueryError("')' without its '('", peek().column);
    if (peek().kind != Kind::End)
      throw RunQueryError("unexpected '" + peek().text + "'", peek().column);
    return root;
  }

 private:
  const Token& peek() const { return tokens_[pos_]; }
  Token take() { return tokens_[pos_++]; }

  bool starts_operand(const Token& t) const {
    return t.kind == Kind::Quoted || t.kind == Kind::Open ||
           (t.kind == Kind::Word && !keyword(t, "and") && !keyword(t, "or"));
  }

  NodePtr disjunction() {
    std::vector<NodePtr> parts{conjunction()};
    while (keyword(peek(), "or")) {
      take();
      parts.push_back(conjunction());
    }
    return join(Node::Kind::Or, std::move(parts));
  }

  NodePtr conjunction() {
    std::vector<NodePtr> parts{negation()};
    for (;;) {
      if (keyword(peek(), "and")) {
        take();
        parts.push_back(negation());
      } else if (starts_operand(peek())) {  // words side by side: and
        parts.push_back(negation());
      } else {
        break;
      }
    }
    return join(Node::Kind::And, std::move(parts));
  }

  NodePtr negation() {
    if (keyword(peek(), "not")) {
      take();
      auto node = std::make_shared<Node>();
      node->kind = Node::Kind::Not;
      node->children.push_back(negation());
      return node;
    }
    return operand();
  }

  NodePtr operand() {
    const Token t = take();
    if (t.kind == Kind::Open) {
      NodePtr inside = disjunction();
      if (peek().kind != Kind::Close) throw RunQueryError("'(' is never closed", t.column);
      take();
      return inside;
    }
    if (t.kind == Kind::End)
      throw RunQueryError("the expression ends where a term should be", t.column);
    if (t.kind != Kind::Word && t.kind != Kind::Quoted)
      throw RunQueryError("expected a field or a word, found '" + t.text + "'", t.column);
    if (keyword(t, "and") || keyword(t, "or"))
      throw RunQueryError("'" + t.text + "' needs a term before it", t.column);
    auto node = std::make_shared<Node>();
    if (peek().kind != Kind::Op) {  // a bare word
      node->kind = Node::Kind::Text;
      node->value.text = t.text;
      return node;
    }
    if (t.kind == Kind::Quoted)
      throw RunQueryError("a field name is a word, not a quoted text", t.column);
    const Token op = take();
    const Token value = take();
    if (value.kind != Kind::Word && value.kind != Kind::Quoted)
      throw RunQueryError("expected a value after '" + op.text + "'", value.column);
    node->kind = Node::Kind::Compare;
    node->field = t.text;
    node->op = op.text;
    node->value.text = value.text;
    if (value.kind == Kind::Word) node->value.number = as_number(value.text);
    if ((op.text == "<" || op.text == "<=" || op.text == ">" || op.text == ">=") &&
        !node->value.number)
      throw RunQueryError("'" + op.text + "' needs a number, got '" + value.text + "'",
                          value.column);
    if (std::find(fields_->begin(), fields_->end(), t.text) == fields_->end())
      fields_->push_back(t.text);
    return node;
  }

  static NodePtr join(Node::Kind kind, std::vector<NodePtr> parts) {
    if (parts.size() == 1) return parts[0];
    auto node = std::make_shared<Node>();
    node->kind = kind;
    node->children = std::move(parts);
    return node;
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  std::vector<std::string>* fields_;
};

// Every leaf of a config: its dotted path and value (null leaves left out).
void flatten(const nlohmann::json& j, const std::string& path,
             std::map<std::string, QueryValue>* out) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items())
      flatten(value, path.empty() ? key : path + "." + key, out);
  } else if (j.is_number()) {
    (*out)[path] = number_query_value(j.get<double>());
  } else if (j.is_string()) {
    (*out)[path] = QueryValue{std::nullopt, j.get<std::string>()};
  } else if (j.is_boolean()) {
    (*out)[path] = QueryValue{std::nullopt, j.get<bool>() ? "true" : "false"};
  } else if (j.is_array()) {
    (*out)[path] = QueryValue{std::nullopt, j.dump()};
  }
}

}  // namespace

RunQuery RunQuery::parse(const std::string& text) {
  RunQuery query;
  query.root_ = Parser(tokens_of(text), &query.fields_).parse();
  return query;
}

bool RunQuery::matches(const RunFields& run) const { return !root_ || root_->eval(run); }

namespace {

// A run's own fields, which field_of answers before its metrics and config.
const char* const kRunOwnFields[] = {"id",    "updates", "diverged_step", "name",
                                     "sweep", "status",  "host",          "device"};

bool is_run_own_field(const std::string& lower_field) {
  return std::find(std::begin(kRunOwnFields), std::end(kRunOwnFields), lower_field) !=
         std::end(kRunOwnFields);
}

bool plain_word(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '+' ||
           c == '-';
  });
}

// The terms every match satisfies: the root and, through `and`s, its children.
void collect_config_words(const Node& node, std::vector<std::string>* words) {
  if (node.kind == Node::Kind::And) {
    for (const auto& child : node.children) collect_config_words(*child, words);
  } else if (node.kind == Node::Kind::Compare && node.op == "=" &&
             !is_run_own_field(lower(node.field)) && plain_word(node.value.text) &&
             !as_number(node.value.text)) {  // "0.001" in quotes still equals a number's text
    const std::string word = lower(node.value.text);
    words->push_back(word == "true" || word == "false" ? word : "\"" + word + "\"");
  }
}

}  // namespace

std::vector<std::string> RunQuery::config_words() const {
  std::vector<std::string> words;
  if (root_) collect_config_words(*root_, &words);
  return words;
}

namespace {

// A config's leaf as a query value: nullopt for null and objects (which are no leaves).
std::optional<QueryValue> leaf_value(const nlohmann::json& j) {
  if (j.is_number()) return number_query_value(j.get<double>());
  if (j.is_string()) return QueryValue{std::nullopt, j.get<std::string>()};
  if (j.is_boolean()) return QueryValue{std::nullopt, j.get<bool>() ? "true" : "false"};
  if (j.is_array()) return QueryValue{std::nullopt, j.dump()};
  return std::nullopt;
}

// The leaf at a dotted path ("model.norm").
std::optional<QueryValue> leaf_at(const nlohmann::json& config, const std::string& path) {
  const nlohmann::json* node = &config;
  for (size_t from = 0;;) {
    if (!node->is_object()) return std::nullopt;
    const size_t dot = path.find('.', from);
    const auto it = node->find(path.substr(from, dot == std::string::npos ? dot : dot - from));
    if (it == node->end()) return std::nullopt;
    node = &*it;
    if (dot == std::string::npos) return leaf_value(*node);
    from = dot + 1;
  }
}

// Counts the leaves named `key` at any depth, keeping the first.
void find_leaves_named(const nlohmann::json& j, const std::string& key,
                       const nlohmann::json** first, int* count) {
  for (const auto& [k, value] : j.items()) {
    if (value.is_object()) {
      find_leaves_named(value, key, first, count);
    } else if (k == key && !value.is_null()) {
      if (++*count == 1) *first = &value;
    }
  }
}

// What fields_of answers from besides the config: a run's own fields, without its configs'
// texts (a RunFields is made per run and per filter pass).
struct RunOwnFields {
  int64_t id, updates;
  std::optional<int64_t> diverged_step;
  std::string name, sweep, status, host, device;
  std::map<std::string, double> final_metrics;

  explicit RunOwnFields(const db::RunRecord& r)
      : id(r.id),
        updates(r.updates),
        diverged_step(r.diverged_step),
        name(r.name),
        sweep(r.sweep),
        status(r.status),
        host(r.host),
        device(r.device),
        final_metrics(r.final_metrics) {}
};

// `field` (lower case) of a config: the leaf at its dotted path, or the one leaf with that
// last part.
std::optional<QueryValue> config_field(const nlohmann::json& tree, const std::string& field) {
  if (!tree.is_object()) return std::nullopt;
  if (auto leaf = leaf_at(tree, field)) return leaf;
  if (field.find('.') != std::string::npos) return std::nullopt;
  const nlohmann::json* only = nullptr;
  int count = 0;
  find_leaves_named(tree, field, &only, &count);
  return count == 1 ? leaf_value(*only) : std::nullopt;
}

// `field` (lower case) of a run: its own fields, then its final metrics -- neither needs the
// config -- then `config_field(field)`.
template <typename ConfigField>
std::optional<QueryValue> field_of(const RunOwnFields& run, const std::string& field,
                                   ConfigField&& config_field) {
  if (field == "id") return number_query_value(static_cast<double>(run.id));
  if (field == "updates") return number_query_value(static_cast<double>(run.updates));
  if (field == "diverged_step")
    return run.diverged_step
               ? std::optional(number_query_value(static_cast<double>(*run.diverged_step)))
               : std::nullopt;
  for (const auto& [name, text] : {std::pair<const char*, const std::string*>{"name", &run.name},
                                   {"sweep", &run.sweep},
                                   {"status", &run.status},
                                   {"host", &run.host},
                                   {"device", &run.device}})
    if (field == name) return QueryValue{std::nullopt, *text};
  if (auto metric = run.final_metrics.find(field); metric != run.final_metrics.end())
    return std::isnan(metric->second) ? std::nullopt
                                      : std::optional(number_query_value(metric->second));
  return config_field(field);
}

// A config read on first use: a sort by a final metric reads none. The fields named up front
// (a filter's, a sort's, the columns') are read from the text in one pass (ConfigLeaves)
// without parsing it; any other field, or a named list, parses it whole.
struct LazyConfig {
  std::string text;
  std::shared_ptr<const std::vector<std::string>> names;  // lower case
  bool leaves_read = false;
  std::optional<ConfigLeaves> leaves;
  std::shared_ptr<const nlohmann::json> parsed;

  std::optional<QueryValue> operator()(const std::string& field) {
    if (!parsed && !leaves_read && names &&
        std::find(names->begin(), names->end(), field) != names->end()) {
      leaves = ConfigLeaves::read(text, *names);
      leaves_read = true;
    }
    if (leaves && leaves->knows(field)) return leaves->value(field);
    if (!parsed) {
      auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
      parsed = std::make_shared<const nlohmann::json>(j.is_discarded() ? nlohmann::json::object()
                                                                       : std::move(j));
      std::string().swap(text);  // its bytes too: a listing holds thousands of these
    }
    return config_field(*parsed, field);
  }
};

}  // namespace

RunFields fields_of(const db::RunRecord& run, const nlohmann::json& config) {
  return fields_of(run, std::make_shared<const nlohmann::json>(config));
}

// Each field is looked up when asked, in the parsed config: a filter names few of a config's
// ~150 leaves, and flattening them all (each number written out) cost ~110 us a run.
RunFields fields_of(const db::RunRecord& run, std::shared_ptr<const nlohmann::json> config) {
  auto own = std::make_shared<const RunOwnFields>(run);
  if (!config) config = std::make_shared<const nlohmann::json>(nlohmann::json::object());
  return [own, config](const std::string& name) {
    return field_of(*own, lower(name),
                    [&](const std::string& field) { return config_field(*config, field); });
  };
}

ConfigFields config_fields_of(std::string config_json,
                              std::shared_ptr<const std::vector<std::string>> names) {
  auto config = std::make_shared<LazyConfig>();
  config->text = std::move(config_json);
  config->names = std::move(names);
  return [config](const std::string& field) { return (*config)(field); };
}

RunFields fields_answering_config(const db::RunRecord& run, ConfigFields config) {
  auto own = std::make_shared<const RunOwnFields>(run);
  return [own, config = std::move(config)](const std::string& name) {
    return field_of(*own, lower(name), config);
  };
}

RunFields fields_parsing_config(const db::RunRecord& run,
                                std::shared_ptr<const std::vector<std::string>> names) {
  return fields_answering_config(run, config_fields_of(run.config_json, std::move(names)));
}

std::shared_ptr<const std::vector<std::string>> lower_case_fields(
    const std::vector<std::string>& names) {
  auto out = std::make_shared<std::vector<std::string>>();
  for (const auto& n : names) out->push_back(lower(n));
  return out;
}

std::vector<std::string> field_names(const db::RunRecord& run, const nlohmann::json& config) {
  std::map<std::string, QueryValue> leaves;
  flatten(config, "", &leaves);
  std::vector<std::string> names(std::begin(kRunOwnFields), std::end(kRunOwnFields));
  for (const auto& [metric, value] : run.final_metrics) names.push_back(metric);
  for (const auto& [path, value] : leaves) {
    names.push_back(path);
    names.push_back(path.substr(path.rfind('.') == std::string::npos ? 0 : path.rfind('.') + 1));
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::string did_you_mean_field(const std::string& field,
                               const std::vector<std::string>& known_fields) {
  const std::string closest = closest_match(lower(field), known_fields);
  return closest.empty() ? "" : " (did you mean " + closest + "?)";
}

}  // namespace fathom::experiments
