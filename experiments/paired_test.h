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

#include "base/metrics/paired_bootstrap.h"
#include "db/records.h"

namespace fathom::experiments {

struct PairedTestResult {
  std::optional<PairedBootstrap> test;  // unset: no paired test, and `why_not` says why
  size_t segments = 0;                  // the test set's
  std::string why_not;
  // What was tested: "test BLEU" (higher is better, two decimals, "sentences") or "test
  // perplexity" (lower is better, three decimals, "sequences" of a language model's text or
  // "sentences" of a translation's targets).
  std::string metric = "test BLEU";
  bool higher_is_better = true;
  int digits = 2;
  std::string segments_are = "sentences";
};

// `system` against `baseline` on the test set both were scored on.
using PairedTester =
    std::function<PairedTestResult(const db::RunRecord& baseline, const db::RunRecord& system)>;

// "better" or "worse" by the metric's direction where `p` (adjusted or not) is below `alpha`,
// else "inconclusive".
std::string paired_verdict(const PairedTestResult& result, double p, double alpha);

}  // namespace fathom::experiments
