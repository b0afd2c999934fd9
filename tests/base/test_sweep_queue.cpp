// Queueing a sweep (experiments/sweep_queue.h) over a real SQLite store: which runs are
// created with which tags, which are kept, requeued or left to a live worker on --resume, and
// the refusals (a sweep already stored without --resume; more than kManyRuns runs). Torch-free.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/config/config_io.h"
#include "base/util/error.h"
#include "base/util/strings.h"
#include "base/util/version.h"
#include "db/run_status.h"
#include "db/store.h"
#include "experiments/sweep_queue.h"
#include "tests/support/input_error.h"
#include "tests/support/temp_dir.h"

namespace fathom {
namespace test_sweep_queue {
namespace fs = std::filesystem;

// 2 layer counts x 2 seeds = 4 runs, synthetic task (check_config needs no files).
const char* const kSweep =
    "name: q\n"
    "base:\n"
    "  model: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1, decoder_layers: 1}\n"
    "  data: {task: synthetic}\n"
    "grid:\n"
    "  model.encoder_layers: [1, 2]\n"
    "seeds: [1, 2]\n";

class SweepQueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    spec_ = experiments::load_sweep_string(kSweep, "q.yaml", dir_.string());
    runs_ = experiments::expand_sweep(spec_);
  }
  db::Store store() const { return db::Store::open((dir_ / "runs.db").string()); }
  // A run a worker on another host took and ended with `status`.
  static void end_elsewhere(db::Store& s, int64_t id, const std::string& status,
                            const std::string& error = "") {
    s.mark_running(id, "elsewhere", "cpu");
    s.finish_run(id, status, error);
  }

  fathom::testing::TempDir scratch_;  // removed when the test ends
  const fs::path& dir_ = scratch_.path();
  experiments::SweepSpec spec_;
  std::vector<experiments::SweepRun> runs_;
};

TEST_F(SweepQueueTest, RecordsEveryRunQueuedWithItsAxisTags) {
  auto s = store();
  const experiments::QueuedSweep q =
      experiments::queue_sweep(s, spec_, runs_, /*resume=*/false, 180);
  ASSERT_EQ(q.created.size(), 4u);
  EXPECT_EQ(q.queued, 4);
  EXPECT_EQ(q.kept + q.requeued + q.alive + q.queued_outside_file, 0);
  const auto listed = s.list_runs("q");
  ASSERT_EQ(listed.size(), 4u);
  EXPECT_EQ(listed[0].name,
            "q/encoder_layers=1,seed=1");  // first grid key slowest, seeds innermost
  EXPECT_EQ(listed[3].name, "q/encoder_layers=2,seed=2");
  const auto tags = s.tags(listed[1].id);
  EXPECT_EQ(tags.at("axis.model.encoder_layers"), "1");
  EXPECT_EQ(tags.at("axis.train.seed"), "2");
  EXPECT_EQ(tags.at("sweep.axes"), "model.encoder_layers,train.seed");
  EXPECT_EQ(experiments::axes_layout(spec_), "model.encoder_layers,train.seed");
}

// --resume: a finished run is kept, a crashed one and a running one whose heartbeat went silent
// go back to the queue, one with a fresh heartbeat is left to its worker, a queued one stays
// queued; nothing is created twice, and a run missing from the store is created.
TEST_F(SweepQueueTest, ResumeKeepsEndedRunsAndRequeuesInterruptedOnes) {
  auto s = store();
  experiments::queue_sweep(s, spec_, runs_, false, 180);
  const auto listed = s.list_runs("q");
  end_elsewhere(s, listed[0].id, db::status::kFinished);
  end_elsewhere(s, listed[1].id, db::status::kCrashed, "worker killed");
  s.mark_running(listed[2].id, "elsewhere", "cpu");  // heartbeat now: alive
  s.delete_run(listed[3].id);                        // lost from the store: made again

  const experiments::QueuedSweep q =
      experiments::queue_sweep(s, spec_, runs_, /*resume=*/true, 180);
  EXPECT_EQ(q.created.size(), 1u);
  EXPECT_EQ(q.kept, 1);
  EXPECT_EQ(q.requeued, 1);
  EXPECT_EQ(q.alive, 1);
  EXPECT_EQ(q.queued, 2);  // the crashed one and the new one
  EXPECT_EQ(s.find_run(std::to_string(listed[1].id))->status, db::status::kQueued);
  EXPECT_EQ(s.find_run(std::to_string(listed[1].id))->error, "resumed after: worker killed");
  EXPECT_EQ(s.list_runs("q").size(), 4u);

  // A heartbeat timeout of 0 s: the running one on another host is now silent, hence lost.
  const experiments::QueuedSweep again = experiments::queue_sweep(s, spec_, runs_, true, 0);
  EXPECT_EQ(again.requeued, 1);
  EXPECT_EQ(again.alive, 0);
  EXPECT_EQ(again.queued, 3);
}

// An extension file of the same sweep name (NAME-edge.yaml: one more depth) joins its queue;
// resuming either file counts the queued runs the other listed apart, since both get run.
TEST_F(SweepQueueTest, AnExtensionFileJoinsTheQueueAndItsRunsAreCountedApart) {
  auto s = store();
  experiments::queue_sweep(s, spec_, runs_, false, 180);
  const auto listed = s.list_runs("q");
  end_elsewhere(s, listed[0].id, db::status::kFinished);

  const experiments::SweepSpec edge = experiments::load_sweep_string(
      "name: q\n"
      "base:\n"
      "  model: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1, decoder_layers: 1}\n"
      "  data: {task: synthetic}\n"
      "grid:\n"
      "  model.encoder_layers: [3]\n"
      "seeds: [1, 2]\n",
      "q-edge.yaml", dir_.string());
  const experiments::QueuedSweep e =
      experiments::queue_sweep(s, edge, experiments::expand_sweep(edge), true, 180);
  EXPECT_EQ(e.created.size(), 2u);
  EXPECT_EQ(e.queued, 5);               // its own 2 and the first file's 3 still queued
  EXPECT_EQ(e.queued_outside_file, 3);  // hand count: 4 queued by q.yaml, 1 of them finished

  const experiments::QueuedSweep again = experiments::queue_sweep(s, spec_, runs_, true, 180);
  EXPECT_EQ(again.created.size(), 0u);
  EXPECT_EQ(again.kept, 1);
  EXPECT_EQ(again.queued, 5);
  EXPECT_EQ(again.queued_outside_file, 2);  // the edge file's two
}

TEST_F(SweepQueueTest, RefusesAStoredSweepWithoutResumeAndTooManyRunsWithoutYes) {
  auto s = store();
  experiments::queue_sweep(s, spec_, runs_, false, 180);
  try {
    experiments::queue_sweep(s, spec_, runs_, false, 180);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "q.yaml");
    EXPECT_EQ(e.line(), 1);
    EXPECT_NE(std::string(e.what()).find("--resume"), std::string::npos) << e.what();
  }
  EXPECT_EQ(s.list_runs("q").size(), 4u);  // nothing created twice

  EXPECT_NO_THROW(experiments::check_run_count(spec_, experiments::kManyRuns, false));
  EXPECT_THROW(experiments::check_run_count(spec_, experiments::kManyRuns + 1, false), InputError);
  EXPECT_NO_THROW(experiments::check_run_count(spec_, experiments::kManyRuns + 1, true));
}

// `fathom sweep --set`: a fixed value reaches every run's config (and its location says where
// it came from); an axis key, `name`, an unknown key and a bad value are refused at "--set".
TEST_F(SweepQueueTest, SetOverridesEveryRunButNotAnAxis) {
  experiments::apply_sweep_overrides(spec_, {"train.max_updates=12345", "model.d_ff=48"});
  const auto runs = experiments::expand_sweep(spec_);
  ASSERT_EQ(runs.size(), 4u);
  for (const auto& run : runs) {
    EXPECT_EQ(run.config.train.max_updates, 12345) << run.name;
    EXPECT_EQ(run.config.model.d_ff, 48) << run.name;
    EXPECT_EQ(run.config.where("train.max_updates").file, "--set");
  }
  EXPECT_EQ(runs[3].config.model.encoder_layers, 2);  // the axis still varies

  const InputError axis = testing::expect_input_error(
      [&] { experiments::apply_sweep_overrides(spec_, {"model.encoder_layers=6"}); });
  EXPECT_EQ(axis.file(), "--set");
  EXPECT_EQ(axis.field(), "model.encoder_layers");
  EXPECT_NE(axis.message().find("q.yaml line 6"), std::string::npos) << axis.message();
  const InputError seed = testing::expect_input_error(
      [&] { experiments::apply_sweep_overrides(spec_, {"train.seed=3"}); });
  EXPECT_NE(seed.message().find("line 7"), std::string::npos) << seed.message();
  EXPECT_EQ(testing::expect_input_error([&] {
              experiments::apply_sweep_overrides(spec_, {"name=x"});
            }).field(),
            "name");
  const InputError typo = testing::expect_input_error(
      [&] { experiments::apply_sweep_overrides(spec_, {"train.max_update=5"}); });
  EXPECT_EQ(typo.file(), "--set");
  EXPECT_NE(typo.message().find("max_updates"), std::string::npos) << typo.message();
  EXPECT_EQ(testing::expect_input_error([&] {
              experiments::apply_sweep_overrides(spec_, {"train.max_updates=many"});
            }).field(),
            "train.max_updates");
  EXPECT_EQ(spec_.overrides,
            (std::vector<std::string>{"train.max_updates=12345", "model.d_ff=48"}));
}

// --name gives the rerun runs of its own; resuming under other --set values than the sweep
// was queued with is refused and changes nothing.
TEST_F(SweepQueueTest, ResumeNeedsTheSameSetValues) {
  auto s = store();
  experiments::queue_sweep(s, spec_, runs_, false, 180);  // the original, no --set

  experiments::SweepSpec bigger = spec_;
  experiments::apply_sweep_overrides(bigger, {"train.max_updates=999"});
  const InputError mixed = testing::expect_input_error([&] {
    experiments::queue_sweep(s, bigger, experiments::expand_sweep(bigger), /*resume=*/true, 180);
  });
  EXPECT_EQ(mixed.field(), "--set");
  EXPECT_NE(mixed.message().find("no --set"), std::string::npos) << mixed.message();
  EXPECT_NE(mixed.message().find("--name"), std::string::npos) << mixed.message();
  EXPECT_EQ(s.list_runs("q").size(), 4u);

  experiments::rename_sweep(bigger, "q-big");
  const experiments::QueuedSweep q =
      experiments::queue_sweep(s, bigger, experiments::expand_sweep(bigger), false, 180);
  ASSERT_EQ(q.created.size(), 4u);
  const auto big = s.list_runs("q-big");
  ASSERT_EQ(big.size(), 4u);
  EXPECT_EQ(big[0].name, "q-big/encoder_layers=1,seed=1");
  EXPECT_NE(big[0].config_json.find("\"max_updates\":999"), std::string::npos);
  EXPECT_EQ(s.tags(big[0].id).at("sweep.set"), "train.max_updates=999");
  // The same values resume it; other ones, or none, do not.
  EXPECT_EQ(experiments::queue_sweep(s, bigger, experiments::expand_sweep(bigger), true, 180)
                .created.size(),
            0u);
  experiments::SweepSpec plain = spec_;
  experiments::rename_sweep(plain, "q-big");
  EXPECT_NE(testing::expect_input_error([&] {
              experiments::queue_sweep(s, plain, experiments::expand_sweep(plain), true, 180);
            })
                .message()
                .find("--set train.max_updates=999"),
            std::string::npos);
  EXPECT_EQ(testing::expect_input_error([&] { experiments::rename_sweep(plain, "a b"); }).file(),
            "--name");
}

// What queueing recorded before it batched (issue 54): each run, then each of its tags, one
// transaction apiece -- the reference the batched queue must match.
std::vector<int64_t> queue_one_by_one(db::Store& s, const experiments::SweepSpec& spec,
                                      const std::vector<experiments::SweepRun>& runs) {
  std::vector<int64_t> ids;
  for (const auto& run : runs) {
    db::NewRun row;
    row.name = run.name;
    row.sweep = spec.name;
    row.config_json = config_to_json(run.config).dump();
    row.config_yaml = config_to_yaml(run.config);
    row.git_rev = git_revision();
    ids.push_back(s.create_run(row));
    for (const auto& axis : run.axes) s.set_tag(ids.back(), "axis." + axis.key, axis.value);
    s.set_tag(ids.back(), "sweep.axes", experiments::axes_layout(spec));
    if (!spec.overrides.empty()) s.set_tag(ids.back(), "sweep.set", join(spec.overrides, " "));
  }
  return ids;
}

// More runs than one batch (kQueueBatch), with --set: the runs and tags queue_sweep records are
// those the one-by-one path recorded, in the same order (ids differ only by the store).
TEST_F(SweepQueueTest, BatchedQueueingRecordsWhatOneByOneDid) {
  std::string grid = "  model.d_ff: [";
  for (int i = 1; i <= 55; ++i) grid += (i > 1 ? ", " : "") + std::to_string(i);
  auto spec = experiments::load_sweep_string(
      std::string("name: big\nbase:\n  model: {d_model: 16, heads: 2, encoder_layers: 1,"
                  " decoder_layers: 1}\n  data: {task: synthetic}\ngrid:\n") +
          grid + "]\nseeds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19," +
          " 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37]\n",
      "big.yaml", dir_.string());
  experiments::apply_sweep_overrides(spec, {"train.max_updates=7"});
  const auto runs = experiments::expand_sweep(spec);
  ASSERT_EQ(runs.size(), 55u * 37u);
  ASSERT_GT(runs.size(), 2 * experiments::kQueueBatch);

  auto batched = store();
  const auto q = experiments::queue_sweep(batched, spec, runs, false, 180);
  auto reference = db::Store::open((dir_ / "reference.db").string());
  const std::vector<int64_t> ids = queue_one_by_one(reference, spec, runs);
  ASSERT_EQ(q.created, ids);  // both stores start empty: the same ids
  EXPECT_EQ(q.queued, static_cast<int>(runs.size()));
  const auto got = batched.list_runs("big"), want = reference.list_runs("big");
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].id, want[i].id);
    EXPECT_EQ(got[i].name, want[i].name);
    EXPECT_EQ(got[i].status, want[i].status);
    EXPECT_EQ(got[i].config_json, want[i].config_json);
    EXPECT_EQ(got[i].config_yaml, want[i].config_yaml);
    EXPECT_EQ(got[i].git_rev, want[i].git_rev);
    EXPECT_EQ(batched.tags(got[i].id), reference.tags(want[i].id)) << got[i].name;
  }
  EXPECT_EQ(batched.counts(), reference.counts());
}

// A maker that fails at the third run: the two it made are taken back -- by `remove` where
// given, else Store::delete_run -- the error goes on, and the sweep can be queued afresh.
TEST_F(SweepQueueTest, ASweepThatCannotBeQueuedWholeLeavesNoneOfItsRuns) {
  for (const bool own_remove : {true, false}) {
    SCOPED_TRACE(own_remove ? "maker.remove" : "Store::delete_run");
    fathom::testing::TempDir scratch;
    auto s = db::Store::open((scratch.path() / "runs.db").string());
    std::vector<int64_t> made, removed;
    experiments::SweepRunMaker maker;
    maker.make = [&](const experiments::SweepRun& run, const std::map<std::string, std::string>&) {
      if (made.size() == 2) throw std::runtime_error("no room for " + run.name);
      db::NewRun row;
      row.name = run.name;
      row.sweep = spec_.name;
      made.push_back(s.create_run(row));
      return made.back();
    };
    if (own_remove)
      maker.remove = [&](int64_t id) {
        removed.push_back(id);
        s.delete_run(id);
      };
    try {
      experiments::queue_sweep(s, spec_, runs_, /*resume=*/false, 180, {}, maker);
      ADD_FAILURE() << "queueing went on past the failed run";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "no room for " + runs_[2].name);
    }
    ASSERT_EQ(made.size(), 2u);
    EXPECT_EQ(removed, own_remove ? made : std::vector<int64_t>{});
    EXPECT_TRUE(s.list_runs("").empty());
    const auto q = experiments::queue_sweep(s, spec_, runs_, /*resume=*/false, 180);
    EXPECT_EQ(q.queued, 4) << "queued afresh, without --resume";
  }
}

}  // namespace test_sweep_queue
}  // namespace fathom
