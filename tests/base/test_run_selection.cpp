// `fathom runs --where/--sort/--desc/--limit` (experiments/run_selection.h) on hand-made runs:
// which are kept, in which order, and which typos are refused -- each expectation written out
// from the runs below, not computed by the code under test.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "base/util/error.h"
#include "experiments/run_selection.h"

namespace test_run_selection {
using fathom::db::RunRecord;
using fathom::experiments::RunSelection;
using fathom::experiments::select_runs;

RunRecord run(int64_t id, const std::string& norm, double lr, double seed,
              std::optional<double> valid_ppl) {
  RunRecord r;
  r.id = id;
  r.name = "depth/norm=" + norm + ",seed=" + std::to_string(static_cast<int>(seed));
  r.status = "finished";
  r.config_json = R"({"model":{"norm":")" + norm + R"("},"train":{"lr":)" + std::to_string(lr) +
                  R"(,"seed":)" + std::to_string(static_cast<int>(seed)) +
                  R"(},"data":{"seed":7}})";
  if (valid_ppl) r.final_metrics["valid_ppl"] = *valid_ppl;
  return r;
}

// Six runs: ids 1-6; run 5 has no valid_ppl (it diverged), run 6 a NaN one.
std::vector<RunRecord> sweep() {
  return {run(1, "pre", 0.001, 1, 12.5), run(2, "post", 0.001, 1, 30.0),
          run(3, "pre", 0.004, 2, 9.0),  run(4, "post", 0.004, 2, 12.5),
          run(5, "post", 0.016, 1, {}),  run(6, "pre", 0.016, 1, std::nan(""))};
}

std::vector<int64_t> ids(const std::vector<fathom::experiments::QueriedRun>& runs) {
  std::vector<int64_t> out;
  for (const auto& r : runs) out.push_back(r.run.id);
  return out;
}

std::vector<int64_t> selected(const RunSelection& s) {
  return ids(select_runs(sweep(), s, "fathom runs"));
}

TEST(RunSelection, NothingAskedKeepsEveryRunInTheStoresOrder) {
  EXPECT_EQ(selected({}), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
  // ... and parses no config (a listing of 100,000 runs); a column asked reads them.
  EXPECT_FALSE(select_runs(sweep(), {}, "fathom runs").front().fields);
  RunSelection shown;
  shown.columns = {"lr"};
  const auto runs = select_runs(sweep(), shown, "fathom runs");
  EXPECT_EQ(runs[2].fields("lr")->number, 0.004);
}

TEST(RunSelection, WhereKeepsWhatTheFilterKeeps) {
  RunSelection s;
  s.where = "norm=pre and lr<0.01";
  EXPECT_EQ(selected(s), (std::vector<int64_t>{1, 3}));
  s.where = "  ";  // blank: every run
  EXPECT_EQ(selected(s).size(), 6u);
}

TEST(RunSelection, SortPutsRunsWithoutTheFieldLastAndKeepsTiesInOrder) {
  RunSelection s;
  s.sort = "valid_ppl";  // 9.0 (3), 12.5 (1, 4: a tie, id order), 30.0 (2); 5 and 6 have none
  EXPECT_EQ(selected(s), (std::vector<int64_t>{3, 1, 4, 2, 5, 6}));
  s.descending = true;  // still last: the runs without a value
  EXPECT_EQ(selected(s), (std::vector<int64_t>{2, 1, 4, 3, 5, 6}));
  s.sort = "norm";  // text: post < pre
  s.descending = false;
  EXPECT_EQ(selected(s), (std::vector<int64_t>{2, 4, 5, 1, 3, 6}));
}

TEST(RunSelection, LimitTakesTheFirstNAfterTheFilterAndTheSort) {
  RunSelection s;
  s.where = "status=finished and lr<0.01";
  s.sort = "valid_ppl";
  s.limit = 2;
  EXPECT_EQ(selected(s), (std::vector<int64_t>{3, 1}));
  s.limit = 100;
  EXPECT_EQ(selected(s), (std::vector<int64_t>{3, 1, 4, 2}));
}

TEST(RunSelection, NumbersSortBeforeTextAndByValueNotByDigits) {
  std::vector<RunRecord> runs;
  for (const auto& [id, layers] :
       std::vector<std::pair<int64_t, std::string>>{{1, "12"}, {2, "\"deep\""}, {3, "6"}}) {
    RunRecord r;
    r.id = id;
    r.config_json = R"({"model":{"layers":)" + layers + "}}";
    runs.push_back(r);
  }
  RunSelection s;
  s.sort = "layers";
  EXPECT_EQ(ids(select_runs(runs, s, "fathom runs")), (std::vector<int64_t>{3, 1, 2}));
}

// A field no run has is a typo: refused, naming the option and what was meant, rather than a
// listing of nothing or in no order.
TEST(RunSelection, AFieldNoRunHasIsRefusedWithWhatWasMeant) {
  auto refusal = [](const RunSelection& s) -> std::string {
    try {
      select_runs(sweep(), s, "fathom runs");
    } catch (const fathom::InputError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  RunSelection where;
  where.where = "nrom=pre";
  const std::string w = refusal(where);
  EXPECT_NE(w.find("--where"), std::string::npos) << w;
  EXPECT_NE(w.find("no run has nrom (did you mean norm?)"), std::string::npos) << w;
  RunSelection sort;
  sort.sort = "vaild_ppl";
  const std::string o = refusal(sort);
  EXPECT_NE(o.find("--sort"), std::string::npos) << o;
  EXPECT_NE(o.find("did you mean valid_ppl?"), std::string::npos) << o;
  // "seed" ends data.seed and train.seed: it names neither.
  sort.sort = "seed";
  const std::string ambiguous = refusal(sort);
  EXPECT_NE(ambiguous.find("several keys end in it: data.seed, train.seed"), std::string::npos)
      << ambiguous;
  RunSelection columns;
  columns.columns = {"lr", "lrate"};
  const std::string c = refusal(columns);
  EXPECT_NE(c.find("--columns"), std::string::npos) << c;
  EXPECT_NE(c.find("lrate"), std::string::npos) << c;
  RunSelection bad;
  bad.where = "(norm=";
  const std::string b = refusal(bad);
  EXPECT_NE(b.find("column"), std::string::npos) << b;
}

}  // namespace test_run_selection
