// The column-wise segment statistics a BLEU bootstrap draw is scored from: a draw weighted by
// how often it took each segment sums to exactly what adding its drawn segments one by one
// gives, and the paired bootstrap built on it returns what the engine returns with a scorer
// that gathers the drawn segments (the earlier implementation, written out here).
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/metrics/bleu.h"
#include "base/metrics/bleu_bootstrap.h"
#include "base/metrics/bleu_segments.h"
#include "base/metrics/paired_bootstrap.h"

namespace test_bleu_segments {

// n sentences of 3-12 words from 40; a hypothesis keeps each reference word with probability
// `keep`.
std::vector<std::string> corpus(size_t n, std::mt19937_64& rng,
                                const std::vector<std::string>* of = nullptr, double keep = 1) {
  std::uniform_int_distribution<int> word(0, 39), length(3, 12);
  std::bernoulli_distribution kept(keep);
  std::vector<std::string> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int words = length(rng);
    for (int w = 0; w < words; ++w) {
      std::string token = "w" + std::to_string(word(rng));
      if (of && kept(rng)) token = "w" + std::to_string(i % 40);
      out[i] += (w ? " " : "") + token;
    }
    if (of) out[i] += " " + (*of)[i];  // shares some n-grams of every order
  }
  return out;
}

TEST(SegmentBleuStats, ADrawWeightedByItsCountsIsItsSegmentsSummed) {
  std::mt19937_64 rng(3);
  const auto refs = corpus(57, rng);
  const auto hyps = corpus(refs.size(), rng, &refs, 0.4);
  const fathom::SegmentBleuStats columns(hyps, refs);
  EXPECT_EQ(columns.whole(), fathom::corpus_bleu(hyps, refs).stats);
  std::vector<size_t> drawn(refs.size());
  std::vector<uint32_t> times(refs.size());
  for (int draw = 0; draw < 20; ++draw) {
    fathom::draw_segments(drawn, 1, rng);
    fathom::count_draws(drawn, times);
    fathom::BleuStats gathered;
    for (size_t k : drawn) gathered += fathom::sentence_bleu_stats(hyps[k], refs[k]);
    EXPECT_EQ(columns.drawn(times), gathered) << "draw " << draw;
  }
}

TEST(SegmentBleuStats, ThePairedBootstrapIsTheGatheringOnesToTheLastBit) {
  std::mt19937_64 rng(5);
  const auto refs = corpus(200, rng);
  const auto base = corpus(refs.size(), rng, &refs, 0.3);
  const auto sys = corpus(refs.size(), rng, &refs, 0.35);
  const auto stats_of = [&](const std::vector<std::string>& hyps) {
    std::vector<fathom::BleuStats> s;
    for (size_t i = 0; i < hyps.size(); ++i)
      s.push_back(fathom::sentence_bleu_stats(hyps[i], refs[i]));
    return s;
  };
  const auto base_stats = stats_of(base), sys_stats = stats_of(sys);
  const auto gather = [&](const std::vector<size_t>& drawn) {
    fathom::BleuStats b, s;
    for (size_t k : drawn) {
      b += base_stats[k];
      s += sys_stats[k];
    }
    return std::pair{fathom::bleu_from_stats(b).score, fathom::bleu_from_stats(s).score};
  };
  const std::pair whole{fathom::corpus_bleu(base, refs).score,
                        fathom::corpus_bleu(sys, refs).score};
  const auto expected = fathom::paired_bootstrap(refs.size(), whole, gather, 500, 12345);
  const auto got = fathom::paired_bootstrap_bleu(base, sys, refs, 500, 12345);
  EXPECT_EQ(got.p, expected.p);
  EXPECT_EQ(got.system.mean, expected.system.mean);
  EXPECT_EQ(got.baseline.ci, expected.baseline.ci);
  EXPECT_EQ(got.difference_low, expected.difference_low);
  EXPECT_EQ(got.difference_high, expected.difference_high);
}

TEST(SegmentBleuStats, RefusesWhatCorpusBleuRefuses) {
  EXPECT_THROW(fathom::SegmentBleuStats({"a b"}, {"a b", "c"}), std::invalid_argument);
  EXPECT_THROW(fathom::SegmentBleuStats({"a b", "c"}, {"a b", ""}), std::invalid_argument);
  const fathom::SegmentBleuStats columns({"a b"}, {"a b"});
  EXPECT_THROW(columns.drawn({1, 1}), std::invalid_argument);
}

}  // namespace test_bleu_segments
