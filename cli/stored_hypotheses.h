#pragma once
// The test hypotheses runs stored (their `hypotheses` artifact, test.hyp) and the references
// they translate, for the paired BLEU bootstrap of `fathom compare` and `fathom export
// verdicts --paired-bootstrap`; or why there is no paired test (other data, a file missing).
#include <string>
#include <vector>

#include "db/records.h"
#include "db/run_paths.h"
#include "db/store.h"

namespace fathom::cli {

struct PairedInput {
  std::vector<std::vector<std::string>> hypotheses;  // in the order of the runs given
  std::vector<std::string> references;
  std::string why_not;  // empty when every run's hypotheses were read
};

// "run 3 depth/pre/1".
std::string run_label(const db::RunRecord& r);

// Every run must have been tested on the same data and have stored as many hypotheses as the
// first; the references are the first run's data's test targets, as many as the hypotheses.
PairedInput paired_input(const db::Store& store, const db::StorePaths& paths,
                         const std::vector<db::RunRecord>& runs);

}  // namespace fathom::cli
