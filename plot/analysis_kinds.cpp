#include "plot/analysis_kinds.h"

#include <cstdio>

#include "base/config/normalization.h"
#include "base/util/error.h"
#include "base/util/strings.h"

namespace fathom::plot {
namespace {

using json = nlohmann::json;

std::string formatted(const json& v, int digits = 4) {
  if (!v.is_number()) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v.get<double>());
  return buf;
}

std::string number(const json& j, const char* key, int digits = 4) {
  return j.is_object() && j.contains(key) ? formatted(j[key], digits) : "-";
}

std::string text(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// A language model has no BLEU: its rows and its control compare validation perplexities.
ResultTable language_model_linearize_table(const json& result) {
  ResultTable t{{"layer", "valid ppl", "ppl change %", "control ppl change %", "ppl vs control %",
                 "steps", "lstsq mse", "final mse"},
                {}};
  t.rows.push_back({"full model", number(result.value("full", json::object()), "valid_ppl"), "", "",
                    "", "", "", ""});
  for (const auto& l : result["layers"]) {
    const json control = l.value("control", json::object());
    t.rows.push_back({text(l, "layer"), number(l, "valid_ppl"), number(l, "ppl_change_pct", 3),
                      number(control, "ppl_change_pct", 3), number(l, "ppl_vs_control_pct", 3),
                      number(l, "steps", 6), number(l, "lstsq_mse"), number(l, "final_mse")});
  }
  return t;
}

std::vector<ResultTable> linearize_tables(const json& result) {
  if (!result.contains("layers")) return {};
  if (text(result, "arch") == "decoder_only") return {language_model_linearize_table(result)};
  ResultTable t{{"layer", "valid ppl", "ppl change %", "BLEU", "BLEU change %",
                 "control BLEU change %", "BLEU vs control %", "steps", "lstsq mse", "final mse"},
                {}};
  const json full = result.value("full", json::object());
  t.rows.push_back(
      {"full model", number(full, "valid_ppl"), "", number(full, "bleu"), "", "", "", "", "", ""});
  for (const auto& l : result["layers"]) {
    const json control = l.value("control", json::object());
    t.rows.push_back({text(l, "layer"), number(l, "valid_ppl"), number(l, "ppl_change_pct", 3),
                      number(l, "bleu"), number(l, "bleu_change_pct", 3),
                      number(control, "bleu_change_pct", 3), number(l, "bleu_vs_control_pct", 3),
                      number(l, "steps", 6), number(l, "lstsq_mse"), number(l, "final_mse")});
  }
  return {t};
}

std::string linearize_caption(const json& result) {
  if (!result.contains("layers")) return "";
  return "objective " + text(result, "objective") + ", at most " +
         number(result, result.contains("max_steps") ? "max_steps" : "steps") +
         " steps, early stopping on validation; control: the layer kept, an affine map after it "
         "trained the same way";
}

std::vector<ResultTable> ln_scale_tables(const json& result) {
  std::vector<ResultTable> out;
  if (result.contains("norms") && !result["norms"].empty()) {
    ResultTable t{{"LayerNorm", "w/sigma", "min", "max", "sigma"}, {}};
    for (const auto& n : result["norms"])
      t.rows.push_back({text(n, "name"), number(n, "w_over_sigma"), number(n, "min"),
                        number(n, "max"), number(n, "sigma")});
    out.push_back(t);
  }
  // A model whose norms are no LayerNorm (DyT): no sigma, their own scales instead.
  for (const auto& norm : scale_normalizations()) {
    if (!result.contains(norm.scales_key())) continue;
    ResultTable t{{norm.name, norm.scale_name}, {}};
    for (const auto& d : result[norm.scales_key()])
      t.rows.push_back({text(d, "name"), number(d, norm.scale_name.c_str())});
    out.push_back(t);
  }
  return out;
}

std::vector<ResultTable> layer_skip_tables(const json& result) {
  if (!result.contains("layers")) return {};
  ResultTable t{{"skipped layer", "valid nll", "nll change", "valid ppl", "ppl change %"}, {}};
  const json full = result.value("full", json::object());
  t.rows.push_back(
      {"none (full model)", number(full, "valid_nll"), "", number(full, "valid_ppl"), ""});
  for (const auto& l : result["layers"])
    t.rows.push_back({text(l, "layer"), number(l, "valid_nll"), number(l, "nll_change"),
                      number(l, "valid_ppl"), number(l, "ppl_change_pct", 3)});
  return {t};
}

std::string layer_skip_caption(const json& result) {
  if (!result.contains("layers")) return "";
  return "each layer skipped in turn (its output := its input; methods.md s5.8), dropout off, " +
         number(result, "tokens", 10) + " validation tokens";
}

std::vector<ResultTable> sharpness_tables(const json& result) {
  if (!result.contains("sharpness")) return {};
  return {
      {{"eigenvalue", "value", "residual"},
       {{"lambda_max(H)", number(result, "sharpness"), number(result, "residual", 2)},
        {"lambda_min(H)", number(result, "smallest"), number(result, "smallest_residual", 2)}}}};
}

std::string sharpness_caption(const json& result) {
  if (!result.contains("sharpness")) return "";
  return "the training loss's Hessian on the first batch (" + number(result, "sentences", 10) +
         " sentences), dropout off (methods.md s5.9); lambda_max " +
         std::string(result.value("converged", false) ? "converged" : "did NOT converge") +
         " after " + number(result, "iterations", 10) + " Lanczos steps";
}

std::vector<ResultTable> rank_collapse_tables(const json& result) {
  if (!result.contains("stacks")) return {};
  ResultTable t{{"position", "mean cosine between tokens"}, {}};
  for (const auto& stack : result["stacks"]) {
    const json positions = stack.value("positions", json::array());
    const json cosines = stack.value("token_cosine", json::array());
    for (size_t i = 0; i < positions.size() && i < cosines.size(); ++i)
      t.rows.push_back(
          {positions[i].is_string() ? positions[i].get<std::string>() : "", formatted(cosines[i])});
  }
  if (!result.contains("attention")) return {t};
  ResultTable g{{"attention", "|dL/dW_Q|", "|dL/dW_K|", "|dL/dW_V|", "Q / V"}, {}};
  for (const auto& a : result["attention"]) {
    // null where a diverged model's gradient was not finite
    const json q = a.is_object() ? a.value("grad_q", json()) : json();
    const json v = a.is_object() ? a.value("grad_v", json()) : json();
    const bool ratio = q.is_number() && v.is_number() && v.get<double>() > 0;
    g.rows.push_back({text(a, "sublayer"), number(a, "grad_q"), number(a, "grad_k"),
                      number(a, "grad_v"),
                      ratio ? formatted(json(q.get<double>() / v.get<double>()), 3) : "-"});
  }
  return {t, g};
}

std::string rank_collapse_caption(const json& result) {
  if (!result.contains("stacks")) return "";
  return "the cosine between two real tokens of a sentence, averaged over its pairs and the " +
         number(result, "sentences", 10) +
         " sentences of the first training batch, dropout off; 1: rank collapse, where the "
         "attention's W_Q and W_K get no gradient (methods.md s5.10)";
}

std::vector<ResultTable> block_hessian_tables(const json& result) {
  if (!result.contains("blocks")) return {};
  ResultTable t{{"block", "parameters", "lambda_max", "+-", "lambda_min", "+-"}, {}};
  for (const auto& b : result["blocks"])
    t.rows.push_back({text(b, "block"), number(b, "params", 10), number(b, "lambda_max"),
                      number(b, "lambda_max_residual", 2), number(b, "lambda_min"),
                      number(b, "lambda_min_residual", 2)});
  return {t};
}

std::string block_hessian_caption(const json& result) {
  if (!result.contains("blocks")) return "";
  std::string words = "each weight matrix's block of the training loss's Hessian on " +
                      number(result, "sentences", 10) +
                      " sentences of the first training batch, dropout off, " +
                      number(result, "steps", 10) + " Lanczos steps a block (methods.md s5.11)";
  if (result.contains("spread_decades"))
    words += "; lambda_max spans " + number(result, "spread_decades", 3) + " decades, stiffest " +
             text(result, "stiffest") + ", softest " + text(result, "softest") +
             "; sd of its log10 over the blocks " + number(result, "log10_lambda_max_sd", 3);
  return words;
}

std::string note_caption(const json& result) { return text(result, "note"); }

std::string output_shift_caption(const json& result) {
  std::string words;
  for (const auto& c : result.value("configs", json::array())) {
    const json lin = c.value("linear", json::object()), log = c.value("log", json::object());
    words += (words.empty() ? "" : "\n") + text(c, "label") + ": linear fit R² " +
             number(lin, "r2", 3) + ", log fit R² " + number(log, "r2", 3);
  }
  return words;
}

template <typename F>
std::function<std::vector<NamedFigure>(const json&, const std::string&)> one(F figure) {
  return [figure](const json& result, const std::string& source) {
    return std::vector<NamedFigure>{{"", figure(result, source)}};
  };
}

std::vector<AnalysisKind> build_kinds() {
  std::vector<AnalysisKind> kinds;
  kinds.push_back({"beta", false, "", beta_figures, nullptr, note_caption});
  kinds.push_back({"grad-norms", false, "", one(grad_norms_figure), nullptr, nullptr});
  kinds.push_back({"ln-scale", false, "", one(ln_scale_figure), ln_scale_tables, note_caption});
  // output-shift sweeps depths with fresh models; linearize is costly over every layer, so the
  // desktop app starts it short, over two.
  kinds.push_back({"output-shift", true, "--depths 1,2,4,8", one(output_shift_figure), nullptr,
                   output_shift_caption});
  kinds.push_back({"linearize", false, "--layers enc:1-2 --steps 20", one(linearize_figure),
                   linearize_tables, linearize_caption});
  kinds.push_back(
      {"layer-skip", false, "", one(layer_skip_figure), layer_skip_tables, layer_skip_caption});
  kinds.push_back(
      {"sharpness", false, "", one(sharpness_figure), sharpness_tables, sharpness_caption});
  kinds.push_back({"rank-collapse", false, "", rank_collapse_figures, rank_collapse_tables,
                   rank_collapse_caption});
  kinds.push_back({"block-hessian", false, "", block_hessian_figures, block_hessian_tables,
                   block_hessian_caption});
  kinds.push_back(noise_scale_kind());
  return kinds;
}

}  // namespace

const std::vector<AnalysisKind>& analysis_kinds() {
  static const std::vector<AnalysisKind> kinds = build_kinds();
  return kinds;
}

std::vector<std::string> analysis_kind_names() {
  std::vector<std::string> names;
  for (const auto& k : analysis_kinds()) names.push_back(k.name);
  return names;
}

const AnalysisKind& find_analysis_kind(const std::string& name, const std::string& source) {
  for (const auto& k : analysis_kinds())
    if (k.name == name) return k;
  throw InputError(source, 0, "--kind",
                   "expected " + join(analysis_kind_names(), ", ") + ", got '" + name + "'");
}

}  // namespace fathom::plot
