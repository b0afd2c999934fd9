#pragma once
// Figures from `fathom analyze` results (JSON in, figures out; no Qt, no LibTorch):
//   beta         {"encoder": {"labels", "rows", "beta", "final"}, "decoder": {...}}
//                -> one heatmap per stack (structural zeros right of each row's own branch empty)
//   output-shift {"configs": [{"name", "label", "depths", "shift", "linear", "log"}]}
//                -> shift vs depth per config, with its better fit (y = a x + b, x = N or ln N)
//   grad-norms   {"labels", "groups": {"enc_attn": [...], ...}}
//                -> grouped bars per layer, one series per group, log y
//   ln-scale     {"norms": [{"sublayer", "w_over_sigma"}, ...]} -> a bar per Post-LN LayerNorm
//   linearize    {"layers": [{"layer", "ppl_change_pct", "bleu_change_pct"}, ...]}
//                -> per linearized layer, bars of the perplexity and BLEU change in percent
//                   (with "arch": "decoder_only" a language model: no BLEU bars, its control's
//                   perplexity change)
//   layer-skip   {"layers": [{"layer", "nll_change"}, ...]}
//                -> a bar per layer: the validation loss change when it is skipped
//   rank-collapse {"stacks": [{"stack", "positions", "token_cosine"}, ...],
//                  "attention": [{"sublayer", "grad_q", "grad_k", "grad_v"}, ...]}
//                -> the mean cosine between tokens vs depth in layers, a line per stack; and
//                   ("gradients") |dW_Q| / |dW_V| vs depth, a line per kind of attention, log y
//   block-hessian {"blocks": [{"kind", "stack", "layer", "lambda_max", "ritz_values",
//                  "ritz_weights"}, ...]}
//                -> each kind of block's spectral density (its blocks' quadratures, Gaussian-
//                   smoothed), log y; and per stack ("enc", "dec") lambda_max vs layer, a line
//                   per kind, log y
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "plot/figure.h"

namespace fathom::plot {

// A figure and the suffix that tells it apart when a result makes several ("encoder").
using NamedFigure = std::pair<std::string, Figure>;

// kind: a name of plot/analysis_kinds.h. Malformed results throw fathom::InputError naming
// `source` and the field.
std::vector<NamedFigure> analysis_figures(const nlohmann::json& result, const std::string& kind,
                                          const std::string& source = "<json>");

std::vector<NamedFigure> beta_figures(const nlohmann::json& result, const std::string& source);
LineFigure output_shift_figure(const nlohmann::json& result, const std::string& source);
BarFigure grad_norms_figure(const nlohmann::json& result, const std::string& source);
// A result without Post-LN LayerNorms (Pre-LN) throws with the result's note as the message.
BarFigure ln_scale_figure(const nlohmann::json& result, const std::string& source);
BarFigure linearize_figure(const nlohmann::json& result, const std::string& source);
BarFigure layer_skip_figure(const nlohmann::json& result, const std::string& source);
// sharpness: the largest Ritz value after each Lanczos step (its convergence).
LineFigure sharpness_figure(const nlohmann::json& result, const std::string& source);
// rank-collapse: the input at 0, layer l's sub-layers spread over (l, l + 1].
std::vector<NamedFigure> rank_collapse_figures(const nlohmann::json& result,
                                               const std::string& source);
LineFigure rank_collapse_figure(const nlohmann::json& result, const std::string& source);
LineFigure rank_collapse_gradient_figure(const nlohmann::json& result, const std::string& source);
// block-hessian: the densities, then lambda_max vs layer for each stack with positive values.
std::vector<NamedFigure> block_hessian_figures(const nlohmann::json& result,
                                               const std::string& source);

}  // namespace fathom::plot
