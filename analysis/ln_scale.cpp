// `fathom analyze ln-scale RUN|CONFIG`: see ln_scale.h.
#include "analysis/ln_scale.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>

#include "analysis/registry.h"
#include "analysis/stream_decomposition.h"
#include "core/model/observed_eval.h"
#include "core/model/registry.h"

namespace fathom::analysis {
namespace {

struct PostNormRecorder : SublayerObserver {
  torch::Tensor masks[2];
  std::map<std::pair<int, int>, NormTrace> owned;
  std::vector<LnScale> out;

  void on_norm(const SublayerId* owner, const NormTrace& trace) override {
    if (owner) owned[{static_cast<int>(owner->stack), owner->index}] = trace;
  }
  void on_sublayer(const SublayerId& id, const SublayerTrace& trace) override {
    auto it = owned.find({static_cast<int>(id.stack), id.index});
    if (it == owned.end() || !it->second.output.is_same(trace.output)) return;
    const NormTrace& n = it->second;
    const torch::Tensor mask = masks[static_cast<int>(id.stack)];
    const torch::Tensor sigma = n.std.to(torch::kFloat64).squeeze(-1).index({mask});  // [tokens]
    const double w = n.gamma.to(torch::kFloat64).abs().mean().item<double>();
    const torch::Tensor ratio = w / sigma;
    out.push_back({n.name, id, ratio.mean().item<double>(), ratio.min().item<double>(),
                   ratio.max().item<double>(), sigma.mean().item<double>()});
  }
};

}  // namespace

std::vector<LnScale> ln_scales(TransformerImpl& model, const Batch& batch) {
  PostNormRecorder recorder;
  recorder.masks[0] = non_pad(batch.src);
  recorder.masks[1] = non_pad(batch.tgt_in);
  torch::NoGradGuard no_grad;
  {
    ObservedEval observed(model, &recorder);
    model.forward(batch.src, batch.tgt_in);
  }
  return recorder.out;
}

namespace {

nlohmann::json run_ln_scale(std::vector<Subject>& subjects, const AnalysisParams& params) {
  Subject& s = subjects.at(0);
  move_subject_to(s, params.device);
  nlohmann::json norms = nlohmann::json::array();
  for (const auto& n : ln_scales(*s.model, s.batch))
    norms.push_back({{"name", n.name},
                     {"sublayer", n.owner.name()},
                     {"w_over_sigma", n.w_over_sigma},
                     {"min", n.min},
                     {"max", n.max},
                     {"sigma", n.sigma}});
  nlohmann::json result{{"norms", norms}};
  const std::string style = resolve_sublayer_style(s.config.model);
  const NormalizationTraits& norm = methods().sublayer_styles.find(style)->normalization;
  if (!norm.is_layer_norm) {
    // Such a norm divides by no sigma: w/sigma does not exist. List its own scales instead.
    nlohmann::json scales = nlohmann::json::array();
    const std::string suffix = "." + norm.scale_name;
    for (const auto& e : s.model->catalog().extras)
      if (!norm.scale_kind.empty() && e.kind == norm.scale_kind)
        scales.push_back({{"name", e.name.substr(0, e.name.rfind(suffix))},
                          {norm.scale_name, e.tensor.item<double>()}});
    result[norm.scales_key()] = scales;  // what plot/analysis_kinds.cpp reads
    result["note"] = "model.norm '" + style + "' has no LayerNorm: every one is " + norm.formula +
                     ", which divides by no sigma, so w/sigma is not defined. Each " + norm.name +
                     "'s " + norm.scale_name + " is listed instead.";
  } else if (norms.empty()) {
    result["note"] = "no Post-LN LayerNorms: model.norm '" + s.config.model.norm + "', init '" +
                     s.config.model.init + "', connection '" + s.config.model.connection + "'";
  }
  return result;
}

void print_ln_scale(const nlohmann::json& result, std::ostream& out) {
  if (result.contains("note")) {
    out << result["note"].get<std::string>() << "\n";
    char line[160];
    for (const auto& norm : scale_normalizations())
      for (const auto& d : result.value(norm.scales_key(), nlohmann::json::array())) {
        std::snprintf(line, sizeof line, "  %-32s %s %10.4f\n",
                      d.at("name").get<std::string>().c_str(), norm.scale_name.c_str(),
                      d.at(norm.scale_name).get<double>());
        out << line;
      }
    return;
  }
  out << "w/sigma of each Post-LN LayerNorm (mean over tokens of mean|w| / sigma; < 1 shrinks "
         "the shortcut)\n";
  char line[160];
  std::snprintf(line, sizeof line, "  %-32s %10s %10s %10s %10s\n", "layer norm", "w/sigma", "min",
                "max", "sigma");
  out << line;
  for (const auto& n : result.at("norms")) {
    std::snprintf(line, sizeof line, "  %-32s %10.4f %10.4f %10.4f %10.4f\n",
                  n.at("name").get<std::string>().c_str(), n.at("w_over_sigma").get<double>(),
                  n.at("min").get<double>(), n.at("max").get<double>(),
                  n.at("sigma").get<double>());
    out << line;
  }
}

}  // namespace

void register_ln_scale(AnalysisRegistry& registry) {
  Analysis a;
  a.doc = "w/sigma of every Post-LN LayerNorm (Xu et al. 2020 table 2, methods.md s2)";
  a.run = run_ln_scale;
  a.print = print_ln_scale;
  a.reads_decoder_only = true;
  a.options = {"device"};
  registry.add("ln-scale", std::move(a));
}

}  // namespace fathom::analysis
