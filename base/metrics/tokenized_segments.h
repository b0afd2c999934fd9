#pragma once
// Segments as BLEU reads them -- rstrip()ped, 13a-tokenised, split on whitespace, as
// sentence_bleu_stats does -- tokenised once and kept: a test set's references scored against
// every system of a paired bootstrap or a test over seeds are not tokenised again for each
// (bench_seed_pooled_cost: tokenising was a third of building a system's statistics).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/metrics/bleu.h"

namespace fathom {

class TokenizedSegments {
 public:
  explicit TokenizedSegments(const std::vector<std::string>& segments);
  // The tokens point into this object's own buffer: a copy would point into another's.
  TokenizedSegments(const TokenizedSegments&) = delete;
  TokenizedSegments& operator=(const TokenizedSegments&) = delete;
  TokenizedSegments(TokenizedSegments&&) = default;  // a vector's move keeps its elements' places

  size_t size() const { return first_.size() - 1; }
  const std::string_view* tokens(size_t i) const { return tokens_.data() + first_[i]; }
  size_t token_count(size_t i) const { return first_[i + 1] - first_[i]; }

 private:
  std::vector<char> text_;  // every segment's tokenised text, one after another
  std::vector<std::string_view> tokens_;
  std::vector<size_t> first_;  // segment i's tokens are tokens_[first_[i] .. first_[i + 1])
};

// `references` tokenised; std::invalid_argument naming the first empty one (as corpus_bleu:
// sacreBLEU refuses empty references).
TokenizedSegments tokenized_references(const std::vector<std::string>& references);

// One segment's statistics from its tokens: sentence_bleu_stats's, tokenised already.
BleuStats tokens_bleu_stats(const std::string_view* hyp, size_t hyp_size,
                            const std::string_view* ref, size_t ref_size);

}  // namespace fathom
