#include "base/config/config_io.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <type_traits>

#include "base/config/config_schema.h"
#include "base/config/corpus_path.h"
#include "base/config/lr_schedule.h"
#include "base/config/yaml_file.h"
#include "base/util/error.h"
#include "base/util/strings.h"

namespace fathom {
namespace fs = std::filesystem;

SourceLocation RunConfig::where(const std::string& key) const {
  auto it = locations.find(key);
  if (it != locations.end()) return it->second;
  return SourceLocation{source_file, 0};
}

void config_error(const RunConfig& config, const std::string& key, const std::string& message) {
  const SourceLocation loc = config.where(key);
  throw InputError(loc.file, loc.line, key, message);
}

namespace {

std::string leaf_of(const std::string& key) { return key.substr(key.rfind('.') + 1); }

// The valid key the user most likely meant by `key`, or "". The right name in the wrong
// section is the common mistake, so an exact match of the last part wins over edit distance
// (by edit distance alone "train.heads" would suggest "train.threads", not "model.heads").
std::string suggest_key(const std::string& key) {
  std::string best;
  int best_distance = 0;
  for (const auto& k : config_keys()) {
    if (leaf_of(k) != leaf_of(key)) continue;
    const int d = edit_distance(key, k);
    if (best.empty() || d < best_distance) {
      best = k;
      best_distance = d;
    }
  }
  return best.empty() ? closest_match(key, config_keys()) : best;
}

std::string did_you_mean(const std::string& hint) {
  return hint.empty() ? std::string() : "; did you mean '" + hint + "'?";
}

struct Parser {
  RunConfig& config;
  std::string origin;
  std::string base_dir;
  bool has_lines = true;  // false for a --set value: "line 1" of it would only mislead

  int line_of(const YAML::Node& node) const { return has_lines ? node.Mark().line + 1 : 0; }

  [[noreturn]] void fail(const YAML::Node& node, const std::string& key, const std::string& msg) {
    throw InputError(origin, node.IsDefined() ? line_of(node) : 0, key, msg);
  }

  void unknown_key(const YAML::Node& node, const std::string& key) {
    fail(node, key, "unknown key" + did_you_mean(suggest_key(key)));
  }

  template <typename T>
  T scalar(const YAML::Node& node, const std::string& key, const char* expected) {
    if (!node.IsScalar()) fail(node, key, std::string("expected ") + expected);
    try {
      return node.as<T>();
    } catch (const YAML::Exception&) {
      // An integer too large for the field is out of range, not "not an integer".
      if constexpr (std::is_integral_v<T>)
        if (looks_like_integer(node.Scalar()))
          fail(node, key,
               "out of range: at most " + std::to_string(std::numeric_limits<T>::max()) + ", got " +
                   node.Scalar());
      fail(node, key, std::string("expected ") + expected + ", got '" + node.Scalar() + "'");
    }
  }

  static bool looks_like_integer(const std::string& s) {
    const size_t digits = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
    return s.size() > digits && s.find_first_not_of("0123456789", digits) == std::string::npos;
  }

  // A path value as the run will use it: `corpus:NAME/FILE` in the corpora folder
  // (base/config/corpus_path.h), a relative path against the config file's folder.
  std::string resolve_path_value(const YAML::Node& node, const std::string& key,
                                 const std::string& value) {
    try {
      if (const auto in_corpus = corpus_file_path(value)) return *in_corpus;
    } catch (const std::invalid_argument& e) {
      fail(node, key, e.what());
    }
    if (!value.empty() && fs::path(value).is_relative() && !base_dir.empty())
      return (fs::path(base_dir) / value).lexically_normal().string();
    return value;
  }

  // A list of strings (`[diverged, failed]`; one word alone is a list of one), each item one
  // of the field's choices where it has some, none twice.
  std::vector<std::string> string_list(const FieldSpec& field, const YAML::Node& node) {
    std::vector<std::string> items;
    if (node.IsNull()) return items;
    if (node.IsScalar()) {
      items.push_back(scalar<std::string>(node, field.key, "a string"));
    } else if (node.IsSequence()) {
      for (const auto& item : node) {
        if (!item.IsScalar()) fail(item, field.key, "expected a list of strings");
        items.push_back(scalar<std::string>(item, field.key, "a string"));
      }
    } else {
      fail(node, field.key, "expected a list of strings");
    }
    for (size_t i = 0; i < items.size(); ++i) {
      if (!field.choices.empty() &&
          std::find(field.choices.begin(), field.choices.end(), items[i]) == field.choices.end())
        fail(node, field.key, not_one_of(items[i], field.choices));
      if (std::find(items.begin(), items.begin() + static_cast<long>(i), items[i]) !=
          items.begin() + static_cast<long>(i))
        fail(node, field.key, "'" + items[i] + "' is listed twice");
    }
    return items;
  }

  // `key_node` locates errors about the key itself (an empty value has no line of its own).
  void set_value(const FieldSpec& field, const YAML::Node& node, const YAML::Node& key_node) {
    void* p = field.member(config);
    const std::string& key = field.key;
    switch (field.type) {
      case FieldType::Int:
        *static_cast<int*>(p) = scalar<int>(node, key, "an integer");
        break;
      case FieldType::UInt: {
        if (node.IsScalar() && !node.Scalar().empty() && node.Scalar()[0] == '-')
          fail(node, key, "expected a non-negative integer");
        *static_cast<std::uint64_t*>(p) =
            scalar<std::uint64_t>(node, key, "a non-negative integer");
        break;
      }
      case FieldType::Double:
        *static_cast<double*>(p) = scalar<double>(node, key, "a number");
        break;
      case FieldType::Bool:
        *static_cast<bool*>(p) = scalar<bool>(node, key, "true or false");
        break;
      case FieldType::String:
      case FieldType::Path: {
        if (node.IsNull()) {
          // `key:` with nothing after it: an empty string, where one is allowed -- a field with
          // choices has no empty choice (found by fuzz/fuzz_config.cpp: `optimizer:` loaded as
          // "" and was written out as a config that did not load back).
          if (!field.choices.empty()) fail(key_node, key, not_one_of("", field.choices));
          *static_cast<std::string*>(p) = "";
          break;
        }
        std::string value = scalar<std::string>(node, key, "a string");
        if (!field.choices.empty() &&
            std::find(field.choices.begin(), field.choices.end(), value) == field.choices.end()) {
          fail(node, key, not_one_of(value, field.choices));
        }
        if (field.type == FieldType::Path) value = resolve_path_value(node, key, value);
        *static_cast<std::string*>(p) = value;
        break;
      }
      case FieldType::DoublePair: {
        if (!node.IsSequence() || node.size() != 2)
          fail(node, key, "expected a list of two numbers");
        auto& pair = *static_cast<std::array<double, 2>*>(p);
        pair[0] = scalar<double>(node[0], key, "a number");
        pair[1] = scalar<double>(node[1], key, "a number");
        break;
      }
      case FieldType::StringList:
        *static_cast<std::vector<std::string>*>(p) = string_list(field, node);
        break;
    }
    config.locations[key] = SourceLocation{origin, line_of(node)};
  }

  void walk(const YAML::Node& map, const std::string& prefix) {
    std::map<std::string, int> seen;  // YAML keeps a repeated key: the second would win silently
    for (const auto& entry : map) {
      // `? [a, b]: 1` or `? {a: 1}: 2` make a list or mapping the key (found by fuzzing).
      if (!entry.first.IsScalar())
        fail(entry.first, prefix,
             entry.first.IsNull() ? "a key is empty"
                                  : "a key must be a plain name, not a list or a mapping");
      const std::string name = entry.first.Scalar();
      const std::string key = prefix.empty() ? name : prefix + "." + name;
      const YAML::Node& value = entry.second;
      if (auto first = seen.find(name); first != seen.end())
        fail(entry.first, key, "given twice (first on line " + std::to_string(first->second) + ")");
      seen[name] = line_of(entry.first);
      // The same key written nested and dotted (train: {lr: ..} and train.lr: ..).
      if (auto set = config.locations.find(key);
          set != config.locations.end() && set->second.file == origin)
        fail(entry.first, key,
             "given twice (first on line " + std::to_string(set->second.line) + ")");
      if (const FieldSpec* field = find_field(key)) {
        set_value(*field, value, entry.first);
        continue;
      }
      // A section: some known key starts with "key.".
      bool is_section = false;
      for (const auto& k : config_keys())
        if (k.rfind(key + ".", 0) == 0) is_section = true;
      if (!is_section) unknown_key(entry.first, key);
      if (value.IsNull()) continue;  // an empty section keeps its defaults
      if (!value.IsMap()) fail(value, key, "expected a section (a mapping of keys)");
      walk(value, key);
    }
  }
};

// YAML indents with spaces only; a tab near the error is the likely cause, and the parser's
// own words ("illegal map value") do not say so.
std::string tab_hint(const std::string& yaml, int error_line) {
  std::istringstream lines(yaml);
  std::string line;
  for (int i = 0; std::getline(lines, line) && i <= error_line; ++i) {
    if (i < error_line - 1) continue;
    const auto indent = line.substr(0, line.find_first_not_of(" \t"));
    if (indent.find('\t') != std::string::npos)
      return " (line " + std::to_string(i + 1) + " is indented with a tab; YAML needs spaces)";
  }
  return "";
}

// Why `text` is not a config file at all, or "": binary content, or nothing but comments.
std::string not_a_config(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t'))
      return "is not a text file (byte " + std::to_string(c) + " at offset " + std::to_string(i) +
             ")";
  }
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first != std::string::npos && line[first] != '#') return "";
  }
  return "is empty: give at least the model, data and train sections (`fathom config --reference`)";
}

RunConfig parse(const std::string& yaml, const std::string& origin, const std::string& base_dir) {
  RunConfig config;
  config.source_file = origin;
  YAML::Node root;
  try {
    root = load_one_yaml_document(yaml, origin);
  } catch (const YAML::ParserException& e) {
    throw InputError(
        origin, e.mark.line + 1, "",
        "YAML syntax error: " + yaml_parse_error_text(e) + tab_hint(yaml, e.mark.line));
  }
  if (root.IsNull()) return config;
  if (!root.IsMap()) throw InputError(origin, 1, "", "expected a mapping of config keys");
  Parser{config, origin, base_dir}.walk(root, "");
  return config;
}

}  // namespace

RunConfig load_config_string(const std::string& yaml, const std::string& origin,
                             const std::string& base_dir) {
  return parse(yaml, origin, base_dir);
}

RunConfig load_config_file(const std::string& path) {
  const std::string text = read_yaml_file(path, "config file");
  const std::string base = fs::absolute(fs::path(path)).parent_path().string();
  if (const std::string why = not_a_config(text); !why.empty()) throw InputError(path, 0, "", why);
  RunConfig config = parse(text, path, base);
  if (config.locations.count("name") == 0) config.name = fs::path(path).stem().string();
  return config;
}

void apply_overrides(RunConfig& config, const std::vector<std::string>& overrides) {
  for (const auto& item : overrides) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--set", 0, item, "expected key=value");
    const std::string key = trim(item.substr(0, eq));
    const std::string value = item.substr(eq + 1);
    const FieldSpec* field = find_field(key);
    if (!field) throw InputError("--set", 0, key, "unknown key" + did_you_mean(suggest_key(key)));
    YAML::Node node;
    try {
      node = YAML::Load(value);
    } catch (const YAML::ParserException& e) {
      throw InputError("--set", 0, key,
                       "cannot parse value '" + value + "': " + yaml_parse_error_text(e));
    }
    Parser{config, "--set", fs::current_path().string(), /*has_lines=*/false}.set_value(*field,
                                                                                        node, node);
  }
}

nlohmann::json config_to_json(const RunConfig& config) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& field : config_fields()) {
    nlohmann::json* node = &out;
    const auto parts = split(field.key, '.');
    for (size_t i = 0; i + 1 < parts.size(); ++i) node = &(*node)[parts[i]];
    void* p = field.member(const_cast<RunConfig&>(config));
    nlohmann::json value;
    switch (field.type) {
      case FieldType::Int:
        value = *static_cast<int*>(p);
        break;
      case FieldType::UInt:
        value = *static_cast<std::uint64_t*>(p);
        break;
      case FieldType::Double:
        value = *static_cast<double*>(p);
        break;
      case FieldType::Bool:
        value = *static_cast<bool*>(p);
        break;
      case FieldType::String:
      case FieldType::Path:
        value = *static_cast<std::string*>(p);
        break;
      case FieldType::DoublePair: {
        const auto& pair = *static_cast<std::array<double, 2>*>(p);
        value = nlohmann::json::array({pair[0], pair[1]});
        break;
      }
      case FieldType::StringList:
        value = *static_cast<std::vector<std::string>*>(p);
        break;
    }
    (*node)[parts.back()] = value;
  }
  return out;
}

std::string not_one_of(const std::string& value, const std::vector<std::string>& choices) {
  const std::string hint = closest_match(value, choices);
  return "'" + value + "' is not one of " + join(choices, ", ") +
         (hint.empty() ? "" : "; did you mean '" + hint + "'?");
}

std::string config_to_yaml(const RunConfig& config) {
  YAML::Emitter out;
  std::function<void(const nlohmann::json&)> emit = [&](const nlohmann::json& j) {
    if (j.is_array()) {
      out << YAML::Flow << YAML::BeginSeq;
      for (const auto& v : j) emit(v);
      out << YAML::EndSeq;
    } else if (j.is_string()) {
      out << j.get<std::string>();
    } else if (j.is_boolean()) {
      out << j.get<bool>();
    } else if (j.is_number_float()) {
      out << double_text(j.get<double>());  // exact: the YAML must read back to this config
    } else {
      out << j.dump();
    }
  };
  // Emit in schema order (nlohmann::json sorts keys alphabetically).
  const nlohmann::json j = config_to_json(config);
  out << YAML::BeginMap;
  std::vector<std::string> open;
  for (const auto& field : config_fields()) {
    const auto parts = split(field.key, '.');
    std::vector<std::string> sections(parts.begin(), parts.end() - 1);
    size_t common = 0;
    while (common < open.size() && common < sections.size() && open[common] == sections[common])
      ++common;
    for (size_t i = open.size(); i > common; --i) out << YAML::EndMap;
    open.resize(common);
    for (size_t i = common; i < sections.size(); ++i) {
      out << YAML::Key << sections[i] << YAML::Value << YAML::BeginMap;
      open.push_back(sections[i]);
    }
    out << YAML::Key << parts.back() << YAML::Value;
    const nlohmann::json* node = &j;
    for (const auto& part : parts) node = &(*node)[part];
    emit(*node);
  }
  for (size_t i = 0; i < open.size(); ++i) out << YAML::EndMap;
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace fathom
