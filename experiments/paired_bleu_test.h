#pragma once
// One paired test of two runs' test BLEU (base/metrics/bleu_bootstrap.h: Koehn 2004) as a
// report asks for it. The CLI reads the runs' stored hypotheses and their references
// (cli/stored_hypotheses.h) and hands reports the function: reports stay free of data files.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "base/metrics/bleu_bootstrap.h"
#include "db/records.h"

namespace fathom::experiments {

struct PairedBleuResult {
  std::optional<PairedBootstrap> test;  // unset: no paired test, and `why_not` says why
  size_t sentences = 0;                 // the test set's
  std::string why_not;
};

// `system` against `baseline` on the test set both translated.
using PairedBleuTester =
    std::function<PairedBleuResult(const db::RunRecord& baseline, const db::RunRecord& system)>;

}  // namespace fathom::experiments
