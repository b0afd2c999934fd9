// `fathom analyze rank-collapse RUN|CONFIG`: how alike a sequence's tokens become with depth
// (methods.md s5.10). Rank collapse -- every token of a sequence mapped to one direction -- is
// what pure self-attention does doubly exponentially in depth (Dong et al. 2021, arXiv
// 2103.03404); at initialization it makes the gradients of the queries and keys vanish, and
// residual connections scaled with depth prevent it (Noci et al. 2022, arXiv 2206.03126).
// Per stack, on the first training batch with dropout off: the mean cosine between two distinct
// real tokens of a sequence (core/train/probe_observer.h token_cosine) of the stack's input
// (embeddings and positions) and of the stream after every sub-layer. During training the
// probe `stream.token_cosine` records the same after every sub-layer (docs/probes.md).
#include <cstdio>
#include <ostream>
#include <string>

#include "analysis/registry.h"
#include "analysis/stream_decomposition.h"
#include "core/model/observed_eval.h"
#include "core/train/probe_observer.h"

namespace fathom::analysis {
namespace {

struct TokenCosineRecorder : SublayerObserver {
  torch::Tensor tokens[2];   // per stack: [B, T, 1], 1 at real tokens
  nlohmann::json stacks[2];  // per stack: {"stack", "positions", "token_cosine"}

  void record(Stack stack, const std::string& position, const torch::Tensor& x) {
    nlohmann::json& s = stacks[static_cast<int>(stack)];
    if (s.is_null())
      s = {{"stack", stack == Stack::Encoder ? "encoder" : "decoder"},
           {"positions", nlohmann::json::array()},
           {"token_cosine", nlohmann::json::array()}};
    s["positions"].push_back(position);
    const torch::Tensor& real = tokens[static_cast<int>(stack)];
    s["token_cosine"].push_back(token_cosine(x.to(torch::kFloat), real).item<double>());
  }
  void on_sublayer(const SublayerId& id, const SublayerTrace& trace) override {
    // The stack's first report carries its input (a depth-wise LSTM's o_0 too, whose first
    // reported step is not sub-layer 0).
    if (stacks[static_cast<int>(id.stack)].is_null() && trace.input.defined())
      record(id.stack, std::string(stack_name(id.stack)) + ".input", trace.input);
    record(id.stack, id.name(), trace.output);
  }
};

nlohmann::json run_rank_collapse(std::vector<Subject>& subjects, const AnalysisParams& params) {
  Subject& s = subjects.at(0);
  move_subject_to(s, params.device);
  TokenCosineRecorder recorder;
  if (s.batch.src.defined() && s.batch.src.numel() > 0)
    recorder.tokens[0] = non_pad(s.batch.src).unsqueeze(-1).to(torch::kFloat);
  recorder.tokens[1] = non_pad(s.batch.tgt_in).unsqueeze(-1).to(torch::kFloat);
  {
    torch::NoGradGuard no_grad;
    ObservedEval observed(*s.model, &recorder);
    s.model->forward(s.batch.src, s.batch.tgt_in);
  }
  nlohmann::json stacks = nlohmann::json::array();
  for (const auto& stack : recorder.stacks)
    if (!stack.is_null()) stacks.push_back(stack);
  return {{"stacks", stacks}, {"sentences", s.batch.rows()}};
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
                    cosines[i].get<double>());
      out << line;
    }
  }
}

}  // namespace

void register_rank_collapse(AnalysisRegistry& registry) {
  Analysis a;
  a.doc =
      "rank collapse: the mean cosine between a sentence's tokens at each stack's input and "
      "after every sub-layer (Dong et al. 2021, Noci et al. 2022; methods.md s5.10)";
  a.run = run_rank_collapse;
  a.print = print_rank_collapse;
  a.reads_decoder_only = true;
  a.options = {"device"};
  registry.add("rank-collapse", std::move(a));
}

}  // namespace fathom::analysis
