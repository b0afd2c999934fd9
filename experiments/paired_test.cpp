#include "experiments/paired_test.h"

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

std::string resampled_segments(size_t segments, const std::string& segments_are,
                               size_t shortest_block, size_t longest_block) {
  std::string text = std::to_string(segments) + " " + segments_are;
  if (longest_block <= 1) return text;
  const std::string lengths =
      shortest_block == longest_block
          ? std::to_string(longest_block)
          : std::to_string(shortest_block) + "-" + std::to_string(longest_block);
  return text + " in circular blocks of " + lengths + " neighbours";
}

std::string resampling_citation(int samples, size_t longest_block) {
  return std::to_string(samples) + " draws, Koehn 2004" +
         (longest_block > 1 ? "; block length by Politis & White 2004" : "");
}

std::string paired_verdict(const PairedTestResult& result, double p, double alpha) {
  if (!result.test || p >= alpha || result.test->difference == 0) return "inconclusive";
  const bool higher_is_better = db::metric::higher_is_better(result.metric).value_or(true);
  return (result.test->difference > 0) == higher_is_better ? "better" : "worse";
}

}  // namespace fathom::experiments
