#include "base/metrics/bleu_segments.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "base/metrics/py_text.h"

namespace fathom {
namespace {

constexpr size_t kOrders = 4;

uint32_t narrow_count(int64_t count) {
  if (count < 0 || count > std::numeric_limits<uint32_t>::max())
    throw std::invalid_argument("BLEU statistics: a segment of more than 2^32 tokens");
  return static_cast<uint32_t>(count);
}

// Unsigned 32 x 32 -> 64-bit products: the one widening multiply SSE2 vectorizes (pmuludq).
int64_t weighted_sum(const std::vector<uint32_t>& column, const std::vector<uint32_t>& times) {
  uint64_t sum = 0;
  for (size_t i = 0; i < column.size(); ++i)
    sum += static_cast<uint64_t>(column[i]) * static_cast<uint64_t>(times[i]);
  return static_cast<int64_t>(sum);
}

void check_sizes(size_t hyps, size_t refs) {
  if (hyps != refs)
    throw std::invalid_argument("BLEU statistics: " + std::to_string(hyps) + " hypotheses but " +
                                std::to_string(refs) + " references");
}

}  // namespace

SegmentBleuStats::SegmentBleuStats(const std::vector<std::string>& hyps,
                                   const std::vector<std::string>& refs)
    : SegmentBleuStats(hyps, (check_sizes(hyps.size(), refs.size()), tokenized_references(refs))) {}

SegmentBleuStats::SegmentBleuStats(const std::vector<std::string>& hyps,
                                   const TokenizedSegments& refs) {
  check_sizes(hyps.size(), refs.size());
  for (auto& column : columns_) column.reserve(hyps.size());
  for (size_t i = 0; i < hyps.size(); ++i) {
    const std::string tokenized = tokenize_13a(std::string(py_rstrip(hyps[i])));
    const std::vector<std::string_view> tokens = py_split(tokenized);
    const BleuStats s =
        tokens_bleu_stats(tokens.data(), tokens.size(), refs.tokens(i), refs.token_count(i));
    for (size_t n = 0; n < kOrders; ++n) {
      columns_[n].push_back(narrow_count(s.matches[n]));
      columns_[kOrders + n].push_back(narrow_count(s.totals[n]));
    }
    columns_[2 * kOrders].push_back(narrow_count(s.hyp_len));
    columns_[2 * kOrders + 1].push_back(narrow_count(s.ref_len));
  }
}

BleuStats SegmentBleuStats::whole() const { return drawn(std::vector<uint32_t>(size(), 1)); }

BleuStats SegmentBleuStats::drawn(const std::vector<uint32_t>& times) const {
  if (times.size() != size())
    throw std::invalid_argument("BLEU statistics: a draw of " + std::to_string(times.size()) +
                                " segments for " + std::to_string(size()));
  BleuStats out;
  for (size_t n = 0; n < kOrders; ++n) {
    out.matches[n] = weighted_sum(columns_[n], times);
    out.totals[n] = weighted_sum(columns_[kOrders + n], times);
  }
  out.hyp_len = weighted_sum(columns_[2 * kOrders], times);
  out.ref_len = weighted_sum(columns_[2 * kOrders + 1], times);
  return out;
}

void count_draws(const std::vector<size_t>& drawn, std::vector<uint32_t>& times) {
  std::fill(times.begin(), times.end(), 0u);
  for (size_t k : drawn) ++times[k];
}

}  // namespace fathom
