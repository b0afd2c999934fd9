#pragma once
// Where a model looks while it translates one sentence: every attention sub-layer's probabilities
// [head][query][key], read by an observer (core/model/observer.h) during one teacher-forced
// forward pass over (source, target) -- the target its search produced, or one given. For
// inspection: an alignment that follows the words, attention collapsed onto one key, a stalled
// decoder attending uniformly (`fathom attention`, the desktop app's attention view).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/decode/search.h"
#include "core/model/sublayer_id.h"

namespace fathom {

class TransformerImpl;
class Vocab;

struct AttentionMap {
  SublayerId sublayer;  // which attention: its name() is e.g. "dec.2.enc_attn"
  // probs[h][q][k]: head h's softmax for query q over key k (rows sum to 1; masked keys 0).
  std::vector<std::vector<std::vector<float>>> probs;
};

struct SentenceAttention {
  // The tokens, as the vocabulary's pieces. Encoder queries and keys: the source, then eos.
  // Decoder queries: the target, then eos (each row predicts its token). Decoder keys (self
  // attention): bos, then the target.
  std::vector<std::string> source_tokens, target_tokens, target_in_tokens;
  std::string translation;         // the target's text (a language model's: the source)
  std::vector<AttentionMap> maps;  // forward order: the encoder's, then the decoder's
};

// `source` through `model` (in eval mode for the call): with no `target`, the search's output is
// the target. A language model (decoder_only) reads `source` as its decoder's input after bos:
// no source tokens, only the decoder's self-attention, `translation` the text itself.
// std::invalid_argument for an empty source, or a target given to a language model.
SentenceAttention attention_maps(TransformerImpl& model, const Vocab& vocab,
                                 const std::string& source,
                                 const std::optional<std::string>& target,
                                 const SearchOptions& search);

// The names of the queries' and keys' tokens of `map` (source, target or target_in tokens).
const std::vector<std::string>& query_tokens(const SentenceAttention& s, const AttentionMap& map);
const std::vector<std::string>& key_tokens(const SentenceAttention& s, const AttentionMap& map);

}  // namespace fathom
