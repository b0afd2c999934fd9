// `fathom sweep --launcher slurm` against a real single-node Slurm cluster (slurmctld, slurmd,
// munge from Debian's packages), started for the test run by scripts/slurm-test-server.sh
// (ctest fixture "slurm"; $FATHOM_TEST_SLURM_DIR). Where the cluster could not start, every
// test here reports SKIPPED with the script's reason; a missing fathom binary is a failure.
//
// Covered: a 4-run sweep completes through one job array; a task signalled mid-run (USR2, as
// Slurm does before a time limit) checkpoints, is requeued and finishes with exactly the metric
// rows of an uninterrupted run, a two-task step (train.processes 2) too; `fathom sweep cancel`
// leaves no job and no worker behind; bad input (unknown partition, GPU runs on a CPU partition, a
// submission sbatch refuses, no sbatch on PATH) is refused with its file, line and key, with
// nothing queued.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/util/process.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/processes.h"
#include "tests/support/store_backends.h"
#include "tests/support/temp_dir.h"

namespace test_slurm_sweep {
namespace fs = std::filesystem;
using fathom::ProgramResult;
using fathom::db::OpenMode;
using fathom::db::Store;

const std::string kBase = fathom::testing::tiny_config_yaml(
    "tiny", "{lr: 0.005, warmup: 10, max_updates: 60, valid_every: 10, log_every: 10, threads: 1}");

using fathom::testing::read_text;

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::string word;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!word.empty()) out.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) out.push_back(word);
  return out;
}

class SlurmSweep : public ::testing::Test {
 protected:
  void SetUp() override {
    binary_ = fathom::testing::built_fathom_binary();
    ASSERT_TRUE(fs::exists(binary_)) << "fathom binary not built at " << binary_;
    const char* cluster = std::getenv("FATHOM_TEST_SLURM_DIR");
    if (!cluster) GTEST_SKIP() << "no Slurm test cluster: run through ctest (fixture 'slurm')";
    if (fs::exists(fs::path(cluster) / "skip"))
      GTEST_SKIP() << "the Slurm test cluster could not start: "
                   << read_text(fs::path(cluster) / "skip");
    const fs::path conf_file = fs::path(cluster) / "conf";
    ASSERT_TRUE(fs::exists(conf_file))
        << "the slurm fixture left neither conf nor skip in " << cluster;
    conf_ = words(read_text(conf_file)).at(0);
    setenv("SLURM_CONF", conf_.c_str(), 1);
    std::ofstream(dir_ / "base.yaml") << kBase;
  }

  std::string db() const { return (dir_ / "runs.db").string(); }
  std::string write_sweep(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / (name + ".yaml");
    std::ofstream(path) << text;
    return path.string();
  }
  ProgramResult fathom(const std::vector<std::string>& args,
                       const std::vector<std::string>& env = {}) {
    std::vector<std::string> argv{binary_.string(), "--db", db()};
    argv.insert(argv.end(), args.begin(), args.end());
    return fathom::run_program(argv, "", fathom::environment_with(env), 600);
  }
  // No runs yet while the scheduler is still creating the store (no file, or no schema yet:
  // a throw here would end the test with the scheduler thread still running).
  std::vector<fathom::db::RunRecord> runs(const std::string& sweep) const {
    if (!fs::exists(db())) return {};
    try {
      return Store::open(db(), OpenMode::ReadOnly).list_runs(sweep);
    } catch (const std::exception&) {
      return {};
    }
  }
  std::map<std::string, std::string> tags(int64_t run) const {
    return Store::open(db(), OpenMode::ReadOnly).tags(run);
  }
  // Job ids squeue still shows for `array` (queued, running or requeued tasks).
  std::vector<std::string> queued_jobs(const std::string& array) const {
    const ProgramResult r = fathom::run_program({"squeue", "-h", "-r", "-j", array, "-o", "%i"});
    return words(r.out);
  }
  // Waits until `ready` holds, polling the store; false after `seconds`.
  template <typename F>
  bool wait_for(F ready, int seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
      if (ready()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  // A Slurm task of `sweep` running with updates in [min_updates, max_updates]: its run id and
  // Slurm job id (both 0/"" if none appears within two minutes).
  struct RunningTask {
    int64_t run = 0;
    std::string job;
    explicit operator bool() const { return run != 0; }
  };
  RunningTask wait_for_running_task(const std::string& sweep, int64_t min_updates,
                                    int64_t max_updates) {
    RunningTask found;
    wait_for(
        [&] {
          for (const auto& r : runs(sweep)) {
            if (r.status != "running" || r.updates < min_updates || r.updates > max_updates)
              continue;
            const auto t = tags(r.id);
            if (!t.count("slurm.job_id")) continue;
            found = {r.id, t.at("slurm.job_id")};
            return true;
          }
          return false;
        },
        120);
    return found;
  }

  // Every metric row of `interrupted` equals `uninterrupted`'s, step for step (none lost, none
  // repeated), but the timings, which differ by nature.
  void expect_same_metric_rows(int64_t interrupted_run, int64_t uninterrupted_run) {
    auto store = Store::open(db(), OpenMode::ReadOnly);
    const auto interrupted = store.metric_rows(interrupted_run);
    const auto uninterrupted = store.metric_rows(uninterrupted_run);
    ASSERT_EQ(interrupted.size(), uninterrupted.size());
    for (size_t i = 0; i < interrupted.size(); ++i) {
      const auto& [step_a, name_a, value_a, wall_a] = interrupted[i];
      const auto& [step_b, name_b, value_b, wall_b] = uninterrupted[i];
      ASSERT_EQ(name_a, name_b);
      ASSERT_EQ(step_a, step_b) << name_a;
      if (fathom::db::metric::measures_the_machine(name_a)) continue;
      EXPECT_EQ(value_a, value_b) << name_a << " at update " << step_a;
    }
  }

  fathom::testing::TempDir scratch_;  // removed when the test ends
  fs::path binary_;
  const fs::path& dir_ = scratch_.path();
  std::string conf_;
};

// Four runs through one job array: each array task claims one run, every run finishes, each
// records its Slurm job, node and per-run log, `sweep status` shows them, and the queue is
// empty afterwards.
TEST_F(SlurmSweep, FourRunSweepCompletesThroughAJobArray) {
  const std::string sweep =
      write_sweep("four",
                  "name: four\nbase: base.yaml\ngrid:\n  model.norm: [post, pre]\nseeds: [1, 2]\n"
                  "slurm:\n  partition: debug\n  cpus: 1\n  time: \"00:10:00\"\n");
  const ProgramResult r = fathom({"sweep", sweep, "--wait", "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("4 finished"), std::string::npos) << r.out;
  const auto list = runs("four");
  ASSERT_EQ(list.size(), 4u);
  std::set<std::string> jobs;
  std::string array;
  for (const auto& run : list) {
    SCOPED_TRACE(run.name);
    EXPECT_EQ(run.status, "finished") << run.error;
    EXPECT_EQ(run.updates, 60);
    const auto t = tags(run.id);
    EXPECT_EQ(t.at("worker.launcher"), "slurm");
    array = t.at("slurm.array_job");
    EXPECT_TRUE(std::regex_match(t.at("slurm.job"), std::regex(array + "_[0-3]")))
        << t.at("slurm.job");
    jobs.insert(t.at("slurm.job"));
    EXPECT_EQ(t.at("slurm.node"), run.host);
    const std::string log = read_text(t.at("worker.log"));
    EXPECT_NE(log.find("worker: run " + std::to_string(run.id)), std::string::npos) << log;
    const ProgramResult show = fathom({"show", std::to_string(run.id)});
    EXPECT_NE(show.out.find(t.at("worker.log")), std::string::npos) << show.out;
  }
  EXPECT_EQ(jobs.size(), 4u);  // one task per run
  const ProgramResult status = fathom({"sweep", "status", "four"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  for (const auto& job : jobs) EXPECT_NE(status.out.find(job), std::string::npos) << status.out;
  EXPECT_NE(status.out.find(list.front().host), std::string::npos) << status.out;
  EXPECT_TRUE(queued_jobs(array).empty());
}

// A sweep of train.processes 2: each array task is one Slurm step of two tasks (srun --ntasks
// 2), task 0 claiming and leading the run, task 1 its second data-parallel rank over Gloo. The
// run finishes with the all-reduce's timing rows that only a data-parallel run writes.
TEST_F(SlurmSweep, ATwoProcessRunTrainsAsOneTwoTaskStep) {
  std::ofstream(dir_ / "dp-base.yaml") << fathom::testing::tiny_config_yaml(
      "dp",
      "{lr: 0.005, warmup: 10, max_updates: 40, valid_every: 20, log_every: 10, "
      "threads: 1, update_tokens: 600, processes: 2}");
  const std::string sweep =
      write_sweep("dp",
                  "name: dp\nbase: dp-base.yaml\ngrid:\n  model.norm: [post]\n"
                  "slurm:\n  partition: debug\n  cpus: 1\n  time: \"00:10:00\"\n");
  const ProgramResult r = fathom({"sweep", sweep, "--wait", "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto list = runs("dp");
  ASSERT_EQ(list.size(), 1u);
  const auto t = tags(list[0].id);
  EXPECT_EQ(list[0].status, "finished") << list[0].error << "\n" << read_text(t.at("worker.log"));
  EXPECT_EQ(list[0].updates, 40);
  const auto reduce =
      Store::open(db(), OpenMode::ReadOnly).metric_series(list[0].id, "allreduce_s");
  EXPECT_EQ(reduce.size(), 4u);  // one row per log point: the run had a second rank
  const std::string script =
      read_text(*std::find_if(fs::directory_iterator(dir_ / "runs.artifacts" / "slurm" / "dp"), {},
                              [](const fs::directory_entry& e) {
                                return e.path().filename().string().rfind("submit-", 0) == 0;
                              }));
  EXPECT_NE(script.find("#SBATCH --ntasks=2"), std::string::npos) << script;
  EXPECT_NE(script.find("srun --ntasks=2"), std::string::npos) << script;
}

// SIGUSR2 to a running task's batch shell (what --signal=B:USR2@90 delivers before a time
// limit): the worker checkpoints at the next update, puts its run back in the queue and has
// Slurm requeue the task, which claims the run again and finishes it. Every metric row equals
// the same config's uninterrupted run (local launcher): none lost, none repeated.
TEST_F(SlurmSweep, SignalledTaskIsRequeuedAndMatchesAnUninterruptedRun) {
  const std::string set =
      "set:\n  train.max_updates: 400\n  train.log_every: 7\n  train.valid_every: 100\n";
  const std::string sweep =
      write_sweep("pre", "name: pre\nbase: base.yaml\nseeds: [3]\n" + set + "slurm:\n  cpus: 1\n");
  // scontrol requeue is answered 2 s late, as a busy slurmctld may: the requeue's SIGTERM to
  // the job's processes then certainly reaches scontrol before it ends (CI saw "failed ()").
  const auto scontrol = fathom::find_on_path("scontrol");
  ASSERT_TRUE(scontrol);
  const fs::path slow = dir_ / "slow-scontrol";
  fs::create_directories(slow);
  std::ofstream(slow / "scontrol") << "#!/bin/sh\n"
                                   << *scontrol << " \"$@\"\nstatus=$?\n"
                                   << "if [ \"$1\" = requeue ]; then sleep 2; fi\nexit $status\n";
  fs::permissions(slow / "scontrol", fs::perms::owner_all, fs::perm_options::add);
  const std::string path = "PATH=" + slow.string() + ":" + std::getenv("PATH");
  ProgramResult result;
  std::thread scheduler([&] {
    result = fathom({"sweep", sweep, "--wait", "--no-progress"}, {path});
  });
  const RunningTask task = wait_for_running_task("pre", 21, INT64_MAX);
  const bool mid_run = static_cast<bool>(task);
  const int64_t id = task.run;
  const std::string job = task.job;
  if (!mid_run) {
    scheduler.join();
    FAIL() << "the run never got past update 21 on Slurm: " << result.out << result.err;
  }
  const ProgramResult signal = fathom::run_program({"scancel", "--signal=USR2", "--batch", job});
  EXPECT_EQ(signal.exit_code, 0) << signal.err;
  scheduler.join();
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;

  const auto record = Store::open(db(), OpenMode::ReadOnly).find_run(std::to_string(id));
  ASSERT_TRUE(record);
  EXPECT_EQ(record->status, "finished") << record->error;
  EXPECT_EQ(record->updates, 400);
  const auto t = tags(id);
  EXPECT_EQ(t.at("slurm.restarts"), "1");  // the same task, requeued once
  const std::string log = read_text(t.at("worker.log"));
  EXPECT_NE(log.find("requeued"), std::string::npos) << log;
  EXPECT_NE(log.find("scontrol requeue " + job + ": ok"), std::string::npos) << log;

  const std::string local = write_sweep("ref", "name: ref\nbase: base.yaml\nseeds: [3]\n" + set);
  const ProgramResult ref = fathom({"sweep", local, "--launcher", "local", "--no-progress"});
  ASSERT_EQ(ref.exit_code, 0) << ref.out << ref.err;
  expect_same_metric_rows(id, runs("ref").at(0).id);
}

// The same warning to a two-task step (train.processes 2): the batch shell has exec'd srun,
// which passes USR2 on to both tasks; the ranks agree on the stop in an update's all-reduce,
// rank 0 checkpoints and requeues, and the requeued step finishes the run on two ranks with
// the metric rows of an uninterrupted two-rank run (local launcher).
TEST_F(SlurmSweep, SignalledTwoTaskStepIsRequeuedAndMatchesAnUninterruptedRun) {
  std::ofstream(dir_ / "dp-base.yaml") << fathom::testing::tiny_config_yaml(
      "dp",
      "{lr: 0.005, warmup: 10, max_updates: 300, valid_every: 100, log_every: 7, "
      "threads: 1, update_tokens: 600, processes: 2}");
  const std::string sweep =
      write_sweep("dpsig", "name: dpsig\nbase: dp-base.yaml\nseeds: [3]\nslurm:\n  cpus: 1\n");
  ProgramResult result;
  std::thread scheduler([&] { result = fathom({"sweep", sweep, "--wait", "--no-progress"}); });
  const RunningTask task = wait_for_running_task("dpsig", 21, 200);
  if (!task) {
    scheduler.join();
    FAIL() << "the run never got past update 21 on Slurm: " << result.out << result.err;
  }
  const ProgramResult signal =
      fathom::run_program({"scancel", "--signal=USR2", "--batch", task.job});
  EXPECT_EQ(signal.exit_code, 0) << signal.err;
  scheduler.join();
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;

  const auto record = Store::open(db(), OpenMode::ReadOnly).find_run(std::to_string(task.run));
  ASSERT_TRUE(record);
  const auto t = tags(task.run);
  EXPECT_EQ(record->status, "finished") << record->error << read_text(t.at("worker.log"));
  EXPECT_EQ(record->updates, 300);
  EXPECT_EQ(t.at("slurm.restarts"), "1") << read_text(t.at("worker.log"));
  EXPECT_NE(read_text(t.at("worker.log")).find("requeued"), std::string::npos);

  const std::string local = write_sweep("dpref", "name: dpref\nbase: dp-base.yaml\nseeds: [3]\n");
  const ProgramResult ref = fathom({"sweep", local, "--launcher", "local", "--no-progress"});
  ASSERT_EQ(ref.exit_code, 0) << ref.out << ref.err;
  expect_same_metric_rows(task.run, runs("dpref").at(0).id);
}

// A task killed outright (SIGKILL: no warning, no checkpoint of its own) leaves Slurm's queue
// with its run still "running" in the store: the following scheduler marks it crashed with
// Slurm's account of the job, and `--resume` submits a new array that finishes the run from
// its last checkpoint, every logged step exactly once.
TEST_F(SlurmSweep, KilledTaskIsCrashedThenResumedFromItsCheckpoint) {
  const std::string sweep =
      write_sweep("killed",
                  "name: killed\nbase: base.yaml\nseeds: [5]\nset:\n  train.max_updates: 5000\n"
                  "  train.log_every: 5\n  train.valid_every: 50\nslurm:\n  cpus: 1\n");
  ProgramResult first;
  std::thread scheduler([&] { first = fathom({"sweep", sweep, "--wait", "--no-progress"}); });
  const RunningTask task = wait_for_running_task("killed", 60, 2500);  // mid-run
  const bool mid_run = static_cast<bool>(task);
  const int64_t id = task.run;
  const std::string job = task.job;
  if (mid_run) {
    // --batch: only the signal, to the batch shell (the worker); not a cancellation, which
    // would send SIGTERM first.
    const ProgramResult kill = fathom::run_program({"scancel", "--batch", "--signal=KILL", job});
    EXPECT_EQ(kill.exit_code, 0) << kill.err;
  }
  scheduler.join();
  ASSERT_TRUE(mid_run) << first.out << first.err;
  // A crashed run is not a finished sweep: --wait exits 1 (it used to say 0).
  ASSERT_EQ(first.exit_code, 1) << first.out << first.err;
  EXPECT_NE(first.out.find("1 crashed"), std::string::npos) << first.out;
  auto record = Store::open(db(), OpenMode::ReadOnly).find_run(std::to_string(id));
  ASSERT_TRUE(record);
  ASSERT_EQ(record->status, "crashed");
  EXPECT_NE(record->error.find("Slurm job"), std::string::npos) << record->error;

  const ProgramResult resumed = fathom({"sweep", sweep, "--resume", "--wait", "--no-progress"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  record = Store::open(db(), OpenMode::ReadOnly).find_run(std::to_string(id));
  EXPECT_EQ(record->status, "finished") << record->error;
  std::vector<int64_t> steps, expected;
  for (const auto& p : Store::open(db(), OpenMode::ReadOnly).metric_series(id, "train_loss"))
    steps.push_back(p.step);
  for (int64_t step = 5; step <= 5000; step += 5) expected.push_back(step);
  EXPECT_EQ(steps, expected);
}

// A task frozen on its node (SIGSTOP: a node that swaps): the resume that judges its worker
// lost cancels its job (scancel) before it queues the run again, so the frozen task holds no
// node while another trains its run, and says so; the job leaves Slurm's queue.
TEST_F(SlurmSweep, AFrozenTaskIsCancelledWhenItsWorkerIsJudgedLost) {
  const std::string sweep =
      write_sweep("frozen",
                  "name: frozen\nbase: base.yaml\nseeds: [3]\nset:\n  train.max_updates: 1000000\n"
                  "  train.log_every: 5\nslurm:\n  cpus: 1\n");
  const std::vector<std::string> fast = {"--heartbeat-interval", "1", "--heartbeat-timeout", "5",
                                         "--no-progress"};
  std::vector<std::string> submit = {"sweep", sweep};
  submit.insert(submit.end(), fast.begin(), fast.end());
  const ProgramResult submitted = fathom(submit);
  ASSERT_EQ(submitted.exit_code, 0) << submitted.out << submitted.err;
  const RunningTask task = wait_for_running_task("frozen", 20, 1000000);
  ASSERT_TRUE(task) << "no task started";
  const pid_t worker = static_cast<pid_t>(std::stoll(tags(task.run).at("worker.pid")));
  ASSERT_EQ(kill(worker, SIGSTOP), 0);
  std::this_thread::sleep_for(std::chrono::seconds(7));  // past the heartbeat timeout

  std::vector<std::string> resume = submit;
  resume.push_back("--resume");
  const ProgramResult resumed = fathom(resume);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  EXPECT_NE(resumed.err.find("lost worker of run " + std::to_string(task.run)), std::string::npos)
      << resumed.err << "the run now: " << runs("frozen").front().status << ", "
      << runs("frozen").front().error;
  EXPECT_NE(resumed.err.find("its Slurm job " + task.job), std::string::npos) << resumed.err;
  EXPECT_TRUE(wait_for([&] { return queued_jobs(task.job).empty(); }, 60))
      << "the frozen task's job is still in the queue";
  const ProgramResult cancel = fathom({"sweep", "cancel", "frozen"});  // the new task's run
  EXPECT_EQ(cancel.exit_code, 0) << cancel.err;
  EXPECT_TRUE(wait_for([&] { return !fathom::testing::process_running(worker); }, 60))
      << "the frozen worker still runs";
}

// `fathom sweep cancel` while tasks run and wait: every run is cancelled, the array leaves
// Slurm's queue, and no worker process of the sweep is left on the node.
TEST_F(SlurmSweep, CancelLeavesNoJobBehind) {
  const std::string sweep = write_sweep(
      "long",
      "name: long\nbase: base.yaml\nseeds: [1, 2, 3, 4]\nset:\n  train.max_updates: 1000000\n"
      "slurm:\n  cpus: 1\n  max_parallel: 2\n");
  const ProgramResult submitted = fathom({"sweep", sweep, "--no-progress"});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.out << submitted.err;
  EXPECT_NE(submitted.out.find("fathom sweep status long"), std::string::npos) << submitted.out;
  ASSERT_TRUE(wait_for(
      [&] {
        for (const auto& r : runs("long"))
          if (r.status == "running" && r.updates > 0) return true;
        return false;
      },
      120))
      << "no task started";
  const std::string array = tags(runs("long").front().id).at("slurm.array_job");
  EXPECT_FALSE(queued_jobs(array).empty());

  const ProgramResult cancel = fathom({"sweep", "cancel", "long"});
  ASSERT_EQ(cancel.exit_code, 0) << cancel.err;
  EXPECT_NE(cancel.out.find("4 runs cancelled"), std::string::npos) << cancel.out;
  EXPECT_TRUE(wait_for([&] { return queued_jobs(array).empty(); }, 60)) << "jobs left in the queue";
  for (const auto& r : runs("long")) EXPECT_EQ(r.status, "cancelled") << r.name;
  const std::string needle = "worker --sweep long";
  EXPECT_TRUE(wait_for(
      [&] {
        for (const auto& entry : fs::directory_iterator("/proc")) {
          const std::string pid = entry.path().filename();
          if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
          std::string cmdline = read_text(entry.path() / "cmdline");
          std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
          if (cmdline.find(needle) != std::string::npos &&
              cmdline.find(binary_.string()) != std::string::npos)
            return false;
        }
        return true;
      },
      30))
      << "a worker process of the cancelled sweep still runs";
}

// The documented cluster set-up (docs/cluster.md): workers write to a PostgreSQL store and the
// artifacts root given by $FATHOM_ARTIFACTS. The store's password reaches the tasks only
// through the environment: it is in no output, batch script or log.
TEST_F(SlurmSweep, WorkersWriteToAPostgresStoreAndSharedArtifacts) {
  if (auto why = fathom::testing::postgres_unavailable())
    GTEST_SKIP() << "PostgreSQL test server: " << *why;
  const std::string database = "fathom_slurm_" + std::to_string(getpid());
  const std::string url = fathom::testing::create_postgres_database(database);
  const std::string password = fathom::testing::postgres_password();
  const fs::path shared = dir_ / "shared";
  const std::string sweep =
      write_sweep("pg", "name: pg\nbase: base.yaml\nseeds: [1, 2]\nslurm:\n  cpus: 1\n");
  const ProgramResult r = fathom::run_program(
      {binary_.string(), "sweep", sweep, "--wait", "--no-progress"}, "",
      fathom::environment_with({"FATHOM_DB=" + url, "FATHOM_ARTIFACTS=" + shared.string()}), 600);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  {
    auto store = Store::open(url, OpenMode::ReadOnly);
    const auto list = store.list_runs("pg");
    ASSERT_EQ(list.size(), 2u);
    for (const auto& run : list) {
      EXPECT_EQ(run.status, "finished") << run.error;
      EXPECT_EQ(store.tags(run.id).at("worker.launcher"), "slurm");
      for (const auto& a : store.artifacts(run.id))  // every recorded file is in the shared dir
        EXPECT_TRUE(
            fs::exists(shared / ("run-" + std::to_string(run.id)) / fs::path(a.path).filename()))
            << a.path;
      EXPECT_EQ(read_text(shared / ("run-" + std::to_string(run.id)) / "worker.log").find(password),
                std::string::npos);
    }
  }
  EXPECT_EQ((r.out + r.err).find(password), std::string::npos);
  int scripts = 0;
  for (const auto& entry : fs::directory_iterator(shared / "slurm" / "pg")) {
    EXPECT_EQ(read_text(entry.path()).find(password), std::string::npos) << entry.path();
    scripts += entry.path().extension() == ".sh";
  }
  EXPECT_EQ(scripts, 1);
  fathom::testing::drop_postgres_database(database);
}

// Refusals before anything is queued: each names the sweep file, the line and the key, shows
// Slurm's own words where it refused, and the store holds no run of the sweep afterwards.
TEST_F(SlurmSweep, BadInputIsRefusedWithNothingQueued) {
  struct Case {
    std::string name, slurm, expected_location, expected_text;
    std::vector<std::string> env;
  };
  const std::vector<Case> cases = {
      {"nopart",
       "  partition: nosuch\n",
       "nopart.yaml:5: 'slurm.partition'",
       "no partition 'nosuch'",
       {}},
      {"gpu",
       "  partition: debug\n  gres: gpu:1\n",
       "gpu.yaml:5: 'slurm.partition'",
       "has none",
       {}},
      {"cudaruns", "  partition: debug\n", "cudaruns.yaml", "ask for no GPU", {}},
      {"refused",
       "  extra: [\"--constraint=nosuch\"]\n",
       "refused.yaml",
       "sbatch refused the job array: sbatch: error: Batch job submission failed: Invalid "
       "feature",
       {}},
      {"nosbatch",
       "  cpus: 1\n",
       "nosbatch.yaml",
       "sbatch not found on PATH",
       {"PATH=/nonexistent"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string device = c.name == "cudaruns" ? "set:\n  device: cuda\n" : "";
    const std::string sweep =
        write_sweep(c.name, "name: " + c.name + "\nbase: base.yaml\nseeds: [1, 2]\n" + device +
                                "slurm:\n" + c.slurm);
    const ProgramResult r = fathom({"sweep", sweep, "--no-progress"}, c.env);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(c.expected_location), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.expected_text), std::string::npos) << r.err;
    EXPECT_TRUE(runs(c.name).empty()) << "runs were queued";
  }
}

}  // namespace test_slurm_sweep
