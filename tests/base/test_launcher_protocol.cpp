// The launcher protocol (experiments/launcher.h): a worker asks the registry which launcher
// started it and records that launcher's own tags; status views ask the launcher named in a
// run's tags for its job and state. Checked against what Slurm's environment holds for an
// array task (sbatch(1), "OUTPUT ENVIRONMENT VARIABLES") and what a local worker records.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>

#include "db/records.h"
#include "db/run_status.h"
#include "experiments/launcher.h"

namespace test_launcher_protocol {

using fathom::experiments::WorkerTags;

// Sets Slurm's variables for an array task for one test, and removes them after.
class SlurmEnvironment {
 public:
  using Vars = std::map<std::string, std::string>;
  explicit SlurmEnvironment(Vars vars) : vars_(std::move(vars)) {
    for (const auto& [name, value] : vars_) setenv(name.c_str(), value.c_str(), 1);
  }
  ~SlurmEnvironment() {
    for (const auto& [name, value] : vars_) unsetenv(name.c_str());
  }

 private:
  std::map<std::string, std::string> vars_;
};

fathom::db::RunRecord run_with_status(const std::string& status) {
  fathom::db::RunRecord run;
  run.id = 7;
  run.status = status;
  return run;
}

TEST(LauncherProtocol, AWorkerOutsideSlurmIsLocalAndRecordsNoSlurmTags) {
  unsetenv("SLURM_JOB_ID");
  EXPECT_EQ(fathom::experiments::this_worker_launcher(), "local");
  const WorkerTags tags = fathom::experiments::this_worker_tags();
  EXPECT_EQ(tags, (WorkerTags{{"worker.launcher", "local"}}));
  EXPECT_EQ(fathom::experiments::after_worker_requeue(SIGUSR2), "");
  EXPECT_EQ(fathom::experiments::this_worker_cores(), 0);  // the sweep passes --threads
}

TEST(LauncherProtocol, AnArrayTaskRecordsItsJobAsSqueueNamesItAndItsUniqueId) {
  // Array job 17, task 3, whose own job id is 21 (each array task has one).
  SlurmEnvironment env(SlurmEnvironment::Vars{{"SLURM_JOB_ID", "21"},
                                              {"SLURM_ARRAY_JOB_ID", "17"},
                                              {"SLURM_ARRAY_TASK_ID", "3"},
                                              {"SLURMD_NODENAME", "node5"},
                                              {"SLURM_RESTART_COUNT", "2"}});
  EXPECT_EQ(fathom::experiments::this_worker_launcher(), "slurm");
  const WorkerTags tags = fathom::experiments::this_worker_tags();
  EXPECT_EQ(tags, (WorkerTags{{"worker.launcher", "slurm"},
                              {"slurm.job", "17_3"},
                              {"slurm.job_id", "21"},
                              {"slurm.array_job", "17"},
                              {"slurm.node", "node5"},
                              {"slurm.restarts", "2"}}));
  // SIGTERM (a plain scancel, or preemption that Slurm requeues itself): nothing to do.
  EXPECT_EQ(fathom::experiments::after_worker_requeue(SIGTERM), "");
}

TEST(LauncherProtocol, ASingleJobOutsideAnArrayIsNamedByItsJobId) {
  SlurmEnvironment env(SlurmEnvironment::Vars{{"SLURM_JOB_ID", "40"}});
  const WorkerTags tags = fathom::experiments::this_worker_tags();
  EXPECT_EQ(tags.at("slurm.job"), "40");
  EXPECT_EQ(tags.count("slurm.array_job"), 0u);
  EXPECT_EQ(tags.at("slurm.restarts"), "0");
  EXPECT_EQ(fathom::experiments::this_worker_cores(), 0);  // no --cpus-per-task: the config's
}

TEST(LauncherProtocol, ASlurmWorkersThreadsDefaultToTheCoresItsTaskWasGiven) {
  SlurmEnvironment env(
      SlurmEnvironment::Vars{{"SLURM_JOB_ID", "40"}, {"SLURM_CPUS_PER_TASK", "6"}});
  EXPECT_EQ(fathom::experiments::this_worker_cores(), 6);
}

TEST(LauncherProtocol, EachLauncherNamesItsOwnWorkersJob) {
  using fathom::experiments::worker_job;
  EXPECT_EQ(worker_job({{"worker.launcher", "local"}, {"worker.pid", "812"}}), "pid 812");
  // Recorded before launchers existed: only a pid, which was local.
  EXPECT_EQ(worker_job({{"worker.pid", "812"}}), "pid 812");
  EXPECT_EQ(worker_job({{"worker.launcher", "slurm"},
                        {"worker.pid", "99"},
                        {"slurm.job", "17_3"},
                        {"slurm.job_id", "21"}}),
            "17_3");
  EXPECT_EQ(worker_job({}), "");  // no worker ever recorded itself
}

TEST(LauncherProtocol, AStatusViewShowsTheJobsStateElseWhatItsLauncherSaysOfAQueuedRun) {
  using fathom::experiments::worker_state;
  namespace status = fathom::db::status;
  const WorkerTags slurm = {
      {"worker.launcher", "slurm"}, {"slurm.job", "17_3"}, {"slurm.array_job", "17"}};
  const std::map<std::string, std::string> states = {{"17_3", "RUNNING node5"}};
  EXPECT_EQ(worker_state(run_with_status(status::kRunning), slurm, states), "RUNNING node5");
  // Requeued: the old task is gone from the queue; a pending task of the array will claim it.
  EXPECT_EQ(worker_state(run_with_status(status::kQueued), slurm, {}), "array 17");
  EXPECT_EQ(worker_state(run_with_status(status::kFinished), slurm, {}), "");
  const WorkerTags local = {{"worker.launcher", "local"}, {"worker.pid", "812"}};
  EXPECT_EQ(worker_state(run_with_status(status::kQueued), local, {}), "");
}

}  // namespace test_launcher_protocol
