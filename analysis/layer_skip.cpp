// `fathom analyze layer-skip RUN|CONFIG`: see layer_skip.h.
#include "analysis/layer_skip.h"

#include <cmath>
#include <cstdio>

#include "analysis/registry.h"
#include "base/util/error.h"
#include "base/util/json_number.h"
#include "core/model/observed_eval.h"
#include "core/model/registry.h"

namespace fathom::analysis {

torch::Tensor SkipLayer::replace_layer(Stack stack, int layer, const torch::Tensor& state) {
  return stack == layer_.stack && layer == layer_.layer ? state : torch::Tensor();
}

LayerSkipResult layer_skip(TransformerImpl& model, const std::vector<Example>& examples,
                           int64_t max_tokens, double label_smoothing) {
  LayerSkipResult result;
  const torch::Device device = model.parameters().front().device();  // where --device put it
  result.full = evaluate_loss(model, examples, max_tokens, device, label_smoothing);
  const ModelConfig& m = model.config();
  for (const LayerRef& layer : parse_layers("", encoder_layer_count(m), m.decoder_layers)) {
    SkipLayer skip(layer);
    ObservedEval observed(model, &skip);
    result.layers.push_back(
        {layer, evaluate_loss(model, examples, max_tokens, device, label_smoothing)});
  }
  return result;
}

namespace {

nlohmann::json run_layer_skip(std::vector<Subject>& subjects, const AnalysisParams& params) {
  Subject& s = subjects.at(0);
  if (!s.data || s.data->valid.empty())
    throw InputError(s.label, 0, "data.valid",
                     "layer-skip measures the validation loss; this config has no validation data");
  move_subject_to(s, params.device);
  const LayerSkipResult r =
      layer_skip(*s.model, s.data->valid, s.config.data.max_tokens, s.config.train.label_smoothing);
  const ModelConfig& m = s.config.model;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : r.layers)
    rows.push_back(
        {{"layer", row.layer.name()},
         {"stack", stack_name(row.layer.stack)},
         {"index", row.layer.layer + 1},
         {"valid_nll", number_or_null(row.skipped.nll)},
         {"valid_ppl", number_or_null(row.skipped.ppl)},
         {"nll_change", number_or_null(row.skipped.nll - r.full.nll)},
         {"ppl_change_pct", number_or_null(100.0 * (row.skipped.ppl / r.full.ppl - 1.0))}});
  return {{"arch", m.arch},
          {"norm", resolve_sublayer_style(m)},
          {"connection", m.connection},
          {"tokens", r.full.tokens},
          {"full", {{"valid_nll", r.full.nll}, {"valid_ppl", r.full.ppl}}},
          {"layers", rows}};
}

std::string cell(const nlohmann::json& v, const char* format) {
  if (!v.is_number()) return "n/a";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, format, v.get<double>());
  return buffer;
}

void print_layer_skip(const nlohmann::json& result, std::ostream& out) {
  const auto& full = result.at("full");
  out << "layer skip (each layer's output := its input, dropout off, "
      << result.at("tokens").get<int64_t>() << " validation tokens); full model: valid nll "
      << cell(full.at("valid_nll"), "%.4f") << ", ppl " << cell(full.at("valid_ppl"), "%.3f")
      << "\n";
  char line[160];
  std::snprintf(line, sizeof line, "  %-7s %11s %11s %10s %10s\n", "skipped", "valid nll", "change",
                "valid ppl", "change%");
  out << line;
  for (const auto& r : result.at("layers")) {
    std::snprintf(
        line, sizeof line, "  %-7s %11s %11s %10s %10s\n", r.at("layer").get<std::string>().c_str(),
        cell(r.at("valid_nll"), "%.4f").c_str(), cell(r.at("nll_change"), "%+.4f").c_str(),
        cell(r.at("valid_ppl"), "%.3f").c_str(), cell(r.at("ppl_change_pct"), "%+.2f").c_str());
    out << line;
  }
}

}  // namespace

void register_layer_skip(AnalysisRegistry& registry) {
  Analysis a;
  a.doc = "validation loss change when each layer is skipped (output := input; methods.md s5.8)";
  a.options = {"device"};
  a.run = run_layer_skip;
  a.print = print_layer_skip;
  a.reads_decoder_only = true;
  registry.add("layer-skip", std::move(a));
}

}  // namespace fathom::analysis
