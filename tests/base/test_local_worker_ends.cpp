// How a local worker's end reaches its run's record when the worker dies without recording it.
// A SIGKILLed worker with many threads is not reaped at once: its leader thread is a zombie --
// which the lost-worker check sees as "gone" -- while its other threads are still exiting, and
// only after they have does waitpid give the signal. The scheduler must wait for that and
// record "killed by signal 9", not the vaguer "its worker is gone" (a CI run on a loaded
// machine recorded the latter: Sweep.KilledWorkerIsCrashedAndResumable). The worker here is
// tests/support/dying_worker.cpp, whose leader exits seconds before the process does, so the
// race that CI hit by chance happens on every run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "db/run_status.h"
#include "db/store.h"
#include "experiments/launcher_registry.h"
#include "experiments/scheduler.h"
#include "experiments/sweep_queue.h"
#include "experiments/sweep_spec.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/temp_dir.h"

namespace fathom {
namespace test_local_worker_ends {

TEST(LocalWorkerEnds, AWorkerReapedSecondsAfterItsLeaderIsAZombieRecordsItsSignal) {
  const std::string worker = testing::built_dying_worker().string();
  ASSERT_TRUE(std::filesystem::exists(worker)) << worker;
  setenv("FATHOM_DYING_WORKER_MS", "3000", 1);  // three scheduler rounds of a zombie leader
  testing::TempDir dir;
  const std::string sweep_file = dir.file("dying.yaml");
  std::ofstream(sweep_file) << "name: dying\nbase:\n  data: {task: synthetic}\nseeds: [1]\n";
  const experiments::SweepSpec spec = experiments::load_sweep_file(sweep_file);
  const std::string db = dir.file("runs.db");
  db::Store store = db::Store::open(db);
  const auto queued = experiments::queue_sweep(store, spec, experiments::expand_sweep(spec), false,
                                               experiments::kDefaultHeartbeatTimeout);
  ASSERT_EQ(queued.queued, 1);

  auto launcher = experiments::launcher_entry("local").make(spec);
  experiments::LaunchRequest request;
  request.sweep = spec.name;
  request.sweep_file = spec.file;
  request.db_location = db;
  request.artifacts_root = dir.file("artifacts");
  request.run_dir = [&](int64_t id) { return dir.file("run-" + std::to_string(id)); };
  request.fathom_binary = worker;
  request.runs = queued.queued;
  launcher->launch(store, request);
  experiments::FollowOptions follow;
  follow.sweep = spec.name;
  follow.progress = false;
  const experiments::SweepCounts counts = experiments::follow_sweep(store, *launcher, follow);
  unsetenv("FATHOM_DYING_WORKER_MS");

  EXPECT_EQ(counts.crashed, 1);
  const auto runs = store.list_runs(spec.name);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, db::status::kCrashed);
  EXPECT_NE(runs[0].error.find("worker killed by signal 9"), std::string::npos) << runs[0].error;
  EXPECT_EQ(runs[0].error.find("is gone"), std::string::npos) << runs[0].error;
}

}  // namespace test_local_worker_ends
}  // namespace fathom
