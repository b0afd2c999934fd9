#pragma once
// Every segment's BLEU statistics kept column by column, so that a bootstrap draw's corpus
// statistics are one streaming pass over the columns weighted by how many times the draw took
// each segment -- not a gather of scattered segments. Integer sums in any order are exact, so
// a draw scores exactly as summing its drawn segments one by one would (the same p-values).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/metrics/bleu.h"
#include "base/metrics/tokenized_segments.h"

namespace fathom {

class SegmentBleuStats {
 public:
  // `hyps[i]` against `refs[i]`; std::invalid_argument for lists of different lengths or an
  // empty reference (as corpus_bleu).
  SegmentBleuStats(const std::vector<std::string>& hyps, const std::vector<std::string>& refs);
  // The same against references tokenised once (tokenized_references) for several systems.
  SegmentBleuStats(const std::vector<std::string>& hyps, const TokenizedSegments& refs);

  size_t size() const { return columns_[0].size(); }
  // The whole corpus's statistics: corpus_bleu's.
  BleuStats whole() const;
  // The statistics of a draw that took segment i `times[i]` times (times.size() == size()).
  BleuStats drawn(const std::vector<uint32_t>& times) const;

 private:
  // matches n = 1..4, totals n = 1..4, hyp_len, ref_len: a sentence's counts fit 32 bits.
  static constexpr size_t kColumns = 10;
  std::array<std::vector<uint32_t>, kColumns> columns_;
};

// How many times a draw (base/metrics/paired_bootstrap.h draw_segments) took each of
// times.size() segments.
void count_draws(const std::vector<size_t>& drawn, std::vector<uint32_t>& times);

}  // namespace fathom
