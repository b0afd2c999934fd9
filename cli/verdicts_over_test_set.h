#pragma once
// `fathom export verdicts --paired-bootstrap`: each BLEU or perplexity verdict's tests over its
// evaluation set, from the hypotheses or segment NLL the runs stored. Two tests: the paired
// bootstrap pooled over the seeds both arms share (the seeds held fixed; Koehn 2004), and the
// test over every seed of both arms and the test set at once (base/metrics/seed_pooled_test.h),
// the one that speaks for the configurations. The latter's p is Holm-adjusted over the study's
// whole family, as Welch's is, so it can carry a verdict of its own.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/metrics/paired_bootstrap.h"
#include "base/metrics/seed_pooled_test.h"
#include "db/run_paths.h"
#include "db/store.h"
#include "experiments/verdicts.h"

namespace fathom::cli {

struct TestSetOptions {
  int samples = 1000;     // bootstrap draws
  uint64_t seed = 12345;  // the draws' seed
  // The test over seeds and sentences on the seeds both arms have, paired by seed
  // (seed_paired_test): chosen before the results are seen, where each seed gives both arms
  // the same initialisation and data order.
  bool pair_seeds = false;
};

// One verdict test's tests over its evaluation set.
struct TestSetVerdict {
  size_t test = 0;          // its index in VerdictFamily::tests
  bool perplexity = false;  // valid_ppl or test_ppl (else BLEU)
  size_t seeds_paired = 0;  // seeds both arms have
  std::optional<PairedBootstrap> pooled;
  std::string pooled_why_not;              // where `pooled` is absent
  size_t row_seeds = 0, versus_seeds = 0;  // with pair_seeds: the pairs, both
  std::optional<SeedArmsTest> over_seeds;  // row - versus
  std::string over_seeds_why_not;
  // over_seeds' p, Holm-adjusted over the family's m tests (a test without one counts p = 1).
  double over_seeds_holm = 1;
};

// The tests of every BLEU, valid_ppl and test_ppl test of `family`, in its order.
std::vector<TestSetVerdict> verdicts_over_test_set(const experiments::VerdictFamily& family,
                                                   const db::Store& store,
                                                   const db::StorePaths& paths,
                                                   const TestSetOptions& options);

// "decided: higher" / "decided: lower" where the adjusted p is below the family's alpha,
// otherwise "inconclusive" and about how many seeds per arm (pairs) would decide it at
// alpha / m, Holm's first step, with 80 % power (seeds_to_decide), or that no number would;
// "-" without a test over seeds.
std::string over_seeds_verdict(const TestSetVerdict& v, double alpha, size_t family_size);

// The Markdown sections after the verdicts' table ("" when there is no such test).
std::string test_set_verdicts_markdown(const experiments::VerdictFamily& family,
                                       const std::vector<TestSetVerdict>& verdicts,
                                       const TestSetOptions& options);

// The same as columns of `fathom export verdicts --format csv`, one row a family test (empty
// cells for a test of another metric).
experiments::VerdictCsvColumns test_set_verdicts_csv(const experiments::VerdictFamily& family,
                                                     const std::vector<TestSetVerdict>& verdicts);

}  // namespace fathom::cli
