#include "experiments/paired_test.h"

#include <algorithm>
#include <cstdio>

#include "db/metric_presentation.h"

namespace fathom::experiments {

std::string paired_metric_words(const PairedTestResult& result) {
  return result.metric == db::metric::kTestBleu ? "test BLEU" : "test perplexity";
}

std::string paired_score(const PairedTestResult& result, double value, bool sign) {
  const int digits = result.metric == db::metric::kTestBleu ? 2 : 3;
  char text[32];
  std::snprintf(text, sizeof text, sign ? "%+.*f" : "%.*f", digits, value);
  return text;
}

std::string paired_p(double p) {
  // A bootstrap's p is at least 1 / (draws + 1); a generalised t test's can be far below what
  // four decimals show, and "0.0000" would read as impossible.
  if (p < 0.0001) return "< 0.0001";
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", p);
  return text;
}

std::string p_in_words(double p) {
  const std::string text = paired_p(p);
  return text[0] == '<' ? "p " + text : "p = " + text;
}

BlockRange block_range(const std::vector<PairedBootstrap>& tests) {
  if (tests.empty()) return {};
  BlockRange range{tests.front().block_length, tests.front().block_length};
  for (const auto& t : tests) {
    range.shortest = std::min(range.shortest, t.block_length);
    range.longest = std::max(range.longest, t.block_length);
  }
  return range;
}

std::string resampled_segments(size_t segments, const std::string& segments_are,
                               BlockRange blocks) {
  std::string text = std::to_string(segments) + " " + segments_are;
  if (blocks.longest <= 1) return text;
  const std::string lengths =
      blocks.shortest == blocks.longest
          ? std::to_string(blocks.longest)
          : std::to_string(blocks.shortest) + "-" + std::to_string(blocks.longest);
  return text + " in circular blocks of " + lengths + " neighbours";
}

std::string resampling_citation(int samples, BlockRange blocks) {
  return std::to_string(samples) + " draws, Koehn 2004" +
         (blocks.longest > 1
              ? "; block length by Politis & White 2004, studentised as Goetze & Kuensch 1996"
              : "");
}

std::string paired_verdict(const PairedTestResult& result, double p, double alpha) {
  const double difference = result.test     ? result.test->difference
                            : result.pooled ? result.pooled->difference
                                            : 0;
  if (p >= alpha || difference == 0) return "inconclusive";
  const bool higher_is_better = db::metric::higher_is_better(result.metric).value_or(true);
  return (difference > 0) == higher_is_better ? "better" : "worse";
}

}  // namespace fathom::experiments
