// What runs were computed with beyond their settings (experiments/computed_with.h): the keys
// where runs differ, the note a table prints, and that tables read it from each run.
#include <gtest/gtest.h>

#include "experiments/comparison_table.h"
#include "experiments/computed_with.h"

namespace test_computed_with {
using namespace fathom;
using experiments::ComputedWith;

ComputedWith on(const std::string& core, const std::string& device = "cpu",
                const std::string& rev = "abc1234", const std::string& libtorch = "",
                const std::string& threads = "") {
  return {{"blas.core", core},
          {"device", device},
          {"git_rev", rev},
          {"libtorch", libtorch},
          {"threads", threads}};
}

TEST(ComputedWith, RunIdsReadAsRanges) {
  EXPECT_EQ(experiments::run_id_ranges({}), "");
  EXPECT_EQ(experiments::run_id_ranges({5}), "#5");
  EXPECT_EQ(experiments::run_id_ranges({10, 3, 1, 2, 7, 9, 2}), "#1-#3, #7, #9-#10");
}

TEST(ComputedWith, OnlyKeysThatDifferAreListedWithEachRunsValue) {
  EXPECT_TRUE(experiments::computed_differently({on("Haswell"), on("Haswell")}).empty());
  const auto d = experiments::computed_differently(
      {on("Haswell"), on("Cooperlake", "cpu", "def5678"), on("Haswell")});
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d.at("blas.core"), (std::vector<std::string>{"Haswell", "Cooperlake", "Haswell"}));
  EXPECT_EQ(d.at("git_rev"), (std::vector<std::string>{"abc1234", "def5678", "abc1234"}));
  // A run that did not record its kernels ("") is not taken to have had the others'.
  EXPECT_EQ(experiments::computed_differently({on("Haswell"), on("")}).count("blas.core"), 1u);
  // The same kernels, device and revision on two LibTorch versions.
  const auto torch = experiments::computed_differently(
      {on("Haswell", "cpu", "abc1234", "1.13.1"), on("Haswell", "cpu", "abc1234", "2.6.0")});
  ASSERT_EQ(torch.size(), 1u);
  EXPECT_EQ(torch.at("libtorch"), (std::vector<std::string>{"1.13.1", "2.6.0"}));
  // Everything alike but the threads (train.threads 0 on a 2-core and an 8-core machine).
  const auto threads = experiments::computed_differently(
      {on("Haswell", "cpu", "abc1234", "1.13.1", "OpenBLAS 2, LibTorch 2"),
       on("Haswell", "cpu", "abc1234", "1.13.1", "OpenBLAS 8, LibTorch 8")});
  ASSERT_EQ(threads.size(), 1u);
  EXPECT_EQ(threads.at("threads"),
            (std::vector<std::string>{"OpenBLAS 2, LibTorch 2", "OpenBLAS 8, LibTorch 8"}));
}

TEST(ComputedWith, TheNoteNamesEachValuesRuns) {
  EXPECT_FALSE(experiments::computed_differently_note({1, 2}, {on("Haswell"), on("Haswell")}));
  const auto note = experiments::computed_differently_note(
      {1, 2, 3, 4, 5},
      {on("Haswell"), on("Haswell"), on(""), on("Cooperlake", "cuda:0"), on("Cooperlake")});
  ASSERT_TRUE(note);
  EXPECT_EQ(*note,
            "⚠ the runs were computed differently -- blas.core: Haswell (#1-#2), not recorded "
            "(#3), Cooperlake (#4-#5); device: cpu (#1-#3, #5), cuda:0 (#4): equal settings give "
            "other numbers on other OpenBLAS kernels, devices, code, LibTorch versions or thread "
            "counts, so a difference can be that alone (fathom compare lists each run's)");
  // Runs of two kinds taking turns: counted, not listed a range each.
  std::vector<int64_t> ids;
  std::vector<ComputedWith> turns;
  for (int64_t id = 1; id <= 12; ++id) {
    ids.push_back(id);
    turns.push_back(on(id % 2 ? "Haswell" : "Cooperlake"));
  }
  const auto counted = experiments::computed_differently_note(ids, turns);
  ASSERT_TRUE(counted);
  EXPECT_NE(counted->find("blas.core: Haswell (6 runs), Cooperlake (6 runs):"), std::string::npos)
      << *counted;
}

// A table reads each run's kernels (tag blas.core), threads (tag threads), device and
// revision, and notes a mix.
TEST(ComputedWith, ATableOfRunsComputedDifferentlySaysSo) {
  const auto stored = [](int64_t id, const std::string& init, const std::string& core,
                         const std::string& threads = "OpenBLAS 1, LibTorch 1") {
    db::RunRecord rec;
    rec.id = id;
    rec.status = "finished";
    rec.device = "cpu";
    rec.git_rev = "abc1234";
    rec.final_metrics = {{"test_bleu", 20.0 + static_cast<double>(id)}};
    std::map<std::string, std::string> tags{{"axis.model.init", init}, {"axis.train.seed", "1"}};
    if (!core.empty()) tags["blas.core"] = core;
    tags["threads"] = threads;
    return experiments::table_run(rec, tags, "test_bleu", {"model.init"});
  };
  experiments::TableOptions o;
  o.rows = "model.init";
  o.metric = "test_bleu";
  const auto first = stored(1, "xavier", "Haswell");
  EXPECT_EQ(first.computed_with, on("Haswell", "cpu", "abc1234", "", "OpenBLAS 1, LibTorch 1"));
  const auto same = experiments::build_comparison_table({first, stored(2, "admin", "Haswell")}, o);
  for (const auto& n : same.notes) EXPECT_EQ(n.find("computed differently"), std::string::npos);
  const auto mixed =
      experiments::build_comparison_table({first, stored(2, "admin", "Sandybridge")}, o);
  bool noted = false;
  for (const auto& n : mixed.notes)
    noted |= n.find("blas.core: Haswell (#1), Sandybridge (#2)") != std::string::npos;
  EXPECT_TRUE(noted) << ::testing::PrintToString(mixed.notes);
  const auto threads = experiments::build_comparison_table(
      {first, stored(2, "admin", "Haswell", "OpenBLAS 2, LibTorch 2")}, o);
  noted = false;
  for (const auto& n : threads.notes)
    noted |= n.find("threads: OpenBLAS 1, LibTorch 1 (#1), OpenBLAS 2, LibTorch 2 (#2)") !=
             std::string::npos;
  EXPECT_TRUE(noted) << ::testing::PrintToString(threads.notes);
}

}  // namespace test_computed_with
