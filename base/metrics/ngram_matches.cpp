#include "base/metrics/ngram_matches.h"

#include <algorithm>
#include <functional>
#include <utility>

namespace fathom {
namespace {

constexpr size_t kNgramOrders = 4;

// Each token's id among the pair's distinct tokens, from 1, by an open-addressing table of the
// tokens seen (a sort of the tokens compared their text ~n log n times); returns how many
// distinct tokens there are.
uint32_t token_ids(const std::string_view* hyp, size_t hyp_size, const std::string_view* ref,
                   size_t ref_size, std::vector<uint32_t>& ids) {
  const size_t tokens = hyp_size + ref_size;
  size_t slots = 16;
  while (slots < 2 * tokens) slots *= 2;
  thread_local std::vector<std::pair<std::string_view, uint32_t>> table;
  table.assign(slots, {std::string_view(), 0});
  ids.resize(tokens);
  uint32_t distinct = 0;
  const std::hash<std::string_view> hash;
  for (size_t k = 0; k < tokens; ++k) {
    const std::string_view token = k < hyp_size ? hyp[k] : ref[k - hyp_size];
    size_t slot = hash(token) & (slots - 1);
    while (table[slot].second != 0 && table[slot].first != token) slot = (slot + 1) & (slots - 1);
    if (table[slot].second == 0) table[slot] = {token, ++distinct};
    ids[k] = table[slot].second;
  }
  return distinct;
}

// Sum over the n-grams both sorted lists hold of the smaller of their two counts.
template <typename Key>
int64_t clipped_matches(const std::vector<Key>& hyp, const std::vector<Key>& ref) {
  int64_t matches = 0;
  size_t i = 0, j = 0;
  while (i < hyp.size() && j < ref.size()) {
    if (hyp[i] < ref[j]) {
      ++i;
    } else if (ref[j] < hyp[i]) {
      ++j;
    } else {
      const Key key = hyp[i];
      int64_t in_hyp = 0, in_ref = 0;
      for (; i < hyp.size() && hyp[i] == key; ++i) ++in_hyp;
      for (; j < ref.size() && ref[j] == key; ++j) ++in_ref;
      matches += std::min(in_hyp, in_ref);
    }
  }
  return matches;
}

// The n-grams of order n as keys: the order n - 1 key at i shifted, and the n-th token's id.
template <typename Key>
void extend_keys(std::vector<Key>& keys, const uint32_t* ids, size_t tokens, size_t n, int bits) {
  const size_t count = tokens >= n ? tokens - n + 1 : 0;
  for (size_t i = 0; i < count; ++i) keys[i] = (keys[i] << bits) | Key(ids[i + n - 1]);
  keys.resize(count);
}

// Keys hold kNgramOrders ids of `bits` bits each: 16 bits in 64 while the pair has fewer than 2^16
// distinct tokens, 32 in 128 beyond (a pathological sentence; still exact).
template <typename Key>
void count_matches(const std::vector<uint32_t>& ids, size_t hyp_tokens, size_t ref_tokens, int bits,
                   NgramMatches& out) {
  thread_local std::vector<Key> hyp, ref;  // a sentence's, reused: no allocation a sentence
  hyp.assign(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(hyp_tokens));
  ref.assign(ids.begin() + static_cast<std::ptrdiff_t>(hyp_tokens), ids.end());
  thread_local std::vector<Key> hyp_sorted, ref_sorted;
  for (size_t n = 1; n <= kNgramOrders; ++n) {
    if (n > 1) {
      extend_keys(hyp, ids.data(), hyp_tokens, n, bits);
      extend_keys(ref, ids.data() + hyp_tokens, ref_tokens, n, bits);
    }
    if (hyp.empty()) break;
    hyp_sorted = hyp;
    ref_sorted = ref;
    std::sort(hyp_sorted.begin(), hyp_sorted.end());
    std::sort(ref_sorted.begin(), ref_sorted.end());
    out.matches[n - 1] = clipped_matches(hyp_sorted, ref_sorted);
  }
}

}  // namespace

NgramMatches ngram_matches(const std::string_view* hyp, size_t hyp_size,
                           const std::string_view* ref, size_t ref_size) {
  NgramMatches out;
  for (size_t n = 1; n <= kNgramOrders; ++n)
    out.totals[n - 1] = hyp_size >= n ? static_cast<int64_t>(hyp_size - n + 1) : 0;
  if (hyp_size == 0 || ref_size == 0) return out;
  thread_local std::vector<uint32_t> ids;
  const uint32_t distinct = token_ids(hyp, hyp_size, ref, ref_size, ids);
  if (distinct < (1u << 16))
    count_matches<uint64_t>(ids, hyp_size, ref_size, 16, out);
  else
    count_matches<unsigned __int128>(ids, hyp_size, ref_size, 32, out);
  return out;
}

}  // namespace fathom
