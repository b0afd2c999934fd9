#pragma once
// The test hypotheses runs stored (their `hypotheses` artifact, test.hyp) and the references
// they translate, for the paired BLEU bootstrap of `fathom compare` and `fathom export
// verdicts --paired-bootstrap`; or why there is no paired test (other data, a file missing).
#include <cstdint>
#include <string>
#include <vector>

#include "db/records.h"
#include "db/run_paths.h"
#include "db/store.h"
#include "experiments/paired_test.h"

namespace fathom::cli {

struct PairedInput {
  std::vector<std::vector<std::string>> hypotheses;  // in the order of the runs given
  std::vector<std::string> references;
  std::string why_not;  // empty when every run's hypotheses were read
};

// "run 3 depth/pre/1".
std::string run_label(const db::RunRecord& r);

// The file `run` recorded as artifact `kind` (`what` names it in messages: "test hypotheses"),
// or "" with `why_not` said: none recorded, or the file not on this machine. `data`: the data
// section of the runs read before (empty for the first; set to this run's), which this run's
// must equal -- a paired test compares runs scored on the same segments. `if_missing`: why a
// run may have none, said in parentheses where it has none.
std::string stored_run_file(const db::Store& store, const db::StorePaths& paths,
                            const db::RunRecord& run, const std::string& kind,
                            const std::string& what, std::string& data, std::string& why_not,
                            const std::string& if_missing = "it did not finish, or scored none");

// One run's stored test hypotheses into `hypotheses`, its data section checked against and set
// in `data` (stored_run_file); "" or why not (a language model translates nothing).
std::string read_stored_hypotheses(const db::Store& store, const db::StorePaths& paths,
                                   const db::RunRecord& run, std::string& data,
                                   std::vector<std::string>& hypotheses);

// `first`'s data's test targets, the first `count` of them, into `references`; "" or why not
// (the test set holds fewer).
std::string read_references(const db::RunRecord& first, size_t count,
                            std::vector<std::string>& references);

// Every run must have been tested on the same data and have stored as many hypotheses as the
// first; the references are the first run's data's test targets, as many as the hypotheses.
PairedInput paired_input(const db::Store& store, const db::StorePaths& paths,
                         const std::vector<db::RunRecord>& runs);

// `system`'s test BLEU against `baseline`'s, paired bootstrap with `samples` draws from `seed`
// (sacreBLEU's defaults), or why there is none: what `fathom report` tests a fork against its
// parent with.
experiments::PairedTestResult paired_bleu_test(const db::Store& store, const db::StorePaths& paths,
                                               const db::RunRecord& baseline,
                                               const db::RunRecord& system, int samples = 1000,
                                               uint64_t seed = 12345);

}  // namespace fathom::cli
