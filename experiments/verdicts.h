#pragma once
// One multiplicity policy per study: every test a study's verdicts draw on -- each metric, each
// reference row (--versus), each column, each other row -- gathered into ONE Holm family
// (Holm 1979), so a verdict's p is adjusted for every try the study made, not for one table's.
// A pair tested twice (A against B under --versus B, B against A under --versus A) is one
// test. For each test that stays inconclusive, the seeds per arm that would decide it: a
// two-sided Welch test at the family's alpha / m with 80 % power at the observed difference and
// spreads (base/metrics/power.h).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "db/store.h"
#include "experiments/comparison_table.h"

namespace fathom::experiments {

struct VerdictOptions {
  TableOptions table;                // rows, cols, agg, select_by, value, ...; metric and versus
  std::vector<std::string> metrics;  // each tested (e.g. valid_ppl, test_bleu)
  std::vector<std::string> versus;   // reference rows
  double alpha = 0.05;               // family-wise
  double power = 0.8;                // for the seeds needed
};

struct VerdictTest {
  std::string metric, column, row, versus;
  double mean_row = 0, mean_versus = 0;  // row - versus is the difference
  int n_row = 0, n_versus = 0;           // seeds behind each mean
  double p_raw = 1, p_holm = 1;
  bool decided = false;  // p_holm < alpha
  // (row - versus) / sqrt((s_row^2 + s_versus^2) / 2): the difference in pooled standard
  // deviations (Cohen's d); nullopt when neither arm varies.
  std::optional<double> effect;
  // Welch's degrees of freedom per seed of an arm at these spreads (base/metrics/power.h).
  double df_per_seed = 2;
  // Inconclusive tests: seeds per arm for `power` at `effect`, at alpha / m; nullopt when no
  // difference was observed or more than 10,000 would be needed.
  std::optional<int> seeds_needed;
  std::string row_variant, versus_variant;  // CellAgg::Best: the variants compared
  // The finished runs behind each mean by their seed (the table's seed key): a paired test
  // over the test set pairs the two arms' runs of one seed.
  std::map<std::string, int64_t> row_runs, versus_runs;
};

struct VerdictFamily {
  double alpha = 0.05, power = 0.8;
  std::vector<VerdictTest> tests;     // the family, in metric, versus, column, row order
  int duplicates = 0;                 // tests met again under another --versus, counted once
  std::vector<std::string> untested;  // "metric, column: row vs versus (n < 2)"
  std::vector<std::string> notes;
  // The level each inconclusive test's seeds are planned at: alpha / m (Bonferroni), the
  // level Holm's first step asks of the family's smallest p.
  double planning_alpha() const { return tests.empty() ? alpha : alpha / tests.size(); }
};

// The family of `runs` (table runs as for build_comparison_table, each metric's values in
// final_metrics or, for the metric table.metric already holds, `metric`). InputError (field
// --metrics / --versus / --alpha) for an empty list, a row that is no row, alpha outside (0, 1).
VerdictFamily build_verdicts(const std::vector<TableRun>& runs, const VerdictOptions& options);

// A stored sweep's family: each metric's runs read as `fathom export table` reads them (value,
// where), then build_verdicts.
VerdictFamily sweep_verdicts(const db::Store& store, const std::string& sweep,
                             const VerdictOptions& options, const std::string& where = "");

// "inconclusive at 3 seeds; about 9 per arm would decide it", "p < alpha: decided", ...
std::string verdict_text(const VerdictTest& t);

// The family as a Markdown table (or CSV), its size and alpha above it, notes below.
std::string verdicts_to_markdown(const VerdictFamily& family, int digits = 3);
// Columns a caller adds to the CSV: their names, comma-joined, and one row's fields per test,
// in the family's order, already CSV fields (base/util/csv_field.h), comma-joined.
struct VerdictCsvColumns {
  std::string header;
  std::vector<std::string> cells;
};
// std::invalid_argument where `extra` has a header and not one row a test.
std::string verdicts_to_csv(const VerdictFamily& family, const VerdictCsvColumns& extra = {});

}  // namespace fathom::experiments
