#pragma once
// A fork sweep's configurations against their parent over their seeds, in the sweep's report:
// the runs alike in every axis but the seed are one configuration, and the question a paper
// asks -- does this rescue work, not did this seed of it -- is tested with the seeds' spread
// and the test set's error both counted (base/metrics/seed_pooled_test.h). The p-values are
// adjusted over the configurations (Holm 1979), a family of their own beside the runs' table
// ("Against the parent"), and the configuration a choice on validation takes (the best mean
// `select_by` over its seeds) is marked: it is chosen there, never by these test verdicts.
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "db/records.h"
#include "experiments/paired_test.h"

namespace fathom::experiments {

// A configuration: its label ("train.lr=0.001, train.warmup=50", the axes but the seed) and its
// runs, indices into the runs given, in their order.
struct SeedGroup {
  std::string label;
  std::vector<size_t> runs;
};
// The runs grouped by every axis (`axes[i]`, the run's axis tags without "axis.") whose last
// dotted part is not "seed", in order of first appearance.
std::vector<SeedGroup> seed_groups(const std::vector<std::map<std::string, std::string>>& axes);

// Whether some configuration of the runs (their `axes`) has two runs or more: the section
// below then speaks for it, and the choice on validation is a configuration's.
bool has_seed_group(const std::vector<std::map<std::string, std::string>>& axes);

// "### The configurations over their seeds" where some configuration of `runs` (forks of
// `parent`) has two runs or more; nothing otherwise, or without `test`.
void fork_seed_verdicts_section(std::ostream& out, const db::RunRecord& parent,
                                const std::vector<db::RunRecord>& runs,
                                const std::vector<std::map<std::string, std::string>>& axes,
                                const SeedPooledTester& test, const std::string& select_by);

}  // namespace fathom::experiments
