#include "experiments/sweep_extension.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "base/config/yaml_file.h"
#include "base/util/error.h"

namespace fathom::experiments {
namespace {

namespace fs = std::filesystem;

// An open line placed in the file's axes: its new step of the extended axis (a text per key)
// and, per axis, the step it takes (-1 on the extended axis and the seeds').
struct Placement {
  std::vector<std::string> next;
  std::vector<int> steps;
};

// The step of `axis` whose values equal the curve's, compared on the keys the curve names (a
// key every run shares is in no curve's setting); -1 with `why` when none does, or when the
// axis has several steps and the curve names none of its keys.
int step_of(const SweepAxis& axis, const std::map<std::string, std::string>& setting,
            std::string* why) {
  bool named = false;
  for (const auto& key : axis.keys) named = named || setting.count(key) > 0;
  if (!named) {
    if (axis.steps.size() == 1) return 0;
    *why = "its runs do not tell " + axis.keys.front() + "'s values apart";
    return -1;
  }
  for (size_t i = 0; i < axis.steps.size(); ++i) {
    bool match = true;
    for (size_t k = 0; k < axis.keys.size() && match; ++k)
      if (const auto it = setting.find(axis.keys[k]); it != setting.end())
        match = it->second == axis.steps[i][k].text;
    if (match) return static_cast<int>(i);
  }
  for (const auto& key : axis.keys)
    if (const auto it = setting.find(key); it != setting.end()) {
      *why = key + " = " + it->second + " is not among the file's values";
      break;
    }
  return -1;
}

YAML::Node flow_list(const std::vector<std::string>& texts) {
  YAML::Node list(YAML::NodeType::Sequence);
  for (const auto& t : texts) list.push_back(YAML::Load(t));
  list.SetStyle(YAML::EmitterStyle::Flow);
  return list;
}

// The original's base, with a relative path made relative to `out_dir` (an inline base and an
// absolute path as they are).
YAML::Node moved_base(const YAML::Node& base, const std::string& original,
                      const std::string& out_dir) {
  if (!base.IsScalar() || fs::path(base.Scalar()).is_absolute()) return base;
  const fs::path target = fs::absolute(fs::path(original).parent_path() / base.Scalar());
  return YAML::Node(fs::relative(target.lexically_normal(), fs::absolute(out_dir)).string());
}

struct Layout {
  size_t axis = 0;                             // the extended one
  std::vector<std::vector<int>> kept;          // per axis: the steps some placement takes, in order
  std::vector<std::vector<std::string>> news;  // the new steps, ascending in their first key
};

Layout layout_of(const SweepSpec& spec, size_t axis, const std::vector<Placement>& placed) {
  Layout l;
  l.axis = axis;
  l.kept.resize(spec.axes.size());
  std::map<double, std::vector<std::string>> news;
  for (const auto& p : placed) news[std::strtod(p.next[0].c_str(), nullptr)] = p.next;
  for (const auto& [value, texts] : news) l.news.push_back(texts);
  for (size_t a = 0; a < spec.axes.size(); ++a) {
    std::set<int> used;
    for (const auto& p : placed) used.insert(p.steps[a]);
    used.erase(-1);
    l.kept[a].assign(used.begin(), used.end());
  }
  return l;
}

// One rule per combination of the kept steps and rates that no placement asked for, naming
// the rate and each axis with more than one kept step.
YAML::Node exclude_rules(const SweepSpec& spec, const Layout& l,
                         const std::vector<Placement>& placed) {
  std::set<std::pair<std::vector<std::string>, std::vector<int>>> wanted;
  for (const auto& p : placed) wanted.insert({p.next, p.steps});
  std::vector<size_t> varying;  // axes with several kept steps
  for (size_t a = 0; a < spec.axes.size(); ++a)
    if (l.kept[a].size() > 1) varying.push_back(a);
  YAML::Node rules(YAML::NodeType::Sequence);
  for (const auto& next : l.news) {
    std::vector<size_t> at(varying.size(), 0);  // an odometer over the varying axes' steps
    while (true) {
      std::vector<int> steps(spec.axes.size(), -1);
      for (size_t a = 0; a < spec.axes.size(); ++a)
        if (l.kept[a].size() == 1) steps[a] = l.kept[a][0];
      for (size_t v = 0; v < varying.size(); ++v) steps[varying[v]] = l.kept[varying[v]][at[v]];
      if (!wanted.count({next, steps})) {
        YAML::Node rule(YAML::NodeType::Map);
        if (l.news.size() > 1) rule[spec.axes[l.axis].keys[0]] = YAML::Load(next[0]);
        for (size_t a : varying)
          for (size_t k = 0; k < spec.axes[a].keys.size(); ++k)
            rule[spec.axes[a].keys[k]] = YAML::Load(spec.axes[a].steps[steps[a]][k].text);
        rule.SetStyle(YAML::EmitterStyle::Flow);
        rules.push_back(rule);
      }
      size_t v = 0;
      while (v < varying.size() && ++at[v] == l.kept[varying[v]].size()) at[v++] = 0;
      if (v == varying.size()) break;
    }
  }
  return rules;
}

YAML::Node axes_node(const SweepSpec& spec, const Layout& l, SweepAxis::Kind kind) {
  YAML::Node out(kind == SweepAxis::Kind::Grid ? YAML::NodeType::Map : YAML::NodeType::Sequence);
  for (size_t a = 0; a < spec.axes.size(); ++a) {
    const SweepAxis& axis = spec.axes[a];
    if (axis.kind != kind) continue;
    // The key's texts: the new steps' on the extended axis, the kept steps' on the others.
    const auto texts_of = [&](size_t k) {
      std::vector<std::string> texts;
      if (a == l.axis)
        for (const auto& next : l.news) texts.push_back(next[k]);
      else
        for (int i : l.kept[a]) texts.push_back(axis.steps[i][k].text);
      return texts;
    };
    if (kind == SweepAxis::Kind::Grid) {
      out[axis.keys[0]] = flow_list(texts_of(0));
      continue;
    }
    YAML::Node group(YAML::NodeType::Map);
    for (size_t k = 0; k < axis.keys.size(); ++k) group[axis.keys[k]] = flow_list(texts_of(k));
    out.push_back(group);
  }
  return out;
}

}  // namespace

SweepExtension extend_sweep(const std::string& original, const SweepSpec& spec,
                            const std::vector<OpenEdge>& open, const std::string& out_dir,
                            const std::string& name, const ForkBaseReader& fork_base) {
  const auto lr = std::find_if(spec.axes.begin(), spec.axes.end(), [](const SweepAxis& a) {
    return a.kind == SweepAxis::Kind::Grid && a.keys[0] == kLrKey;
  });
  if (lr == spec.axes.end())
    throw InputError(original, 0, "--axis",
                     std::string(kLrKey) +
                         " is not a grid key of this file (a zip group's or "
                         "the base's rate is extended by hand)");
  std::vector<AxisEdge> edges;
  for (const auto& e : open)
    edges.push_back({e.label,
                     e.setting,
                     {e.next_text},
                     e.label + ": " + e.next_text + (e.above ? " (above " : " (below ") +
                         rate_text(e.best_lr) + ")"});
  return extend_sweep_along(original, spec, static_cast<size_t>(lr - spec.axes.begin()), edges,
                            out_dir, name, fork_base);
}

SweepExtension extend_sweep_along(const std::string& original, const SweepSpec& spec, size_t axis,
                                  const std::vector<AxisEdge>& edges, const std::string& out_dir,
                                  const std::string& name, const ForkBaseReader& fork_base) {
  SweepExtension out;
  std::vector<Placement> placed;
  for (const auto& e : edges) {
    Placement p{e.next, std::vector<int>(spec.axes.size(), -1)};
    std::string why;
    for (size_t a = 0; a < spec.axes.size() && why.empty(); ++a)
      if (a != axis && spec.axes[a].kind != SweepAxis::Kind::Seeds)
        p.steps[a] = step_of(spec.axes[a], e.setting, &why);
    if (!why.empty()) {
      out.notes.push_back(e.label + ": not extended, " + why);
      continue;
    }
    out.extends.push_back(e.said);
    placed.push_back(std::move(p));
  }
  if (placed.empty()) return out;

  const Layout layout = layout_of(spec, axis, placed);
  const YAML::Node root = load_one_yaml_document(read_yaml_file(original, "sweep file"), original);
  YAML::Emitter yaml;
  yaml << YAML::BeginMap << YAML::Key << "name" << YAML::Value << name;
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    if (key == "name" || key == "grid" || key == "zip" || key == "exclude") continue;
    yaml << YAML::Key << key << YAML::Value
         << (key == "base" ? moved_base(entry.second, original, out_dir) : entry.second);
  }
  // An isoFLOP sweep may have no grid at all (its depths a zip group): no empty grid: then.
  const YAML::Node grid = axes_node(spec, layout, SweepAxis::Kind::Grid);
  if (grid.size() > 0) yaml << YAML::Key << "grid" << YAML::Value << grid;
  const YAML::Node zip = axes_node(spec, layout, SweepAxis::Kind::Zip);
  if (zip.size() > 0) yaml << YAML::Key << "zip" << YAML::Value << zip;
  const YAML::Node rules = exclude_rules(spec, layout, placed);
  if (rules.size() > 0) yaml << YAML::Key << "exclude" << YAML::Value << rules;
  yaml << YAML::EndMap;
  out.yaml = std::string(yaml.c_str()) + "\n";

  // Checked as `fathom sweep` reads it: a file that does not expand is never written.
  const SweepSpec again =
      load_sweep_string(out.yaml, "the extension of " + original, out_dir, fork_base);
  for (const auto& run : expand_sweep(again)) out.runs.push_back(run.name);
  return out;
}

}  // namespace fathom::experiments
