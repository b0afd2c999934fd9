#include "gui/sweep_form.h"

#include <sstream>

#include <yaml-cpp/yaml.h>

namespace fathom::gui {
namespace {

int line_of(const YAML::Node& node) { return node.Mark().line + 1; }  // yaml-cpp counts from 0

// The text of one value as it would appear in a flow list.
std::string flow_text(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar();
  YAML::Emitter out;
  out << YAML::Flow << node;
  return out.c_str();
}

// A list's items joined by ", " (a scalar stays as written); *end_line: its last item's line.
std::string items_text(const YAML::Node& node, int* end_line) {
  *end_line = line_of(node);
  if (!node.IsSequence()) return flow_text(node);
  std::string text;
  for (const auto& item : node) {
    if (!text.empty()) text += ", ";
    text += flow_text(item);
    *end_line = std::max(*end_line, line_of(item));
  }
  return text;
}

std::vector<SweepFormEntry> entries(const YAML::Node& map, bool as_list) {
  std::vector<SweepFormEntry> out;
  if (!map.IsMap()) return out;
  for (const auto& kv : map) {
    SweepFormEntry e;
    e.key = kv.first.Scalar();
    e.line = line_of(kv.first);
    e.value = as_list ? items_text(kv.second, &e.end_line) : flow_text(kv.second);
    if (!as_list) e.end_line = line_of(kv.second);
    out.push_back(e);
  }
  return out;
}

}  // namespace

bool sweep_form_from_yaml(const std::string& yaml, SweepForm* form, std::string* error,
                          int* error_line) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    if (error) *error = e.msg;
    if (error_line) *error_line = e.mark.line + 1;
    return false;
  }
  SweepForm f;
  if (root.IsMap()) {
    std::ostringstream extra;
    for (const auto& kv : root) {
      const std::string key = kv.first.Scalar();
      const YAML::Node& value = kv.second;
      if (key == "name" && value.IsScalar()) {
        f.name = value.Scalar();
        f.name_line = line_of(kv.first);
      } else if (key == "base" && value.IsScalar()) {
        f.base = value.Scalar();
        f.base_line = line_of(kv.first);
      } else if (key == "grid" && value.IsMap()) {
        f.grid = entries(value, true);
      } else if (key == "zip" && value.IsMap()) {  // a list of groups stays YAML-only
        f.zip = entries(value, true);
      } else if (key == "seeds" && (value.IsSequence() || value.IsScalar())) {
        int end = 0;
        f.seeds = items_text(value, &end);
        f.seeds_line = line_of(kv.first);
      } else if (key == "set" && value.IsMap()) {
        f.set = entries(value, false);
      } else {
        f.forks |= key == "fork";
        YAML::Emitter out;
        out << YAML::BeginMap << YAML::Key << key << YAML::Value << value << YAML::EndMap;
        extra << out.c_str() << "\n";
      }
    }
    f.extra_yaml = extra.str();
  }
  *form = f;
  return true;
}

std::string sweep_form_to_yaml(const SweepForm& form) {
  std::ostringstream out;
  out << "name: " << form.name << "\n";
  if (!form.forks || !form.base.empty()) out << "base: " << form.base << "\n";
  if (!form.grid.empty()) {
    out << "grid:\n";
    for (const auto& e : form.grid) out << "  " << e.key << ": [" << e.value << "]\n";
  }
  if (!form.zip.empty()) {
    out << "zip:\n";
    for (const auto& e : form.zip) out << "  " << e.key << ": [" << e.value << "]\n";
  }
  if (!form.seeds.empty()) out << "seeds: [" << form.seeds << "]\n";
  if (!form.set.empty()) {
    out << "set:\n";
    for (const auto& e : form.set) out << "  " << e.key << ": " << e.value << "\n";
  }
  out << form.extra_yaml;
  return out.str();
}

}  // namespace fathom::gui
