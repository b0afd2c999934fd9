#include "gui/probe_hover.h"

#include <cmath>
#include <cstdio>
#include <regex>

namespace fathom::gui {
namespace {

std::string stack_name(const std::string& text) {
  if (text == "enc" || text == "encoder") return "encoder";
  if (text == "dec" || text == "decoder") return "decoder";
  return text;
}

std::string value_text(double value) {
  if (std::isnan(value)) return "NaN (diverged)";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", value);
  return buffer;
}

}  // namespace

ProbePosition parse_probe_position(const std::string& label) {
  // Sub-layers and heads: the layout of core/train/probes.h.
  static const std::regex sublayer(R"(^(enc|dec)\.([0-9]+)\.([A-Za-z_]+)(?:\.h([0-9]+))?$)");
  // Weight matrices: the model's parameter names, "encoder.layer3_ffn.fc1.weight".
  static const std::regex weight(R"(^(encoder|decoder)\.layer([0-9]+)_([A-Za-z_]+)\.(.+)$)");
  ProbePosition p;
  std::smatch m;
  if (std::regex_match(label, m, sublayer)) {
    p.stack = stack_name(m[1].str());
    p.layer = std::stoi(m[2].str());
    p.sublayer = m[3].str();
    if (m[4].matched) p.head = std::stoi(m[4].str());
  } else if (std::regex_match(label, m, weight)) {
    p.stack = stack_name(m[1].str());
    p.layer = std::stoi(m[2].str());
    p.sublayer = m[3].str();
    p.parameter = m[4].str();
  } else {
    p.parameter = label;
  }
  return p;
}

HeadsAtPoint heads_at_point(const db::ProbeSeries& raw, const std::string& sublayer, size_t point,
                            plot::HeadReduction reduction) {
  HeadsAtPoint out;
  out.reduction = reduction;
  if (point >= raw.values.size()) return out;
  const std::string prefix = sublayer + ".h";
  float best = 0;
  for (size_t i = 0; i < raw.positions.size() && i < raw.values[point].size(); ++i) {
    const std::string& label = raw.positions[i];
    if (label.compare(0, prefix.size(), prefix) != 0) continue;
    const ProbePosition p = parse_probe_position(label);
    if (!p.head) continue;
    ++out.heads;
    const float v = raw.values[point][i];
    if (!out.largest || v > best) best = v, out.largest = *p.head;
  }
  return out;
}

std::string probe_cell_text(const std::string& run, const std::string& probe,
                            const std::string& position, int64_t step, double value,
                            const HeadsAtPoint& heads) {
  const ProbePosition p = parse_probe_position(position);
  std::string where;
  const auto add = [&where](const std::string& part) {
    if (part.empty()) return;
    if (!where.empty()) where += ", ";
    where += part;
  };
  add(p.stack);
  if (p.layer) add("layer " + std::to_string(*p.layer));
  add(p.sublayer);
  if (p.head) {
    add("head " + std::to_string(*p.head));
  } else if (heads.heads > 0 && heads.reduction == plot::HeadReduction::Max && heads.largest) {
    add("head " + std::to_string(*heads.largest) + " (largest of " + std::to_string(heads.heads) +
        ")");
  } else if (heads.heads > 0 && heads.reduction == plot::HeadReduction::Mean) {
    add("mean of " + std::to_string(heads.heads) + " heads");
  }
  add(p.parameter);
  const std::string sep = "  |  ";
  return run + sep + where + sep + "update " + std::to_string(step) + sep + probe + " = " +
         value_text(value);
}

}  // namespace fathom::gui
