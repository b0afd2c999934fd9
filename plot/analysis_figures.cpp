#include "plot/analysis_figures.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "base/util/error.h"
#include "plot/analysis_kinds.h"
#include "plot/result_fields.h"

namespace fathom::plot {
namespace {

using json = nlohmann::json;

Heatmap beta_heatmap(const Fields& f, const json& m, const std::string& stack) {
  const std::string path = stack + ".";
  Heatmap h;
  h.title = stack;
  h.col_labels = f.strings(f.at(m, "labels", path), path + "labels");
  h.row_labels = m.contains("rows") ? f.strings(m["rows"], path + "rows") : h.col_labels;
  const json& beta = f.at(m, "beta", path);
  if (!beta.is_array()) f.fail(path + "beta", "expected a matrix (array of rows)");
  for (size_t i = 0; i < beta.size(); ++i)
    h.values.push_back(f.numbers(beta[i], path + "beta[" + std::to_string(i) + "]"));
  if (m.contains("final") && m["final"].is_object()) {
    h.row_labels.push_back(m["final"].value("label", stack + ".final"));
    h.values.push_back(f.numbers(f.at(m["final"], "beta", path + "final."), path + "final.beta"));
  }
  // Rows may be ragged: pad to the widest row; a label per column.
  size_t cols = h.col_labels.size();
  for (const auto& row : h.values) cols = std::max(cols, row.size());
  for (auto& row : h.values) row.resize(cols, kNaN);
  while (h.col_labels.size() < cols) h.col_labels.push_back(std::to_string(h.col_labels.size()));
  h.row_labels.resize(h.values.size());
  // Output i cannot depend on later branches: leave the cells right of its own branch empty.
  for (size_t i = 0; i < h.values.size(); ++i) {
    auto own = std::find(h.col_labels.begin(), h.col_labels.end(), h.row_labels[i]);
    if (own == h.col_labels.end()) continue;  // e.g. the final norm reads every branch
    for (size_t j = own - h.col_labels.begin() + 1; j < cols; ++j) h.values[i][j] = kNaN;
  }
  // sum_j beta^2 beside each row: 1 only while the branches are uncorrelated (methods.md s5.1).
  std::vector<double> sum_sq;
  if (m.contains("sum_sq")) sum_sq = f.numbers(m["sum_sq"], path + "sum_sq");
  if (m.contains("final") && m["final"].is_object() && m["final"].contains("sum_sq"))
    sum_sq.push_back(f.number(m["final"], "sum_sq", path + "final."));
  for (size_t i = 0; i < h.row_labels.size() && i < sum_sq.size(); ++i) {
    if (std::isnan(sum_sq[i])) continue;
    char note[40];
    std::snprintf(note, sizeof note, "  (\u03a3\u03b2\u00b2 %.2f)", sum_sq[i]);
    h.row_labels[i] += note;
  }
  h.colour_title = "beta (share of output)";
  h.x_label = "branch j";
  h.y_label = "output i";
  h.vmin = 0;
  h.vmax = 1;
  return h;
}

std::string r2_label(double r2) {
  if (std::isnan(r2)) return "R\u00b2 n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "R\u00b2 = %.3f", r2);
  return buf;
}

}  // namespace

std::vector<NamedFigure> beta_figures(const json& result, const std::string& source) {
  Fields f{source};
  std::vector<NamedFigure> out;
  for (const char* stack : {"encoder", "decoder"}) {
    if (!result.contains(stack) || result[stack].is_null()) continue;
    // A decoder-only model's result has an encoder with no rows: no figure, not an empty one.
    const json& m = result[stack];
    const bool no_rows = m.is_object() && m.contains("beta") && m["beta"].is_array() &&
                         m["beta"].empty() && (!m.contains("final") || m["final"].is_null());
    if (no_rows) continue;
    out.emplace_back(stack, beta_heatmap(f, result[stack], stack));
  }
  if (out.empty()) f.fail("encoder", "a beta result has an encoder and/or a decoder matrix");
  return out;
}

LineFigure output_shift_figure(const json& result, const std::string& source) {
  Fields f{source};
  const json& configs = f.at(result, "configs", "");
  if (!configs.is_array() || configs.empty()) f.fail("configs", "expected a non-empty array");
  LineFigure fig;
  fig.x.label = "depth N (layers)";
  fig.x.whole_numbers = true;
  fig.y.label = "output shift";
  // Legend names: the configs' names when they tell the configs apart, else their labels (paths).
  std::vector<std::string> names;
  for (const auto& c : configs) names.push_back(c.is_object() ? c.value("name", "") : "");
  const bool names_distinct =
      std::find(names.begin(), names.end(), "") == names.end() &&
      std::set<std::string>(names.begin(), names.end()).size() == names.size();
  for (size_t k = 0; k < configs.size(); ++k) {
    const json& c = configs[k];
    const std::string path = "configs[" + std::to_string(k) + "].";
    LineSeries data;
    data.name =
        names_distinct ? names[k]
        : c.contains("label") && c["label"].is_string() && !c["label"].get<std::string>().empty()
            ? c["label"].get<std::string>()
            : c.value("name", "config " + std::to_string(k));
    data.x = f.numbers(f.at(c, "depths", path), path + "depths");
    data.y = f.numbers(f.at(c, "shift", path), path + "shift");
    if (data.x.size() != data.y.size()) f.fail(path + "shift", "expected one value per depth");
    // The better of the two fits (y = a x + b with x = N, or x = ln N), as a dashed curve.
    const json* best = nullptr;
    bool best_log = false;
    for (const char* kind : {"linear", "log"}) {
      if (!c.contains(kind) || !c[kind].is_object()) continue;
      const double r2 = f.number(c[kind], "r2", path + kind + ".");
      const double best_r2 = best ? f.number(*best, "r2", path) : -1;
      if (!best || (!std::isnan(r2) && (std::isnan(best_r2) || r2 > best_r2))) {
        best = &c[kind];
        best_log = std::string(kind) == "log";
      }
    }
    if (!best || data.x.empty()) {
      fig.series.push_back(data);
      continue;
    }
    const std::string fp = path + (best_log ? "log." : "linear.");
    const double a = f.number(*best, "a", fp), b = f.number(*best, "b", fp);
    // One legend entry per config, naming its dashed fit: the legend stays small at column width.
    data.name += std::string(best_log ? " (log fit, " : " (linear fit, ") +
                 r2_label(f.number(*best, "r2", fp)) + ")";
    fig.series.push_back(data);
    if (!std::isfinite(a) || !std::isfinite(b)) continue;
    LineSeries fit;
    fit.fit_of = data.name;
    fit.name = "";  // drawn dashed in its data series' colour, not listed
    const auto [lo, hi] = std::minmax_element(data.x.begin(), data.x.end());
    constexpr int kSamples = 64;
    for (int s = 0; s < kSamples; ++s) {
      const double n = *lo + (*hi - *lo) * s / (kSamples - 1);
      if (best_log && n <= 0) continue;
      fit.x.push_back(n);
      fit.y.push_back(a * (best_log ? std::log(n) : n) + b);
    }
    fig.series.push_back(fit);
  }
  return fig;
}

BarFigure grad_norms_figure(const json& result, const std::string& source) {
  Fields f{source};
  const json& groups = f.at(result, "groups", "");
  if (!groups.is_object() || groups.empty()) f.fail("groups", "expected an object of arrays");
  BarFigure fig;
  size_t layers = 0;
  for (const auto& [name, values] : groups.items()) {
    fig.series.push_back({name, f.numbers(values, "groups." + name)});
    layers = std::max(layers, fig.series.back().values.size());
  }
  for (auto& s : fig.series) s.values.resize(layers, kNaN);
  for (size_t l = 0; l < layers; ++l) fig.groups.push_back(std::to_string(l + 1));
  fig.x_label = "layer";
  fig.y.label = "gradient norm (relative)";
  fig.y.scale = Scale::Log;
  return fig;
}

BarFigure ln_scale_figure(const json& result, const std::string& source) {
  Fields f{source};
  const json& norms = f.at(result, "norms", "");
  if (!norms.is_array()) f.fail("norms", "expected an array");
  if (norms.empty())  // Pre-LN and depth-wise LSTM models: nothing to draw, the note says why
    f.fail("norms", result.value("note", std::string("no Post-LN LayerNorms in this model")));
  BarFigure fig;
  BarSeries series{"w/sigma", {}};
  for (size_t i = 0; i < norms.size(); ++i) {
    const std::string path = "norms[" + std::to_string(i) + "].";
    const json& sublayer = f.at(norms[i], "sublayer", path);
    fig.groups.push_back(sublayer.is_string() ? sublayer.get<std::string>() : std::to_string(i));
    series.values.push_back(f.number(norms[i], "w_over_sigma", path));
  }
  fig.series.push_back(series);
  fig.x_label = "sub-layer";
  fig.y.label = "mean |w| / sigma";
  return fig;
}

BarFigure linearize_figure(const json& result, const std::string& source) {
  Fields f{source};
  const json& layers = f.at(result, "layers", "");
  if (!layers.is_array() || layers.empty()) f.fail("layers", "expected a non-empty array");
  BarFigure fig;
  // A language model has no BLEU: its control is scored by validation perplexity too.
  const bool language_model = result.value("arch", "") == "decoder_only";
  const std::string control_metric = language_model ? "ppl_change_pct" : "bleu_change_pct";
  BarSeries ppl{"valid ppl change vs full model (%)", {}},
      bleu{"BLEU change vs full model (%)", {}},
      control{language_model ? "control: valid ppl change with the layer kept (%)"
                             : "control: BLEU change with the layer kept (%)",
              {}};
  bool has_control = false;
  for (size_t i = 0; i < layers.size(); ++i) {
    const std::string path = "layers[" + std::to_string(i) + "].";
    const json& name = f.at(layers[i], "layer", path);
    fig.groups.push_back(name.is_string() ? name.get<std::string>() : std::to_string(i + 1));
    ppl.values.push_back(f.number(layers[i], "ppl_change_pct", path));
    bleu.values.push_back(f.number(layers[i], "bleu_change_pct", path));
    // Results stored before the control existed have none.
    const bool row_control = layers[i].contains("control") && layers[i]["control"].is_object();
    has_control |= row_control;
    control.values.push_back(
        row_control ? f.number(layers[i]["control"], control_metric, path + "control.") : kNaN);
  }
  fig.series = {ppl};
  if (!language_model) fig.series.push_back(bleu);
  if (has_control) fig.series.push_back(control);
  fig.x_label = "linearized layer";
  // The legend names what changed; a longer label overruns a short axis into the legend.
  fig.y.label = "change (%)";
  return fig;
}

BarFigure layer_skip_figure(const json& result, const std::string& source) {
  Fields f{source};
  const json& layers = f.at(result, "layers", "");
  if (!layers.is_array() || layers.empty()) f.fail("layers", "expected a non-empty array");
  BarFigure fig;
  BarSeries change{"valid NLL change with the layer skipped (nats/token)", {}};
  for (size_t i = 0; i < layers.size(); ++i) {
    const std::string path = "layers[" + std::to_string(i) + "].";
    const json& name = f.at(layers[i], "layer", path);
    fig.groups.push_back(name.is_string() ? name.get<std::string>() : std::to_string(i + 1));
    change.values.push_back(f.number(layers[i], "nll_change", path));  // null: non-finite
  }
  fig.series = {change};
  fig.x_label = "skipped layer";
  fig.y.label = "nll change";
  return fig;
}

LineFigure sharpness_figure(const json& result, const std::string& source) {
  Fields f{source};
  const std::vector<double> ritz = f.numbers(f.at(result, "ritz", ""), "ritz");
  if (ritz.empty()) f.fail("ritz", "expected a non-empty array");
  LineFigure fig;
  fig.x.label = "Lanczos step (Hessian-vector products)";
  fig.x.whole_numbers = true;
  fig.y.label = "largest Ritz value";
  LineSeries steps;
  steps.name = "largest Ritz value (approaches lambda_max from below)";
  for (size_t i = 0; i < ritz.size(); ++i) {
    steps.x.push_back(static_cast<double>(i + 1));
    steps.y.push_back(ritz[i]);
  }
  fig.series = {steps};
  return fig;
}

namespace {

// Where each of a stack's positions ("enc.input", "enc.3.ffn", ...) lies in depth: the input at
// 0, a layer's sub-layers spread evenly up to its number -- enc.0.self_attn 0.5, enc.0.ffn 1,
// a decoder's three at 1/3, 2/3 and 1 -- so stacks of two and three sub-layers a layer line up
// layer by layer. Positions that name no layer keep their index.
// The line named `name` in `fig`, added at the end the first time.
LineSeries& line_named(LineFigure& fig, const std::string& name) {
  auto line = std::find_if(fig.series.begin(), fig.series.end(),
                           [&](const LineSeries& l) { return l.name == name; });
  if (line == fig.series.end()) {
    fig.series.emplace_back();
    fig.series.back().name = name;
    return fig.series.back();
  }
  return *line;
}

std::vector<double> depth_of_positions(const std::vector<std::string>& positions) {
  std::vector<int> layer(positions.size(), -1);
  std::map<int, int> count;
  for (size_t k = 0; k < positions.size(); ++k) {
    const size_t dot = positions[k].find('.');
    const size_t next = dot == std::string::npos ? dot : positions[k].find('.', dot + 1);
    if (next == std::string::npos) continue;
    const std::string number = positions[k].substr(dot + 1, next - dot - 1);
    if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos) continue;
    layer[k] = std::stoi(number);
    ++count[layer[k]];
  }
  const std::string input = ".input";
  std::vector<double> x(positions.size());
  std::map<int, int> seen;
  for (size_t k = 0; k < positions.size(); ++k) {
    const std::string& p = positions[k];
    if (p.size() >= input.size() && p.compare(p.size() - input.size(), input.size(), input) == 0)
      x[k] = 0.0;
    else if (layer[k] < 0)
      x[k] = static_cast<double>(k);
    else
      x[k] = layer[k] + static_cast<double>(++seen[layer[k]]) / count[layer[k]];
  }
  return x;
}

}  // namespace

LineFigure rank_collapse_figure(const json& result, const std::string& source) {
  Fields f{source};
  const json& stacks = f.at(result, "stacks", "");
  if (!stacks.is_array() || stacks.empty()) f.fail("stacks", "expected a non-empty array");
  LineFigure fig;
  fig.x.label = "layer (0: the stack's input)";
  fig.y.label = "mean cosine between tokens";
  for (size_t i = 0; i < stacks.size(); ++i) {
    const std::string path = "stacks[" + std::to_string(i) + "].";
    const json& name = f.at(stacks[i], "stack", path);
    LineSeries line;
    line.name = name.is_string() ? name.get<std::string>() : std::to_string(i);
    line.y = f.numbers(f.at(stacks[i], "token_cosine", path), path + "token_cosine");
    const auto positions = f.strings(f.at(stacks[i], "positions", path), path + "positions");
    if (positions.size() != line.y.size())
      f.fail(path + "positions", "expected one per token_cosine value");
    line.x = depth_of_positions(positions);
    fig.series.push_back(std::move(line));
  }
  return fig;
}

LineFigure rank_collapse_gradient_figure(const json& result, const std::string& source) {
  Fields f{source};
  std::map<std::string, double> depth;  // each position's x in the cosine figure
  for (const auto& stack : f.at(result, "stacks", "")) {
    const auto positions = f.strings(f.at(stack, "positions", "stacks[]."), "stacks[].positions");
    const auto x = depth_of_positions(positions);
    for (size_t k = 0; k < positions.size(); ++k) depth[positions[k]] = x[k];
  }
  LineFigure fig;
  fig.x.label = "layer";
  fig.y.label = "|dL/dW_Q| / |dL/dW_V|";
  fig.y.scale = Scale::Log;
  // One line per kind of attention, named by it: the encoder's, the decoder's own, the
  // decoder's over the encoder -- in the order they first come.
  const json& attention = f.at(result, "attention", "");
  for (size_t i = 0; i < attention.size(); ++i) {
    const std::string path = "attention[" + std::to_string(i) + "].";
    const json& sublayer = f.at(attention[i], "sublayer", path);
    const std::string name = sublayer.is_string() ? sublayer.get<std::string>() : "";
    const auto at = depth.find(name);
    const size_t dot = name.rfind('.');
    if (at == depth.end() || dot == std::string::npos) continue;  // not a stream position
    LineSeries& line = line_named(fig, name.substr(0, name.find('.')) + " " + name.substr(dot + 1));
    const double v = f.number(attention[i], "grad_v", path);
    line.x.push_back(at->second);
    line.y.push_back(v > 0 ? f.number(attention[i], "grad_q", path) / v : kNaN);
  }
  return fig;
}

// The cosines, and where the result has them, the queries' gradient against the values'.
std::vector<NamedFigure> rank_collapse_figures(const json& result, const std::string& source) {
  std::vector<NamedFigure> out{{"", rank_collapse_figure(result, source)}};
  // No ratio to draw where no value projection has a gradient (ReZero at initialization).
  bool any = false;
  for (const auto& a : result.value("attention", json::array())) {
    const json v = a.is_object() ? a.value("grad_v", json()) : json();
    any = any || (v.is_number() && v.get<double>() > 0);
  }
  if (any) out.emplace_back("gradients", rank_collapse_gradient_figure(result, source));
  return out;
}

namespace {

struct BlockRow {
  std::string kind, stack;
  int layer = -1;
  double lambda_max = kNaN;
  std::vector<double> nodes, weights;
};

std::vector<BlockRow> block_rows(const Fields& f, const json& result) {
  const json& blocks = f.at(result, "blocks", "");
  if (!blocks.is_array() || blocks.empty()) f.fail("blocks", "expected a non-empty array");
  std::vector<BlockRow> out;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const std::string path = "blocks[" + std::to_string(i) + "].";
    BlockRow r;
    r.kind = f.text(blocks[i], "kind", path);
    r.stack = f.text(blocks[i], "stack", path);
    r.layer = static_cast<int>(f.number(blocks[i], "layer", path));
    r.lambda_max = f.number(blocks[i], "lambda_max", path);
    r.nodes = f.numbers(f.at(blocks[i], "ritz_values", path), path + "ritz_values");
    r.weights = f.numbers(f.at(blocks[i], "ritz_weights", path), path + "ritz_weights");
    if (r.nodes.size() != r.weights.size())
      f.fail(path + "ritz_weights", "expected one per ritz value");
    out.push_back(std::move(r));
  }
  return out;
}

// Each kind of block's spectral density: the mean over its blocks of their quadratures, each
// node a Gaussian of width sigma = 1/50 of the nodes' whole range, drawn where it is above
// 1e-6 of the figure's peak (a log axis has no 0).
LineFigure block_spectra_figure(const Fields& f, const std::vector<BlockRow>& rows) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& r : rows)
    for (double t : r.nodes)
      if (std::isfinite(t)) lo = std::min(lo, t), hi = std::max(hi, t);
  if (!(lo <= hi)) f.fail("blocks", "no finite Ritz value to draw");
  const double range = hi > lo ? hi - lo : std::max(std::abs(lo), 1.0);
  const double sigma = range / 50, from = lo - 5 * sigma, to = hi + 5 * sigma;
  constexpr int kPoints = 401;
  LineFigure fig;
  fig.x.label = "eigenvalue of the block's Hessian";
  fig.y.label = "spectral density";
  fig.y.scale = Scale::Log;
  fig.markers = false;
  std::map<std::string, int> blocks_of_kind;
  for (const auto& r : rows) ++blocks_of_kind[r.kind];
  double peak = 0;
  for (const auto& r : rows) {
    LineSeries& line = line_named(fig, r.kind);
    if (line.x.empty()) {
      for (int i = 0; i < kPoints; ++i) line.x.push_back(from + (to - from) * i / (kPoints - 1));
      line.y.assign(kPoints, 0.0);
    }
    for (int i = 0; i < kPoints; ++i) {
      double d = 0;
      for (size_t j = 0; j < r.nodes.size(); ++j) {
        const double z = (line.x[i] - r.nodes[j]) / sigma;
        if (std::isfinite(z)) d += r.weights[j] * std::exp(-0.5 * z * z);
      }
      line.y[i] += d / (sigma * std::sqrt(2 * M_PI)) / blocks_of_kind[r.kind];
      peak = std::max(peak, line.y[i]);
    }
  }
  for (auto& line : fig.series)
    for (double& y : line.y)
      if (!(y > 1e-6 * peak)) y = kNaN;
  return fig;
}

// lambda_max of each block of one stack against its layer (1-based), a line per kind, log y
// (blocks without positive curvature left out).
LineFigure block_lambda_max_figure(const std::vector<BlockRow>& rows, const std::string& stack) {
  LineFigure fig;
  fig.title = stack;
  fig.x.label = "layer";
  fig.x.whole_numbers = true;
  fig.y.label = "lambda_max of the block's Hessian";
  fig.y.scale = Scale::Log;
  for (const auto& r : rows) {
    if (r.stack != stack || r.layer < 0) continue;
    LineSeries& line = line_named(fig, r.kind);
    line.x.push_back(r.layer + 1);
    line.y.push_back(r.lambda_max > 0 ? r.lambda_max : kNaN);
  }
  return fig;
}

}  // namespace

// The densities by kind; then per stack with any positive lambda_max, lambda_max against depth.
std::vector<NamedFigure> block_hessian_figures(const json& result, const std::string& source) {
  Fields f{source};
  const std::vector<BlockRow> rows = block_rows(f, result);
  std::vector<NamedFigure> out{{"", block_spectra_figure(f, rows)}};
  std::vector<std::string> stacks;
  for (const auto& r : rows)
    if (r.layer >= 0 && r.lambda_max > 0 &&
        std::find(stacks.begin(), stacks.end(), r.stack) == stacks.end())
      stacks.push_back(r.stack);
  for (const auto& stack : stacks) out.emplace_back(stack, block_lambda_max_figure(rows, stack));
  return out;
}

std::vector<NamedFigure> analysis_figures(const json& result, const std::string& kind,
                                          const std::string& source) {
  return find_analysis_kind(kind, source).figures(result, source);
}

}  // namespace fathom::plot
