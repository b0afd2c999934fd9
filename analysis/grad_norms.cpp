// `fathom analyze grad-norms RUN|CONFIG`: see grad_norms.h.
#include "analysis/grad_norms.h"

#include <algorithm>
#include <cstdio>

#include "analysis/observed_backward.h"
#include "analysis/registry.h"

namespace fathom::analysis {
namespace {

// Keeps the gradient of what every sub-layer passes on: x_k, or a hyper-connection stack's n
// streams (their sum, the trace's `output`, is computed for observers only).
struct OutputGradients : SublayerObserver {
  std::vector<std::pair<SublayerId, torch::Tensor>> outputs;
  void on_sublayer(const SublayerId& id, const SublayerTrace& trace) override {
    if (!trace.passed_on().requires_grad()) return;
    torch::Tensor out = trace.passed_on();
    out.retain_grad();
    outputs.emplace_back(id, out);
  }
};

const std::vector<std::string> kGroupOrder{"enc_attn",     "enc_ffn", "enc_lstm", "dec_self_attn",
                                           "dec_enc_attn", "dec_ffn", "dec_lstm"};

}  // namespace

std::string grad_norm_group(const SublayerId& id) {
  const bool enc = id.stack == Stack::Encoder;
  switch (id.kind) {
    case SublayerKind::SelfAttention:
      return enc ? "enc_attn" : "dec_self_attn";
    case SublayerKind::EncoderAttention:
      return "dec_enc_attn";
    case SublayerKind::FeedForward:
      return enc ? "enc_ffn" : "dec_ffn";
    case SublayerKind::Lstm:
      return enc ? "enc_lstm" : "dec_lstm";
  }
  return "other";
}

std::vector<SublayerGradNorm> sublayer_grad_norms(TransformerImpl& model, const Batch& batch,
                                                  double label_smoothing) {
  OutputGradients recorder;
  std::vector<SublayerGradNorm> out;
  observed_loss_backward(model, batch, label_smoothing, &recorder, [&] {
    for (const auto& [id, t] : recorder.outputs)
      out.push_back({id, t.grad().defined() ? t.grad().norm().item<double>() : 0.0});
  });
  return out;
}

namespace {

nlohmann::json run_grad_norms(std::vector<Subject>& subjects, const AnalysisParams& params) {
  Subject& s = subjects.at(0);
  move_subject_to(s, params.device);
  const auto norms = sublayer_grad_norms(*s.model, s.batch, s.config.train.label_smoothing);
  double largest = 0;
  for (const auto& n : norms) largest = std::max(largest, n.norm);
  nlohmann::json labels = nlohmann::json::array(), raw = nlohmann::json::array(),
                 relative = nlohmann::json::array(), groups = nlohmann::json::object(),
                 group_labels = nlohmann::json::object();
  for (const auto& n : norms) {
    const double r = largest > 0 ? n.norm / largest : 0.0;
    labels.push_back(n.id.name());
    raw.push_back(n.norm);
    relative.push_back(r);
    const std::string g = grad_norm_group(n.id);
    groups[g].push_back(r);
    group_labels[g].push_back(n.id.name());
  }
  return {{"labels", labels},    {"norms", raw},     {"relative", relative},
          {"max_norm", largest}, {"groups", groups}, {"group_labels", group_labels}};
}

void print_grad_norms(const nlohmann::json& result, std::ostream& out) {
  out << "||dL/dx_k|| of sub-layer outputs, relative to the largest ("
      << result.at("max_norm").get<double>() << "), by layer\n";
  const auto& groups = result.at("groups");
  size_t layers = 0;
  for (const auto& [g, values] : groups.items()) layers = std::max(layers, values.size());
  char cell[32];
  out << "  layer";
  for (const auto& g : kGroupOrder)
    if (groups.contains(g)) {
      std::snprintf(cell, sizeof cell, " %13s", g.c_str());
      out << cell;
    }
  out << "\n";
  for (size_t l = 0; l < layers; ++l) {
    std::snprintf(cell, sizeof cell, "  %5zu", l + 1);
    out << cell;
    for (const auto& g : kGroupOrder) {
      if (!groups.contains(g)) continue;
      if (l < groups[g].size())
        std::snprintf(cell, sizeof cell, " %13.4g", groups[g][l].get<double>());
      else
        std::snprintf(cell, sizeof cell, " %13s", "");
      out << cell;
    }
    out << "\n";
  }
}

}  // namespace

void register_grad_norms(AnalysisRegistry& registry) {
  Analysis a;
  a.doc =
      "||dL/dx_k|| of every sub-layer output on the first batch, relative to the largest "
      "(Admin fig. 3, methods.md s5.3)";
  a.run = run_grad_norms;
  a.print = print_grad_norms;
  a.reads_decoder_only = true;
  a.options = {"device"};
  registry.add("grad-norms", std::move(a));
}

}  // namespace fathom::analysis
