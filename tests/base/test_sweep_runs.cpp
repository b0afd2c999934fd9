// The exports' --where (experiments/sweep_runs.h): which runs of a sweep a filter keeps, the
// note that says so, and the errors that name --where or --sweep.
#include <gtest/gtest.h>

#include "base/util/error.h"
#include "db/store.h"
#include "experiments/comparison_table.h"
#include "experiments/sweep_runs.h"
#include "tests/support/temp_dir.h"

namespace test_sweep_runs {
using namespace fathom;

// Sweep "d": pre and post at 12 and 24 layers (valid_loss 1.0 + layers / 100 + 0.5 for post),
// and a 24-layer run of another sweep that no filter of "d" may keep.
std::string make_store(const fathom::testing::TempDir& scratch) {
  const std::string path = scratch.file("runs.db");
  auto store = db::Store::open(path);
  auto add = [&](const std::string& sweep, const std::string& norm, int layers) {
    db::NewRun n;
    n.name = sweep + "/" + norm + std::to_string(layers);
    n.sweep = sweep;
    n.config_json =
        R"({"model":{"norm":")" + norm + R"(","decoder_layers":)" + std::to_string(layers) + "}}";
    const int64_t id = store.create_run(n);
    store.set_tag(id, "axis.model.norm", norm);
    store.set_tag(id, "axis.model.decoder_layers", std::to_string(layers));
    store.set_final_metric(id, "valid_loss", 1.0 + layers / 100.0 + (norm == "post" ? 0.5 : 0));
    store.finish_run(id, "finished");
  };
  for (int layers : {12, 24})
    for (const char* norm : {"pre", "post"}) add("d", norm, layers);
  add("other", "pre", 24);
  return path;
}

std::vector<std::string> names(const experiments::SweepRuns& s) {
  std::vector<std::string> out;
  for (const auto& r : s.runs) out.push_back(r.name);
  return out;
}

TEST(SweepRuns, AFilterKeepsPartOfTheSweepAndSaysSo) {
  const fathom::testing::TempDir scratch;
  const auto store = db::Store::open(make_store(scratch), db::OpenMode::ReadOnly);

  const auto all = experiments::select_sweep_runs(store, "d", "  ");
  EXPECT_EQ(all.runs.size(), 4u);
  EXPECT_EQ(all.total, 4u);
  EXPECT_FALSE(all.note().has_value());  // nothing filtered: nothing to say

  const auto deep = experiments::select_sweep_runs(store, "d", " decoder_layers=24 ");
  EXPECT_EQ(names(deep), (std::vector<std::string>{"d/pre24", "d/post24"}));
  EXPECT_EQ(deep.note().value_or(""), "only the runs where decoder_layers=24 (2 of 4)");

  // Keys in full, metrics and `or` as in the desktop app's runs filter.
  const auto some = experiments::select_sweep_runs(
      store, "d", "model.norm=post or (valid_loss<1.2 and decoder_layers=12)");
  EXPECT_EQ(names(some), (std::vector<std::string>{"d/pre12", "d/post12", "d/post24"}));
}

TEST(SweepRuns, BadFiltersNameWhere) {
  const fathom::testing::TempDir scratch;
  const auto store = db::Store::open(make_store(scratch), db::OpenMode::ReadOnly);
  auto field_of = [&](const std::string& sweep, const std::string& where) -> std::string {
    try {
      experiments::select_sweep_runs(store, sweep, where);
    } catch (const InputError& e) {
      return e.field() + ": " + e.message();
    }
    return "accepted";
  };
  const std::string malformed = field_of("d", "decoder_layers=");
  EXPECT_EQ(malformed.rfind("--where: 'decoder_layers='", 0), 0u) << malformed;
  EXPECT_NE(malformed.find("column"), std::string::npos) << malformed;
  EXPECT_EQ(field_of("d", "decoder_layers=48"),
            "--where: 'decoder_layers=48' keeps none of the 4 runs of sweep 'd'");
  EXPECT_EQ(field_of("d", "depth=48"),
            "--where: 'depth=48' keeps none of the 4 runs of sweep 'd'; no run has depth");
  EXPECT_EQ(field_of("nope", "").rfind("--sweep: no sweep named 'nope'", 0), 0u);
  // A typo of a field the runs have is named with the field it likely meant (issue 58 item 3).
  EXPECT_EQ(field_of("d", "nrom=pre"),
            "--where: 'nrom=pre' keeps none of the 4 runs of sweep 'd'; no run has nrom (did you "
            "mean norm?)");
}

// `fathom export table --where`: the table of the kept runs, with the note.
TEST(SweepRuns, TheTableOfPartOfASweepSaysWhichPart) {
  const fathom::testing::TempDir scratch;
  const auto store = db::Store::open(make_store(scratch), db::OpenMode::ReadOnly);
  experiments::TableOptions o;
  o.rows = "model.norm";
  o.cols = "model.decoder_layers";
  o.metric = "valid_loss";
  const auto t = experiments::sweep_comparison_table(store, "d", o, "decoder_layers=24");
  EXPECT_EQ(t.col_labels, (std::vector<std::string>{"24"}));
  ASSERT_EQ(t.row_labels.size(), 2u);
  EXPECT_DOUBLE_EQ(*t.cells[0][0].value, 1.24);  // pre
  EXPECT_DOUBLE_EQ(*t.cells[1][0].value, 1.74);  // post
  EXPECT_EQ(t.notes.back(), "only the runs where decoder_layers=24 (2 of 4)");
  const auto whole = experiments::sweep_comparison_table(store, "d", o);
  EXPECT_EQ(whole.col_labels.size(), 2u);
  for (const auto& note : whole.notes) EXPECT_EQ(note.find("only the runs"), std::string::npos);
}

}  // namespace test_sweep_runs
