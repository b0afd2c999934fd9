// Parsing a sweep spec (docs/sweeps.md). Expansion and run checks: sweep_expand.cpp.
#include "experiments/sweep_spec.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "base/config/config_io.h"
#include "base/config/config_schema.h"
#include "base/config/yaml_file.h"
#include "base/util/error.h"
#include "base/util/strings.h"
#include "experiments/launcher_registry.h"

namespace fathom::experiments {
namespace fs = std::filesystem;

void set_config_key(RunConfig& config, const std::string& key, const std::string& yaml,
                    const SourceLocation& at) {
  try {
    apply_overrides(config, {key + "=" + yaml});
  } catch (const InputError& e) {
    // apply_overrides words the error (type, choices, "did you mean") but knows no location.
    throw InputError(at.file, at.line, key, e.message());
  }
  config.locations[key] = at;
}

std::vector<std::string> SweepSpec::axis_keys() const {
  std::vector<std::string> keys;
  for (const auto& axis : axes) keys.insert(keys.end(), axis.keys.begin(), axis.keys.end());
  return keys;
}

std::vector<std::string> sweep_keys() {
  std::vector<std::string> all = {"name", "base",  "fork",    "set",   "grid",
                                  "zip",  "seeds", "exclude", "notify"};
  for (const std::string& key : launcher_section_keys()) all.push_back(key);
  return all;
}

namespace {

int line_of(const YAML::Node& node) { return node.Mark().line >= 0 ? node.Mark().line + 1 : 0; }

// A scalar node's text (keys and names); "" for anything else.
std::string scalar_of(const YAML::Node& node) { return node.IsScalar() ? node.Scalar() : ""; }

std::string flow_text(const YAML::Node& node) {
  YAML::Emitter out;
  out << YAML::Flow << node;
  return out.c_str();
}

// A known key that starts with "section.", or "" when `key` is no section.
std::string first_key_in(const std::string& key) {
  for (const auto& k : config_keys())
    if (k.rfind(key + ".", 0) == 0) return k;
  return "";
}

bool valid_name(const std::string& name) {
  if (name.empty()) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  });
}

struct SpecParser {
  SweepSpec& spec;
  std::string base_dir;
  ForkBaseReader fork_base;
  std::map<std::string, int> axis_line;  // axis key -> line of the axis that owns it
  std::map<std::string, int> set_line;   // key given under set: -> its line

  SourceLocation at(const YAML::Node& node) const { return {spec.file, line_of(node)}; }

  [[noreturn]] void fail(const YAML::Node& node, const std::string& key,
                         const std::string& message) const {
    throw InputError(spec.file, line_of(node), key, message);
  }

  // The schema entry for a dotted key written at `key_node`.
  const FieldSpec& field(const YAML::Node& key_node, const std::string& key) const {
    if (const FieldSpec* f = find_field(key)) return *f;
    const std::string inside = first_key_in(key);
    if (!inside.empty())
      fail(key_node, key, "is a section; name one value with a dotted key, e.g. '" + inside + "'");
    // apply_overrides rejects the key with config_io's wording and "did you mean" hint.
    RunConfig scratch;
    set_config_key(scratch, key, "~", at(key_node));
    fail(key_node, key, "unknown key");
  }

  // YAML text to apply: relative paths are relative to the sweep file, as in a config file.
  std::string applied_text(const FieldSpec& f, const YAML::Node& node) const {
    if (f.type == FieldType::Path && node.IsScalar() && !node.Scalar().empty() &&
        fs::path(node.Scalar()).is_relative() && !base_dir.empty()) {
      YAML::Emitter out;
      out << (fs::path(base_dir) / node.Scalar()).lexically_normal().string();
      return out.c_str();
    }
    return flow_text(node);
  }

  // One axis value, applied to a copy of the base so a type error shows at its own line.
  SweepValue value(const FieldSpec& f, const YAML::Node& node) const {
    SweepValue v;
    v.text = flow_text(node);
    v.yaml = applied_text(f, node);
    v.line = line_of(node);
    RunConfig scratch = spec.base;
    set_config_key(scratch, f.key, v.yaml, at(node));
    v.canonical = field_value_text(scratch, f);
    return v;
  }

  // `{logspace: [start, stop, count]}`: `count` values from start to stop evenly spaced on a
  // log scale, the way learning rates are swept. Each is written with 4 significant digits and
  // that text is the value trained with, so what --dry-run shows is exactly what runs.
  std::vector<SweepValue> logspace(const FieldSpec& f, const YAML::Node& map) const {
    const YAML::Node spec_node = map["logspace"];
    if (map.size() != 1 || !spec_node)
      fail(map, f.key, "expected a list of values, or {logspace: [start, stop, count]}");
    if (f.type != FieldType::Double)
      fail(map, f.key, "logspace needs a real-valued key (e.g. train.lr)");
    if (!spec_node.IsSequence() || spec_node.size() != 3)
      fail(map, f.key, "logspace takes [start, stop, count], e.g. {logspace: [1e-4, 1e-1, 8]}");
    double start = 0, stop = 0, count = 0;
    try {
      start = spec_node[0].as<double>();
      stop = spec_node[1].as<double>();
      count = spec_node[2].as<double>();
    } catch (const YAML::Exception&) {
      fail(map, f.key, "logspace: start, stop and count must be numbers");
    }
    if (!(start > 0) || !(stop > 0) || !std::isfinite(start) || !std::isfinite(stop))
      fail(map, f.key, "logspace: start and stop must be positive (a log scale has no 0)");
    if (!(count >= 2) || count != std::floor(count) || count > 1000)
      fail(map, f.key, "logspace: count must be a whole number of points from 2 to 1000");
    std::vector<SweepValue> out;
    const int n = static_cast<int>(count);
    for (int i = 0; i < n; ++i) {
      const double x = start * std::pow(stop / start, static_cast<double>(i) / (n - 1));
      char text[32];
      std::snprintf(text, sizeof text, "%.4g", i == 0 ? start : i == n - 1 ? stop : x);
      SweepValue v;
      v.text = v.yaml = text;
      v.line = line_of(map);
      RunConfig scratch = spec.base;
      set_config_key(scratch, f.key, v.yaml, at(map));
      v.canonical = field_value_text(scratch, f);
      for (const auto& seen : out)
        if (seen.canonical == v.canonical)
          fail(map, f.key, "logspace: two points round to " + v.text + "; ask for fewer");
      out.push_back(v);
    }
    return out;
  }

  // The non-empty list of values of an axis key; `unique`: no value twice (grid, seeds).
  std::vector<SweepValue> values(const YAML::Node& key_node, const FieldSpec& f,
                                 const YAML::Node& list, bool unique) const {
    const YAML::Node& where = line_of(list) > 0 ? list : key_node;
    if (list.IsMap()) return logspace(f, list);
    if (!list.IsSequence())
      fail(where, f.key, "expected a list of values, e.g. [a, b] (a single value goes under set:)");
    if (list.size() == 0) fail(where, f.key, "empty list: an axis needs at least one value");
    std::vector<SweepValue> out;
    for (const auto& item : list) {
      SweepValue v = value(f, item);
      for (const auto& seen : out)
        if (unique && seen.canonical == v.canonical)
          fail(item, f.key,
               "value '" + v.text + "' is listed twice (as '" + seen.text + "' on line " +
                   std::to_string(seen.line) + ")");
      out.push_back(v);
    }
    return out;
  }

  // A key may vary in one axis only, and not also be fixed by set:.
  void claim(const YAML::Node& key_node, const std::string& key, const std::string& label) {
    if (key == "name") fail(key_node, key, "run names come from the sweep; 'name' cannot vary");
    auto axis = axis_line.find(key);
    if (axis != axis_line.end())
      fail(key_node, label,
           key + " is already an axis (line " + std::to_string(axis->second) +
               "); a key can vary in one axis only");
    auto fixed = set_line.find(key);
    if (fixed != set_line.end())
      fail(key_node, label,
           key + " is fixed by set: (line " + std::to_string(fixed->second) +
               "); it cannot also be an axis");
    axis_line[key] = line_of(key_node);
  }

  std::string key_text(const YAML::Node& key_node, const std::string& context) const {
    const std::string key = scalar_of(key_node);
    if (key.empty()) fail(key_node, context, "expected a dotted config key, e.g. model.d_model");
    return key;
  }

  // An inline base mapping or set: -- nested sections or dotted keys, as in a config file.
  void walk_config(const YAML::Node& map, const std::string& prefix, bool is_set) {
    for (const auto& entry : map) {
      const std::string name =
          key_text(entry.first, prefix.empty() ? (is_set ? "set" : "base") : prefix);
      const std::string key = prefix.empty() ? name : prefix + "." + name;
      const YAML::Node& node = entry.second;
      if (const FieldSpec* f = find_field(key)) {
        if (is_set && key == "name")
          fail(entry.first, key, "run names come from the sweep; 'name' cannot be set");
        const YAML::Node& where = line_of(node) > 0 ? node : entry.first;
        set_config_key(spec.base, key, applied_text(*f, node), at(where));
        if (is_set) set_line[key] = line_of(where);
        continue;
      }
      if (first_key_in(key).empty()) field(entry.first, key);  // throws: unknown key
      if (node.IsNull()) continue;                             // an empty section keeps its values
      if (!node.IsMap()) fail(node, key, "expected a section (a mapping of keys)");
      walk_config(node, key, is_set);
    }
  }

  void parse_name(const YAML::Node& root, const YAML::Node* node) {
    if (!node) fail(root, "name", "required: the sweep's name ([A-Za-z0-9_.-]+)");
    spec.name = scalar_of(*node);
    spec.line = line_of(*node);
    if (!valid_name(spec.name))
      fail(*node, "name", "'" + flow_text(*node) + "' is not a valid sweep name ([A-Za-z0-9_.-]+)");
  }

  void parse_base(const YAML::Node& root, const YAML::Node* node) {
    if (!node || node->IsNull())
      fail(node ? *node : root, "base",
           "required: a config path (relative to this file) or an inline mapping of config keys");
    if (node->IsMap()) {
      spec.base = RunConfig{};
      spec.base.source_file = spec.file;
      walk_config(*node, "", /*is_set=*/false);
      return;
    }
    if (!node->IsScalar())
      fail(*node, "base", "expected a config path or a mapping of config keys");
    fs::path path = node->Scalar();
    if (path.is_relative() && !base_dir.empty()) path = fs::path(base_dir) / path;
    path = path.lexically_normal();
    // The error_code overload: a path the system refuses (too long, found by fuzzing) is an
    // error in the sweep file, not an exception from the filesystem.
    std::error_code ec;
    if (fs::is_directory(path, ec))
      fail(*node, "base", path.string() + " is a directory; give a config file (YAML)");
    if (!fs::is_regular_file(path, ec))
      fail(*node, "base",
           "config file not found: " + path.string() + (ec ? " (" + ec.message() + ")" : ""));
    // A sweep file is no run config: read as one, its own keys were "unknown" (issue 57 item 12).
    if (fs::equivalent(path, spec.file, ec))
      fail(*node, "base",
           "names this sweep file itself; give the run config the sweep's runs start from");
    spec.base = load_config_file(path.string());  // its errors name the base file
  }

  // `fork: {run: RUN, from: STEP}`: the base is the parent's stored config.
  void parse_fork(const YAML::Node& node, const YAML::Node* base) {
    if (base)
      fail(node, "fork",
           "a fork sweep starts from its parent's config: give fork: or base:, not both");
    if (!node.IsMap())
      fail(node, "fork", "expected a mapping: {run: RUN, from: STEP} (a stored run, an update)");
    SweepFork fork;
    fork.line = line_of(node);
    bool has_from = false;
    for (const auto& entry : node) {
      const std::string key = scalar_of(entry.first);
      const std::string value = entry.second.IsScalar() ? entry.second.Scalar() : "";
      if (key == "run" && !value.empty()) {
        fork.run = value;
      } else if (key == "from") {
        size_t end = 0;
        try {
          fork.from = std::stoll(value, &end);
        } catch (const std::logic_error&) {
          end = 0;
        }
        if (end == 0 || end != value.size() || fork.from < 0)
          fail(entry.second, "fork.from", "expected an update: a whole number >= 0");
        has_from = true;
      } else {
        fail(entry.first, "fork." + key,
             key == "run" ? "expected a run id or name"
                          : "unknown key (a fork sweep's fork: has run and from)");
      }
    }
    if (fork.run.empty() || !has_from)
      fail(node, "fork", "needs both run (a stored run's id or name) and from (its update)");
    if (!fork_base)
      fail(node, "fork",
           "a fork sweep reads its parent from the run store: run it with `fathom sweep`");
    spec.base = fork_base(fork);
    spec.fork = fork;
  }

  void parse_grid(const YAML::Node& node) {
    if (!node.IsMap() || node.size() == 0)
      fail(node, "grid", "expected a mapping of dotted keys to lists of values");
    for (const auto& entry : node) {
      const std::string key = key_text(entry.first, "grid");
      const FieldSpec& f = field(entry.first, key);
      claim(entry.first, key, key);
      SweepAxis axis;
      axis.kind = SweepAxis::Kind::Grid;
      axis.keys = {key};
      axis.line = line_of(entry.first);
      for (auto& v : values(entry.first, f, entry.second, /*unique=*/true))
        axis.steps.push_back({v});
      spec.axes.push_back(std::move(axis));
    }
  }

  // One zip group: keys whose lists have one length and are varied together.
  void parse_zip_group(const YAML::Node& group) {
    if (!group.IsMap() || group.size() == 0)
      fail(group, "zip", "expected a mapping of dotted keys to lists of the same length");
    SweepAxis axis;
    axis.kind = SweepAxis::Kind::Zip;
    axis.line = line_of(group);
    std::vector<std::vector<SweepValue>> columns;
    for (const auto& entry : group) {
      const std::string key = key_text(entry.first, "zip");
      const FieldSpec& f = field(entry.first, key);
      claim(entry.first, key, key);
      auto column = values(entry.first, f, entry.second, /*unique=*/false);
      if (!columns.empty() && column.size() != columns[0].size())
        fail(entry.second, key,
             "has " + std::to_string(column.size()) + " values but " + axis.keys[0] + " has " +
                 std::to_string(columns[0].size()) + "; zipped lists must have the same length");
      axis.keys.push_back(key);
      columns.push_back(std::move(column));
    }
    for (size_t i = 0; i < columns[0].size(); ++i) {
      std::vector<SweepValue> step;
      for (const auto& column : columns) step.push_back(column[i]);
      // Repeated tuples would give two runs with one name.
      for (size_t j = 0; j < axis.steps.size(); ++j) {
        bool same = true;
        for (size_t k = 0; k < step.size(); ++k)
          same = same && step[k].canonical == axis.steps[j][k].canonical;
        if (same)
          throw InputError(
              spec.file, step[0].line, axis.keys[0],
              "zip entry " + std::to_string(i + 1) + " repeats entry " + std::to_string(j + 1));
      }
      axis.steps.push_back(std::move(step));
    }
    spec.axes.push_back(std::move(axis));
  }

  void parse_zip(const YAML::Node& node) {
    if (node.IsMap()) return parse_zip_group(node);
    if (!node.IsSequence() || node.size() == 0)
      fail(node, "zip", "expected a mapping of dotted keys to lists, or a list of such mappings");
    for (const auto& group : node) parse_zip_group(group);
  }

  void parse_seeds(const YAML::Node& key_node, const YAML::Node& node) {
    const FieldSpec& f = *find_field("train.seed");
    claim(key_node, f.key, "seeds");
    SweepAxis axis;
    axis.kind = SweepAxis::Kind::Seeds;
    axis.keys = {f.key};
    axis.line = line_of(key_node);
    for (auto& v : values(key_node, f, node, /*unique=*/true)) axis.steps.push_back({v});
    spec.axes.push_back(std::move(axis));
  }

  // The axis values of `key` (any axis kind), or nullptr when `key` is no axis.
  const SweepValue* axis_value(const std::string& key, const std::string& canonical,
                               std::vector<std::string>& texts) const {
    for (const auto& axis : spec.axes)
      for (size_t k = 0; k < axis.keys.size(); ++k) {
        if (axis.keys[k] != key) continue;
        for (const auto& step : axis.steps) {
          if (step[k].canonical == canonical) return &step[k];
          if (std::find(texts.begin(), texts.end(), step[k].text) == texts.end())
            texts.push_back(step[k].text);
        }
      }
    return nullptr;
  }

  void parse_exclude(const YAML::Node& key_node, const YAML::Node& node) {
    spec.exclude_line = line_of(key_node);
    if (!node.IsSequence() || node.size() == 0)
      fail(line_of(node) > 0 ? node : key_node, "exclude",
           "expected a list of rules, e.g. - {model.norm: pre, model.init: lipschitz}");
    const std::vector<std::string> axis_keys = spec.axis_keys();
    for (const auto& rule : node) {
      if (!rule.IsMap() || rule.size() == 0)
        fail(rule, "exclude", "expected a rule: a mapping of axis keys to values");
      SweepExclude exclude;
      exclude.line = line_of(rule);
      for (const auto& entry : rule) {
        const std::string key = key_text(entry.first, "exclude");
        if (std::find(axis_keys.begin(), axis_keys.end(), key) == axis_keys.end()) {
          const std::string hint = closest_match(key, axis_keys);
          fail(entry.first, key,
               "is not an axis of this sweep (axes: " + join(axis_keys, ", ") + ")" +
                   (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
        }
        for (const auto& seen : exclude.match)
          if (seen.first == key) fail(entry.first, key, "given twice in one rule");
        const SweepValue v = value(*find_field(key), entry.second);
        std::vector<std::string> texts;
        if (!axis_value(key, v.canonical, texts))
          fail(entry.second, key,
               "'" + v.text + "' is not a value of this axis (" + join(texts, ", ") + ")");
        exclude.match.emplace_back(key, v);
      }
      spec.exclude.push_back(std::move(exclude));
    }
  }

  void parse(const YAML::Node& root) {
    // Top-level keys first: a typo like 'grids' must not surface as "no axes".
    std::map<std::string, std::pair<YAML::Node, YAML::Node>> parts;
    for (const auto& entry : root) {
      const std::string key = scalar_of(entry.first);
      const std::vector<std::string> known = sweep_keys();
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        std::string message = "unknown sweep key";
        const std::string hint = closest_match(key, known);
        if (find_field(key) || !first_key_in(key).empty())
          message += "; config keys go under base: or set:";
        else if (!hint.empty())
          message += "; did you mean '" + hint + "'?";
        fail(entry.first, key, message + " (keys: " + join(known, ", ") + ")");
      }
      if (parts.count(key)) fail(entry.first, key, "given twice");
      parts[key] = {entry.first, entry.second};
    }
    auto value_of = [&](const std::string& key) -> const YAML::Node* {
      auto it = parts.find(key);
      return it == parts.end() ? nullptr : &it->second.second;
    };
    parse_name(root, value_of("name"));
    if (const YAML::Node* fork = value_of("fork"))
      parse_fork(*fork, value_of("base"));
    else
      parse_base(root, value_of("base"));
    // Fixed overrides before the axes, whose values are type-checked against base + set.
    if (const YAML::Node* set = value_of("set")) {
      if (!set->IsMap()) fail(*set, "set", "expected a mapping of config keys to values");
      walk_config(*set, "", /*is_set=*/true);
    }
    // Alerts (experiments/notify.h): `notify:` is the config's notify section, fixed for every
    // run as set: fixes it.
    if (const YAML::Node* notify = value_of("notify")) {
      if (!notify->IsMap()) fail(*notify, "notify", "expected a mapping: on, command, ...");
      walk_config(*notify, "notify", /*is_set=*/true);
    }
    if (const YAML::Node* grid = value_of("grid")) parse_grid(*grid);
    if (const YAML::Node* zip = value_of("zip")) parse_zip(*zip);
    if (parts.count("seeds")) parse_seeds(parts["seeds"].first, parts["seeds"].second);
    if (spec.axes.empty()) fail(root, "grid", "no axes: give grid, zip or seeds");
    if (parts.count("exclude")) parse_exclude(parts["exclude"].first, parts["exclude"].second);
    parse_launcher_section(root);
  }

  // The one launcher section a file may have, parsed by its launcher's entry; a second one is
  // refused at its line.
  void parse_launcher_section(const YAML::Node& root) {
    std::vector<std::pair<YAML::Node, YAML::Node>> sections;
    for (const auto& entry : root)
      if (launcher_with_section(scalar_of(entry.first)))
        sections.emplace_back(entry.first, entry.second);
    std::sort(sections.begin(), sections.end(),
              [](const auto& a, const auto& b) { return line_of(a.first) < line_of(b.first); });
    for (const auto& [key, value] : sections) {
      const LauncherEntry& launcher = *launcher_with_section(scalar_of(key));
      if (spec.launcher)
        fail(key, scalar_of(key),
             "a sweep runs on one launcher: this file also has " + spec.launcher->launcher +
                 "'s section (line " + std::to_string(spec.launcher->line) + ")");
      spec.launcher =
          LauncherSettings{launcher.name, line_of(key), launcher.section.parse(value, spec.file)};
    }
  }
};

}  // namespace

void apply_sweep_overrides(SweepSpec& spec, const std::vector<std::string>& overrides) {
  std::map<std::string, int> axis_line;
  for (const auto& axis : spec.axes)
    for (const auto& key : axis.keys) axis_line[key] = axis.line;
  for (const auto& item : overrides) {
    const std::string key = trim(item.substr(0, item.find('=')));
    if (key == "name")
      throw InputError("--set", 0, "name",
                       "run names come from the sweep; rename the sweep with --name");
    if (auto it = axis_line.find(key); it != axis_line.end())
      throw InputError("--set", 0, key,
                       "is varied by an axis of the sweep (" + spec.file + " line " +
                           std::to_string(it->second) + "); change its values there");
    apply_overrides(spec.base, {item});  // InputError at "--set" for a bad key or value
    spec.overrides.push_back(item);
  }
}

void rename_sweep(SweepSpec& spec, const std::string& name) {
  if (!valid_name(name))
    throw InputError("--name", 0, "--name",
                     "'" + name + "' is not a sweep name (letters, digits, '_', '.', '-')");
  spec.name = name;
}

SweepSpec load_sweep_string(const std::string& yaml, const std::string& origin,
                            const std::string& base_dir, const ForkBaseReader& fork_base) {
  SweepSpec spec;
  spec.file = origin;
  YAML::Node root;
  try {
    root = load_one_yaml_document(yaml, origin);
  } catch (const YAML::ParserException& e) {
    throw InputError(origin, e.mark.line + 1, "", "YAML syntax error: " + yaml_parse_error_text(e));
  }
  if (!root.IsMap())
    throw InputError(origin, root.IsDefined() && !root.IsNull() ? line_of(root) : 0, "",
                     "expected a mapping with name, base and axes (grid, zip, seeds)");
  SpecParser{spec, base_dir, fork_base, {}, {}}.parse(root);
  return spec;
}

SweepSpec load_sweep_file(const std::string& path, const ForkBaseReader& fork_base) {
  return load_sweep_string(read_yaml_file(path, "sweep file"), path,
                           fs::absolute(fs::path(path)).parent_path().string(), fork_base);
}

}  // namespace fathom::experiments
