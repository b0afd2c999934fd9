// `fathom analyze rank-collapse RUN|CONFIG`: see rank_collapse.h. Per stack, on the first
// training batch with dropout off: the mean cosine between two distinct real tokens of a
// sequence (core/train/probe_observer.h token_cosine) at the stack's input (embeddings and
// positions) and after every sub-layer, and each attention's projection gradients. During
// training the probe `stream.token_cosine` records the cosines (docs/probes.md).
#include "analysis/rank_collapse.h"

#include <cstdio>
#include <limits>
#include <ostream>
#include <string>

#include "analysis/observed_backward.h"
#include "analysis/registry.h"
#include "analysis/stream_decomposition.h"
#include "base/util/json_number.h"
#include "core/train/attention_grads.h"
#include "core/train/probe_observer.h"

namespace fathom::analysis {
namespace {

struct TokenCosineRecorder : SublayerObserver {
  torch::Tensor tokens[2];  // per stack: [B, T, 1], 1 at real tokens
  TokenCosines stacks[2];

  void record(Stack stack, const std::string& position, const torch::Tensor& x) {
    TokenCosines& s = stacks[static_cast<int>(stack)];
    s.stack = stack == Stack::Encoder ? "encoder" : "decoder";
    s.positions.push_back(position);
    torch::NoGradGuard no_grad;
    const torch::Tensor& real = tokens[static_cast<int>(stack)];
    s.token_cosine.push_back(token_cosine(x.detach(), real).item<double>());
  }
  void on_sublayer(const SublayerId& id, const SublayerTrace& trace) override {
    // The stack's first report carries its input (a depth-wise LSTM's o_0 too, whose first
    // reported step is not sub-layer 0).
    if (stacks[static_cast<int>(id.stack)].positions.empty() && trace.input.defined())
      record(id.stack, std::string(stack_name(id.stack)) + ".input", trace.input);
    record(id.stack, id.name(), trace.output);
  }
};

}  // namespace

RankCollapse rank_collapse(TransformerImpl& model, const Batch& batch, double label_smoothing) {
  TokenCosineRecorder recorder;
  if (batch.src.defined() && batch.src.numel() > 0)
    recorder.tokens[0] = non_pad(batch.src).unsqueeze(-1).to(torch::kFloat);
  recorder.tokens[1] = non_pad(batch.tgt_in).unsqueeze(-1).to(torch::kFloat);
  RankCollapse out;
  observed_loss_backward(model, batch, label_smoothing, &recorder,
                         [&] { out.attention = attention_projection_grads(model.catalog()); });
  for (auto& stack : recorder.stacks)
    if (!stack.positions.empty()) out.stacks.push_back(std::move(stack));
  return out;
}

namespace {

nlohmann::json run_rank_collapse(std::vector<Subject>& subjects, const AnalysisParams& params) {
  Subject& s = subjects.at(0);
  move_subject_to(s, params.device);
  const RankCollapse r = rank_collapse(*s.model, s.batch, s.config.train.label_smoothing);
  nlohmann::json stacks = nlohmann::json::array(), attention = nlohmann::json::array();
  for (const auto& stack : r.stacks)
    stacks.push_back({{"stack", stack.stack},
                      {"positions", stack.positions},
                      {"token_cosine", stack.token_cosine}});
  for (const auto& a : r.attention)
    attention.push_back(
        {{"sublayer", a.sublayer}, {"grad_q", a.q}, {"grad_k", a.k}, {"grad_v", a.v}});
  return {{"stacks", stacks}, {"attention", attention}, {"sentences", s.batch.rows()}};
}

void print_rank_collapse(const nlohmann::json& result, std::ostream& out) {
  out << "mean cosine between two tokens of a sentence (1: every token the same direction, "
         "rank collapse), on the first training batch ("
      << result.at("sentences").get<long long>() << " sentences), dropout off\n";
  char line[160];
  for (const auto& stack : result.at("stacks")) {
    const auto& positions = stack.at("positions");
    const auto& cosines = stack.at("token_cosine");
    for (size_t i = 0; i < positions.size(); ++i) {
      std::snprintf(line, sizeof line, "  %-24s %9.4f\n", positions[i].get<std::string>().c_str(),
                    number_or_nan(cosines[i]));
      out << line;
    }
  }
  if (!result.contains("attention")) return;
  out << "gradient norms of each attention's W_Q, W_K, W_V (Q and K vanish once the tokens "
         "collapse)\n";
  std::snprintf(line, sizeof line, "  %-24s %11s %11s %11s %9s\n", "attention", "|dW_Q|", "|dW_K|",
                "|dW_V|", "Q / V");
  out << line;
  for (const auto& a : result.at("attention")) {
    const double q = number_or_nan(a.at("grad_q")), v = number_or_nan(a.at("grad_v"));
    std::snprintf(line, sizeof line, "  %-24s %11.4g %11.4g %11.4g %9.3g\n",
                  a.at("sublayer").get<std::string>().c_str(), q, number_or_nan(a.at("grad_k")), v,
                  v > 0 ? q / v : 0.0);
    out << line;
  }
}

}  // namespace

void register_rank_collapse(AnalysisRegistry& registry) {
  Analysis a;
  a.doc =
      "rank collapse: the mean cosine between a sentence's tokens at each stack's input and "
      "after every sub-layer, and each attention's W_Q, W_K, W_V gradient norms (Dong et al. "
      "2021, Noci et al. 2022; methods.md s5.10)";
  a.run = run_rank_collapse;
  a.print = print_rank_collapse;
  a.reads_decoder_only = true;
  a.options = {"device"};
  registry.add("rank-collapse", std::move(a));
}

}  // namespace fathom::analysis
