// BLEU's clipped n-gram matches counted from sorted integer keys (base/metrics/ngram_matches.h)
// against the definition counted the plain way here: each order's n-grams as strings in a map,
// the hypothesis's counts clipped by the reference's (Papineni et al. 2002) -- on random pairs
// with many repeats, on empty and short segments, and on a pair of more distinct tokens than
// 16-bit ids hold; and references tokenised once (base/metrics/tokenized_segments.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "base/metrics/bleu.h"
#include "base/metrics/ngram_matches.h"
#include "base/metrics/py_text.h"
#include "base/metrics/tokenized_segments.h"

namespace test_ngram_matches {

fathom::NgramMatches by_the_definition(const std::vector<std::string_view>& hyp,
                                       const std::vector<std::string_view>& ref) {
  fathom::NgramMatches out;
  for (size_t n = 1; n <= 4; ++n) {
    std::map<std::vector<std::string_view>, int64_t> in_hyp, in_ref;
    for (size_t i = 0; i + n <= hyp.size(); ++i) ++in_hyp[{hyp.begin() + i, hyp.begin() + i + n}];
    for (size_t i = 0; i + n <= ref.size(); ++i) ++in_ref[{ref.begin() + i, ref.begin() + i + n}];
    for (const auto& [gram, count] : in_hyp) {
      out.totals[n - 1] += count;
      if (auto it = in_ref.find(gram); it != in_ref.end())
        out.matches[n - 1] += std::min(count, it->second);
    }
  }
  return out;
}

std::vector<std::string_view> views(const std::vector<std::string>& words) {
  return {words.begin(), words.end()};
}

void expect_same(const std::vector<std::string>& hyp, const std::vector<std::string>& ref) {
  const auto got = fathom::ngram_matches(views(hyp), views(ref));
  const auto want = by_the_definition(views(hyp), views(ref));
  EXPECT_EQ(got.matches, want.matches);
  EXPECT_EQ(got.totals, want.totals);
}

TEST(NgramMatches, AreTheDefinitionsOnRandomPairsWithRepeats) {
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> length(0, 30);
  for (int vocabulary : {2, 5, 50}) {
    std::uniform_int_distribution<int> word(0, vocabulary - 1);
    for (int trial = 0; trial < 300; ++trial) {
      std::vector<std::string> hyp(static_cast<size_t>(length(rng))),
          ref(static_cast<size_t>(length(rng)));
      for (auto& w : hyp) w = "w" + std::to_string(word(rng));
      for (auto& w : ref) w = "w" + std::to_string(word(rng));
      expect_same(hyp, ref);
    }
  }
}

TEST(NgramMatches, ClipByTheReferencesCountByHand) {
  // "the the the the" against "the cat the": unigrams clipped at 2 of 4; "the the" not there.
  const auto m = fathom::ngram_matches({"the", "the", "the", "the"}, {"the", "cat", "the"});
  EXPECT_EQ(m.matches, (std::array<int64_t, 4>{2, 0, 0, 0}));
  EXPECT_EQ(m.totals, (std::array<int64_t, 4>{4, 3, 2, 1}));
  // Short and empty segments: no n-gram longer than the hypothesis, nothing to match.
  const auto short_one = fathom::ngram_matches({"a", "b"}, {"a", "b", "c"});
  EXPECT_EQ(short_one.matches, (std::array<int64_t, 4>{2, 1, 0, 0}));
  EXPECT_EQ(short_one.totals, (std::array<int64_t, 4>{2, 1, 0, 0}));
  EXPECT_EQ(fathom::ngram_matches({}, {"a"}).totals, (std::array<int64_t, 4>{}));
  EXPECT_EQ(fathom::ngram_matches({"a", "b"}, {}).matches, (std::array<int64_t, 4>{}));
}

// Past 2^16 distinct tokens (75,000 here) the ids no longer fit 16 bits: the wider keys count the
// same.
TEST(NgramMatches, ArePastSixteenBitIds) {
  std::vector<std::string> hyp, ref;
  for (int i = 0; i < 50000; ++i) hyp.push_back("h" + std::to_string(i));
  for (int i = 0; i < 50000; ++i) ref.push_back(i % 2 ? "r" + std::to_string(i) : hyp[i]);
  // Runs that both share: positions 100..109 of each are the same ten tokens.
  for (int i = 100; i < 110; ++i) ref[i] = hyp[i];
  expect_same(hyp, ref);
  const auto m = fathom::ngram_matches(views(hyp), views(ref));
  EXPECT_EQ(m.matches[0], 25000 + 5);  // every even position, and the five odd ones in 100..109
  // The shared run is 100..110 (110 is even, so shared too): its eight 4-grams.
  EXPECT_EQ(m.matches[3], 8);
}

// References tokenised once are the tokens sentence_bleu_stats reads, wherever the object
// moves (its tokens point into its own buffer), and score as sentence_bleu_stats does.
TEST(TokenizedSegments, AreSentenceBleusTokensAfterAMove) {
  const std::vector<std::string> refs{"The cat, the hat.", "a", "x-ray 3-4 \"quoted\"  ",
                                      "&quot;it&quot; costs $5.00, or 5,000 yen."};
  fathom::TokenizedSegments first = fathom::tokenized_references(refs);
  const fathom::TokenizedSegments moved = std::move(first);
  ASSERT_EQ(moved.size(), refs.size());
  for (size_t i = 0; i < refs.size(); ++i) {
    const std::string by_hand = fathom::tokenize_13a(std::string(fathom::py_rstrip(refs[i])));
    const auto want = fathom::py_split(by_hand);
    ASSERT_EQ(moved.token_count(i), want.size()) << refs[i];
    for (size_t t = 0; t < want.size(); ++t) EXPECT_EQ(moved.tokens(i)[t], want[t]) << refs[i];
    const std::string hyp = "the cat , a hat . 5,000";
    const std::string hyp_text = fathom::tokenize_13a(hyp);
    const auto hyp_tokens = fathom::py_split(hyp_text);
    EXPECT_EQ(fathom::tokens_bleu_stats(hyp_tokens.data(), hyp_tokens.size(), moved.tokens(i),
                                        moved.token_count(i)),
              fathom::sentence_bleu_stats(hyp, refs[i]));
  }
  try {
    fathom::tokenized_references({"a", ""});
    FAIL() << "an empty reference was tokenised";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("reference 2 is empty"), std::string::npos) << e.what();
  }
}

}  // namespace test_ngram_matches
