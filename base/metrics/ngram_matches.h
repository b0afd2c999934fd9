#pragma once
// BLEU's n-gram counts of one segment (Papineni et al. 2002): for n = 1..4 the hypothesis's
// n-grams and how many of them the reference has, each clipped by the reference's count. Counted
// without maps of n-gram strings: each distinct token of the pair gets a small id (a table of the
// pair's tokens), an n-gram becomes one integer of its ids, and each order's integers, sorted,
// are merged -- exact (integers are equal exactly when the n-grams' tokens are), and about 3x
// faster than the four hash maps of strings a segment that were most of the paired bootstrap's
// time (bench_seed_pooled_cost).
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace fathom {

struct NgramMatches {
  std::array<int64_t, 4> matches{};  // clipped matches, n = 1..4
  std::array<int64_t, 4> totals{};   // the hypothesis's n-grams, n = 1..4
};

// hyp[0 .. hyp_size) against ref[0 .. ref_size): each a segment's tokens.
NgramMatches ngram_matches(const std::string_view* hyp, size_t hyp_size,
                           const std::string_view* ref, size_t ref_size);
inline NgramMatches ngram_matches(const std::vector<std::string_view>& hyp,
                                  const std::vector<std::string_view>& ref) {
  return ngram_matches(hyp.data(), hyp.size(), ref.data(), ref.size());
}

}  // namespace fathom
