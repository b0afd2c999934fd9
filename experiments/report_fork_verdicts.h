#pragma once
// A fork sweep's runs against their parent on test BLEU (a language model's: test perplexity),
// in the sweep's report: each run against the parent, paired bootstrap (Koehn 2004) of the
// test segments both stored (experiments/paired_test.h), the p-values adjusted over
// the sweep's tests (Holm 1979) -- a sweep of rescues is many chances of one false "better" --
// and a verdict only where the adjusted p is below 0.05, else "inconclusive". The run a
// choice on validation would take (the report's select_by) is marked: the rescue to report is
// chosen there, never by the test score tested here.
#include <ostream>
#include <string>
#include <vector>

#include "db/records.h"
#include "experiments/paired_test.h"

namespace fathom::experiments {

// The level the adjusted p-values are judged at.
constexpr double kForkVerdictAlpha = 0.05;

// "## Against the parent" for `runs`, forks of `parent`; where no run could be tested (no
// stored hypotheses or segment NLL), one sentence saying why. The run a choice on validation
// takes is marked, unless `by_configuration`: runs that differ only in their seed are one
// configuration, the choice is a configuration's (report_fork_seeds.h marks it), and marking
// the best of its seeds would be a choice on one seed's luck.
void fork_verdicts_section(std::ostream& out, const db::RunRecord& parent,
                           const std::vector<db::RunRecord>& runs, const PairedTester& test,
                           const std::string& select_by, bool by_configuration = false);

// One fork's test against its parent, for its own report: "Test BLEU against the parent, ...:
// 32.50 vs 30.00, difference +2.50 [0.31, 4.62], p = 0.012." or why there is none.
std::string fork_test_sentence(const PairedTestResult& result);

}  // namespace fathom::experiments
