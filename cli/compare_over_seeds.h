#pragma once
// `fathom compare`'s test of two configurations over their seeds and the test set at once
// (base/metrics/seed_pooled_test.h: seed_arms_bleu, seed_arms_perplexity): which runs are which
// configuration (`--baseline-runs K`, or `--over-seeds` by the runs' settings but the seed), the
// test of each score, and how the command prints it and puts it in its JSON.
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/metrics/seed_pooled_test.h"
#include "cli/paired_tests.h"
#include "cli/stored_hypotheses.h"
#include "db/records.h"

namespace fathom::cli {

struct OverSeeds {
  // Indices into the compared runs; paired by seed, position j of each is one seed's run.
  std::vector<size_t> baseline, system;
  bool paired_by_seed = false;
  std::string why_not;  // the runs are not two configurations, one with seeds
  std::optional<SeedArmsTest> bleu, perplexity;  // arm a the system, arm b the baseline
  std::string bleu_why_not, perplexity_why_not;
};

// The runs grouped by the settings that differ (`differing`: key -> each run's value), the name
// and every key whose last dotted part is "seed" left out, in order of first appearance.
std::vector<std::vector<size_t>> configurations_but_seed(
    const std::map<std::string, std::vector<std::string>>& differing, size_t runs);

// The test of `configurations`' first against its second on what the runs stored
// (`hypotheses`, `nll`, each in the runs' order), or why not. With `pair_seeds` the two are
// paired by each run's train.seed (seed_paired_test), every seed in both or why not.
OverSeeds over_seeds(const std::vector<db::RunRecord>& runs, const PairedInput& hypotheses,
                     const NllInput& nll, const std::vector<std::vector<size_t>>& configurations,
                     int samples, uint64_t seed, bool pair_seeds = false);

nlohmann::json over_seeds_json(const OverSeeds& o, const std::vector<db::RunRecord>& runs);
void print_over_seeds(std::ostream& out, const OverSeeds& o,
                      const std::vector<db::RunRecord>& runs);

}  // namespace fathom::cli
