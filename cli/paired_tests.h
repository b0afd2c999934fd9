#pragma once
// Paired tests of two stored runs on their test set, from the files they kept: test BLEU on
// their hypotheses (cli/stored_hypotheses.h) or test perplexity on the NLL of every test
// segment (the `test_nll` artifact, test.nll; base/metrics/perplexity_bootstrap.h) -- what
// `fathom compare` and reports test runs with -- or why there is none.
#include <cstdint>
#include <string>
#include <vector>

#include "base/metrics/perplexity_bootstrap.h"
#include "db/records.h"
#include "db/run_paths.h"
#include "db/store.h"
#include "experiments/paired_test.h"

namespace fathom::cli {

struct NllInput {
  std::vector<std::vector<SegmentNll>> segments;  // in the order of the runs given
  std::string why_not;                            // empty when every run's file was read
};

// Every run must have been evaluated on the same data and have stored as many segments of
// `split` ("test" or "valid") as the first.
NllInput segment_nll_input(const db::Store& store, const db::StorePaths& paths,
                           const std::vector<db::RunRecord>& runs,
                           const std::string& split = "test");

// What a run's evaluation segments are, from its config: `order` serial for a language model's
// running text cut into blocks (data.lm_block > 0), whose neighbours share passages, independent
// for documents and sentences; `are` "sequences" for a language model, else "sentences".
struct EvaluationSegments {
  SegmentOrder order = SegmentOrder::independent;
  std::string are = "sentences";
};
EvaluationSegments evaluation_segments(const db::RunRecord& run);

// `system`'s test perplexity against `baseline`'s, paired bootstrap with `samples` draws from
// `seed`, or why there is none.
experiments::PairedTestResult paired_perplexity_test(const db::Store& store,
                                                     const db::StorePaths& paths,
                                                     const db::RunRecord& baseline,
                                                     const db::RunRecord& system,
                                                     int samples = 1000, uint64_t seed = 12345);

// The test a report makes of `system` against `baseline` (a fork against its parent): test
// BLEU for translation models, test perplexity for language models (data.task: lm, which
// translate nothing); `baseline`'s task decides, so one sweep's tests are one family.
experiments::PairedTestResult paired_test(const db::Store& store, const db::StorePaths& paths,
                                          const db::RunRecord& baseline,
                                          const db::RunRecord& system, int samples = 1000,
                                          uint64_t seed = 12345);

// paired_test as a report's tester of many runs against one baseline: a translation baseline's
// hypotheses, references and statistics read and counted once for all of them
// (cli/paired_bleu_against.h); the same results as paired_test's.
experiments::PairedTester paired_tester(const db::Store& store, const db::StorePaths& paths,
                                        int samples = 1000, uint64_t seed = 12345);

// `seeds` -- one configuration's runs, alike but for their seed -- against `baseline` over their
// seeds (base/metrics/seed_pooled_test.h): test perplexity for language models, else test BLEU
// with `samples` draws of sentences from `seed`; the result's `pooled`, or why there is none.
experiments::PairedTestResult seed_pooled_test(const db::Store& store, const db::StorePaths& paths,
                                               const db::RunRecord& baseline,
                                               const std::vector<db::RunRecord>& seeds,
                                               int samples = 1000, uint64_t seed = 12345);

}  // namespace fathom::cli
