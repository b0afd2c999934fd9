#include "core/decode/attention_maps.h"

#include <stdexcept>

#include "core/data/vocab.h"
#include "core/model/observed_eval.h"
#include "core/model/transformer.h"

namespace fathom {
namespace {

// Keeps each attention sub-layer's probabilities of the one sentence (batch row 0).
class AttentionRecorder : public SublayerObserver {
 public:
  void on_attention(const SublayerId& id, const AttentionTrace& trace) override {
    const torch::Tensor p = trace.probs[0].to(torch::kFloat).contiguous();  // [H, T, S]
    AttentionMap map{id, {}};
    const auto a = p.accessor<float, 3>();
    map.probs.resize(static_cast<size_t>(p.size(0)));
    for (int64_t h = 0; h < p.size(0); ++h) {
      auto& rows = map.probs[static_cast<size_t>(h)];
      rows.resize(static_cast<size_t>(p.size(1)));
      for (int64_t q = 0; q < p.size(1); ++q)
        for (int64_t k = 0; k < p.size(2); ++k) rows[static_cast<size_t>(q)].push_back(a[h][q][k]);
    }
    maps.push_back(std::move(map));
  }
  std::vector<AttentionMap> maps;
};

torch::Tensor row_of(const std::vector<int64_t>& ids) {
  return torch::tensor(ids, torch::kLong).unsqueeze(0);
}

std::vector<std::string> pieces(const Vocab& vocab, const std::vector<int64_t>& ids) {
  std::vector<std::string> out;
  out.reserve(ids.size());
  for (int64_t id : ids) out.push_back(vocab.piece(id));
  return out;
}

}  // namespace

SentenceAttention attention_maps(TransformerImpl& model, const Vocab& vocab,
                                 const std::string& source,
                                 const std::optional<std::string>& target,
                                 const SearchOptions& search) {
  const bool language_model = is_decoder_only(model.config());
  if (language_model && target)
    throw std::invalid_argument("a language model reads one text: give it as the source alone");
  std::vector<int64_t> source_ids = vocab.encode(source);
  if (source_ids.empty()) throw std::invalid_argument("the source sentence is empty");
  source_ids.push_back(kEosId);
  const torch::NoGradGuard no_grad;
  const torch::Tensor source_row = row_of(source_ids).to(model.parameters().front().device());
  // A language model's text is its decoder's input, as its samples' prompts are
  // (core/decode/lm_continue.h): bos, then the text.
  std::vector<int64_t> target_ids = language_model ? vocab.encode(source)
                                    : target       ? vocab.encode(*target)
                                             : fathom::search(model, source_row, search).front();

  SentenceAttention out;
  out.translation = language_model ? source : target ? *target : vocab.decode(target_ids);
  if (!language_model) out.source_tokens = pieces(vocab, source_ids);
  std::vector<int64_t> target_in = {kBosId}, target_out = target_ids;
  target_in.insert(target_in.end(), target_ids.begin(), target_ids.end());
  target_out.push_back(kEosId);
  out.target_in_tokens = pieces(vocab, target_in);
  out.target_tokens = pieces(vocab, target_out);

  AttentionRecorder recorder;
  {
    ObservedEval observed(model, &recorder);
    model.forward(source_row, row_of(target_in).to(source_row.device()));
  }
  out.maps = std::move(recorder.maps);
  return out;
}

const std::vector<std::string>& query_tokens(const SentenceAttention& s, const AttentionMap& map) {
  return map.sublayer.stack == Stack::Encoder ? s.source_tokens : s.target_tokens;
}

const std::vector<std::string>& key_tokens(const SentenceAttention& s, const AttentionMap& map) {
  if (map.sublayer.stack == Stack::Encoder || map.sublayer.kind == SublayerKind::EncoderAttention)
    return s.source_tokens;
  return s.target_in_tokens;
}

}  // namespace fathom
