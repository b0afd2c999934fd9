#pragma once
// One paired test of two runs on their test set as a report asks for it: test BLEU on the
// translations both stored (base/metrics/bleu_bootstrap.h), or test perplexity on the NLL of
// every test segment both stored (base/metrics/perplexity_bootstrap.h) where there are no
// translations (a language model). The CLI reads the runs' stored files (cli/paired_tests.h)
// and hands reports the function: reports stay free of data files.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/metrics/paired_bootstrap.h"
#include "base/metrics/seed_pooled_test.h"
#include "db/metric_names.h"
#include "db/records.h"

namespace fathom::experiments {

struct PairedTestResult {
  std::optional<PairedBootstrap> test;  // unset: no paired test, and `why_not` says why
  // A SeedPooledTester's result, in place of `test`: several seeds' runs against the baseline.
  std::optional<SeedPooledTest> pooled;
  size_t segments = 0;  // the test set's
  std::string why_not;
  // What was tested: test_bleu or test_ppl (db/metric_names.h), its direction from
  // db/metric_presentation.h; a segment a sentence, or a "sequence" of a language model's text.
  std::string metric = db::metric::kTestBleu;
  std::string segments_are = "sentences";
};

// "test BLEU" or "test perplexity": the metric in a sentence.
std::string paired_metric_words(const PairedTestResult& result);
// BLEU with two decimals, perplexity with three: a score or difference as reports write it.
std::string paired_score(const PairedTestResult& result, double value, bool sign = false);
// A p-value as reports write it: four decimals, "< 0.0001" below them.
std::string paired_p(double p);
// The same in a sentence: "p = 0.0123", "p < 0.0001".
std::string p_in_words(double p);

// `system` against `baseline` on the test set both were scored on.
using PairedTester =
    std::function<PairedTestResult(const db::RunRecord& baseline, const db::RunRecord& system)>;

// Several runs of one configuration, alike but for their seed, against `baseline` on the test
// set all were scored on (base/metrics/seed_pooled_test.h): the result's `pooled`, or why not.
using SeedPooledTester = std::function<PairedTestResult(const db::RunRecord& baseline,
                                                        const std::vector<db::RunRecord>& seeds)>;

// The shortest and longest block the draws of a section's tests took (1: segments drawn singly).
struct BlockRange {
  size_t shortest = 1, longest = 1;
};
BlockRange block_range(const std::vector<PairedBootstrap>& tests);

// What the draws resampled: "40 sentences", or for segments drawn in circular blocks
// (SegmentOrder::serial) "300 sequences in circular blocks of 12 neighbours", "of 9-14
// neighbours" where tests of one section chose different lengths.
std::string resampled_segments(size_t segments, const std::string& segments_are,
                               BlockRange blocks = {});
// What the parenthesis after it cites: "1000 draws, Koehn 2004", and for blocks "; block length
// by Politis & White 2004, studentised as Goetze & Kuensch 1996" (paired_bootstrap.h).
std::string resampling_citation(int samples, BlockRange blocks = {});

// "better" or "worse" by the metric's direction where `p` (adjusted or not) is below `alpha`,
// else "inconclusive"; of `test`, else of `pooled`.
std::string paired_verdict(const PairedTestResult& result, double p, double alpha);

}  // namespace fathom::experiments
