// The noise-scale analysis outside the training core (analysis/noise_scale.cpp computes it):
// B_simple against layer, a line per stack with its interval dashed and the update's size flat
// for scale; its table (the model, each layer, each weight matrix) and caption.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "plot/analysis_kinds.h"
#include "plot/result_fields.h"

namespace fathom::plot {
namespace {

using json = nlohmann::json;

std::string shown(double v) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// b_low / b_high as read: null is open (infinite) for the upper end, a group without any
// gradient for all of them.
double upper_end(const Fields& f, const json& e, const std::string& path) {
  const double high = f.number(e, "b_high", path);
  return std::isnan(high) && !std::isnan(f.number(e, "b_low", path)) ? INFINITY : high;
}

std::vector<NamedFigure> noise_scale_figures(const json& result, const std::string& source) {
  const Fields f{source};
  LineFigure fig;
  fig.title = "gradient noise scale by layer";
  fig.x.label = "layer";
  fig.x.whole_numbers = true;
  fig.y.label = "B_simple (target tokens)";
  fig.y.scale = Scale::Log;
  const json& layers = f.at(result, "layers", "");
  if (!layers.is_array()) f.fail("layers", "expected an array");
  double last_layer = 1;
  for (const std::string stack : {"enc", "dec"}) {
    LineSeries line{stack == "enc" ? "encoder" : "decoder", {}, {}, "", {}};
    LineSeries low{"", {}, {}, line.name, {}}, high{"", {}, {}, line.name, {}};
    for (size_t i = 0; i < layers.size(); ++i) {
      const json& l = layers[i];
      const std::string path = "layers[" + std::to_string(i) + "].";
      if (f.text(l, "stack", path) != stack) continue;
      const double x = f.number(l, "layer", path) + 1;
      last_layer = std::max(last_layer, x);
      line.x.push_back(x), low.x.push_back(x), high.x.push_back(x);
      line.y.push_back(f.number(l, "b_simple", path));
      low.y.push_back(f.number(l, "b_low", path));
      const double top = upper_end(f, l, path);
      high.y.push_back(std::isinf(top) ? kNaN : top);  // open above: no end to draw
    }
    if (line.x.empty()) continue;
    fig.series.push_back(line);
    fig.series.push_back(low);
    fig.series.push_back(high);
  }
  const double update = f.number(result, "update_tokens", "");
  if (std::isfinite(update))
    fig.series.push_back({"an update's tokens", {1, last_layer}, {update, update}, "", {}});
  return {{"", fig}};
}

std::vector<ResultTable> noise_scale_tables(const json& result) {
  if (!result.contains("model")) return {};
  const std::string source = "noise-scale result";
  const Fields f{source};
  ResultTable t{
      {"group", "B_simple (tokens)", "95 % low", "95 % high", "|G|^2", "tr(Sigma)", "resolved"},
      {}};
  auto row = [&](const std::string& name, const json& e, const std::string& path) {
    t.rows.push_back({name, shown(f.number(e, "b_simple", path)), shown(f.number(e, "b_low", path)),
                      shown(upper_end(f, e, path)), shown(f.number(e, "grad_sq", path)),
                      shown(f.number(e, "trace", path)),
                      e.value("resolved", false) ? "yes" : "no"});
  };
  row("model", result["model"], "model.");
  for (const auto& l : result.value("layers", json::array())) row(l.value("group", ""), l, "");
  for (const auto& b : result.value("blocks", json::array())) row(b.value("block", ""), b, "");
  return {t};
}

std::string noise_scale_caption(const json& result) {
  if (!result.contains("model")) return "";
  const std::string source = "noise-scale result";
  const Fields f{source};
  const json& m = result["model"];
  std::string words = "the gradient noise scale over " + shown(f.number(result, "batches", "")) +
                      " training batches of " + shown(f.number(result, "tokens_per_batch", "")) +
                      " target tokens, dropout off (McCandlish et al. 2018; methods.md s5.12): "
                      "the model's B_simple " +
                      shown(f.number(m, "b_simple", "model.")) + " tokens [" +
                      shown(f.number(m, "b_low", "model.")) + ", " +
                      shown(upper_end(f, m, "model.")) + "]";
  if (m.contains("steps_over_min"))
    words += "; an update of " + shown(f.number(result, "update_tokens", "")) + " tokens takes " +
             shown(f.number(m, "steps_over_min", "model.")) + "x the fewest steps and " +
             shown(f.number(m, "data_over_min", "model.")) + "x the least data";
  return words;
}

}  // namespace

AnalysisKind noise_scale_kind() {
  // The app starts it as the command line does (32 batches: seconds on a small model).
  return {"noise-scale", false, "", noise_scale_figures, noise_scale_tables, noise_scale_caption};
}

}  // namespace fathom::plot
