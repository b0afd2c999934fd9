#pragma once
// The paired BLEU test of many runs against one baseline -- a fork sweep's parent, tested
// against each of its forks by `fathom report`: the baseline's hypotheses and the test set's
// references are read, and the baseline's sentence statistics counted against the tokenised
// references, once for every run tested against it. Each test is paired_bleu_test's: the same
// checks in the same order, the same refusals, the same draws.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/metrics/bleu_segments.h"
#include "db/records.h"
#include "db/run_paths.h"
#include "db/store.h"
#include "experiments/paired_test.h"

namespace fathom::cli {

class PairedBleuAgainst {
 public:
  PairedBleuAgainst(const db::Store& store, db::StorePaths paths, int samples = 1000,
                    uint64_t seed = 12345);

  experiments::PairedTestResult test(const db::RunRecord& baseline, const db::RunRecord& system);

 private:
  // What paired_input reads of the first run, kept for the runs after it.
  struct Baseline {
    int64_t id = 0;
    std::string data;  // its data section: every system's must equal it
    std::vector<std::string> hypotheses, references;
    std::string why_not, references_why_not;  // its own refusal; the references' (said last)
    // Read where a first system passed its checks, as paired_input reads them after the runs.
    bool references_read = false;
    std::unique_ptr<TokenizedSegments> tokenized;
    std::unique_ptr<SegmentBleuStats> stats;
  };
  Baseline& baseline_of(const db::RunRecord& baseline);
  // The references, tokenised, and the baseline's statistics, on first need; false and
  // b.references_why_not where the test set is too short.
  bool load_references(const db::RunRecord& baseline, Baseline& b);

  const db::Store& store_;
  db::StorePaths paths_;
  int samples_;
  uint64_t seed_;
  std::optional<Baseline> baseline_;
};

}  // namespace fathom::cli
