// Acting on runs that workers may be training (experiments/run_control.h): lost_worker's
// verdicts from the heartbeat and from the local launcher's view of a worker process, and
// cancel_runs -- the store's statuses and which processes get SIGTERM. Over a real SQLite
// store in a scratch directory, with real child processes standing in for workers.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "db/store.h"
#include "experiments/run_control.h"
#include "experiments/worker_tags.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using fathom::db::NewRun;
using fathom::db::RunRecord;
using fathom::db::Store;
using fathom::db::unix_now;

namespace test_run_control {

// This host's name, as gethostname() gives it (what a local worker records as worker.host).
std::string this_host() {
  char buffer[256] = {0};
  EXPECT_EQ(gethostname(buffer, sizeof buffer - 1), 0);
  return buffer;
}

// /proc/PID/cmdline with its NULs as spaces; "" when the process is gone.
std::string cmdline_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  for (char& c : text)
    if (c == '\0') c = ' ';
  return text;
}

// Reaps `pid` within `timeout_s`; its wait status, or nullopt while it still runs.
std::optional<int> wait_for_exit(pid_t pid, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  do {
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  } while (std::chrono::steady_clock::now() < deadline);
  return std::nullopt;
}

class RunControlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_.emplace(Store::open((dir_ / "runs.db").string()));
    host_ = this_host();
  }
  void TearDown() override {
    for (pid_t pid : children_) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    store_.reset();
  }

  // Starts `bash -c script` and waits until its command line starts with `argv0` (the script
  // exec'd its program), so the test never judges the fork's copy of this binary. Killed in
  // TearDown unless the test reaps it.
  pid_t spawn(const std::string& script, const std::string& argv0) {
    const pid_t pid = fork();
    if (pid == 0) {
      execl("/bin/bash", "bash", "-c", script.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    EXPECT_GT(pid, 0);
    children_.push_back(pid);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (cmdline_of(pid).rfind(argv0 + " ", 0) != 0 &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_EQ(cmdline_of(pid).rfind(argv0 + " ", 0), 0u) << "'" << cmdline_of(pid) << "'";
    return pid;
  }
  // A live process whose command line holds "fathom", like a real worker's.
  pid_t spawn_fathom_like() { return spawn("exec -a fathom-test sleep 30", "fathom-test"); }
  // A live process that is no worker of ours (a reused pid).
  pid_t spawn_unrelated() { return spawn("exec sleep 30", "sleep"); }
  // The pid of a child that exited and was reaped: no process has it (for now).
  static pid_t dead_pid() {
    const pid_t pid = fork();
    if (pid == 0) _exit(0);
    EXPECT_GT(pid, 0);
    EXPECT_EQ(waitpid(pid, nullptr, 0), pid);
    EXPECT_NE(kill(pid, 0), 0);
    return pid;
  }
  void forget(pid_t pid) {
    children_.erase(std::remove(children_.begin(), children_.end(), pid), children_.end());
  }

  int64_t queued_run(const std::string& name) {
    NewRun r;
    r.name = name;
    r.sweep = "sw";
    r.config_json = "{}";
    r.config_yaml = "{}\n";
    return store_->create_run(r);
  }
  // A running run on `host`, with these tags.
  int64_t running_run(const std::string& name, const std::string& host,
                      const std::map<std::string, std::string>& tags = {}) {
    const int64_t id = queued_run(name);
    store_->mark_running(id, host, "cpu");
    for (const auto& [k, v] : tags) store_->set_tag(id, k, v);
    return id;
  }
  // The tags of a local worker with process `pid` on `host`.
  static std::map<std::string, std::string> local_worker(const std::string& host, pid_t pid) {
    return {
        {"worker.launcher", "local"}, {"worker.host", host}, {"worker.pid", std::to_string(pid)}};
  }
  RunRecord record(int64_t id) const {
    auto run = store_->find_run(std::to_string(id));
    EXPECT_TRUE(run) << id;
    return run ? *run : RunRecord{};
  }

  fathom::testing::TempDir scratch_;  // removed when the test ends
  const fs::path& dir_ = scratch_.path();
  std::optional<Store> store_;
  std::string host_;
  std::vector<pid_t> children_;
};

// The whole seconds in "... no heartbeat for N s ...", or -1.
long long silent_seconds(const std::string& reason) {
  const std::string marker = "no heartbeat for ";
  const auto at = reason.find(marker);
  if (at == std::string::npos) return -1;
  return std::stoll(reason.substr(at + marker.size()));
}

// ---- lost_worker ----------------------------------------------------------------------------

TEST_F(RunControlTest, FreshHeartbeatWithoutTagsIsAlive) {
  const int64_t id = running_run("r", "node7");
  const RunRecord run = record(id);
  EXPECT_EQ(run.status, "running");
  EXPECT_FALSE(fathom::experiments::lost_worker(*store_, run, unix_now(), 180));
  // Silent, but not yet for longer than the timeout.
  EXPECT_FALSE(fathom::experiments::lost_worker(*store_, run, run.heartbeat_at + 170, 180));
}

// A run claimed on this host whose worker never recorded itself (its scheduler was killed
// between the claim and the launch, found by the fault campaign): lost once kUnstartedGrace
// has passed since the claim, long before the heartbeat timeout; not before, and never when a
// worker did record itself.
TEST_F(RunControlTest, ClaimedHereButNeverStartedIsLostAfterTheGrace) {
  const int64_t id = running_run("r", host_);
  const RunRecord run = record(id);
  EXPECT_TRUE(fathom::experiments::never_started(store_->tags(id)));
  EXPECT_FALSE(fathom::experiments::lost_worker(
      *store_, run, run.heartbeat_at + fathom::experiments::kUnstartedGrace - 1, 180));
  const auto why = fathom::experiments::lost_worker(
      *store_, run, run.heartbeat_at + fathom::experiments::kUnstartedGrace + 1, 180);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("no worker was ever started"), std::string::npos) << *why;
  // Claimed on another host: only its heartbeat can tell.
  const RunRecord elsewhere = record(running_run("e", "node7"));
  EXPECT_FALSE(
      fathom::experiments::lost_worker(*store_, elsewhere, elsewhere.heartbeat_at + 60, 180));
  // A run of `fathom train` (no sweep) never has worker tags: only its heartbeat tells.
  NewRun single;
  single.name = "single";
  single.config_json = "{}";
  single.config_yaml = "{}\n";
  const int64_t single_id = store_->create_run(single);
  store_->mark_running(single_id, host_, "cpu");
  const RunRecord alone = record(single_id);
  EXPECT_FALSE(fathom::experiments::lost_worker(*store_, alone, alone.heartbeat_at + 60, 180));
  // A worker that recorded itself is judged by its process, not by the grace.
  const pid_t self = getpid();
  const int64_t started = running_run("s", host_, local_worker(host_, self));
  EXPECT_FALSE(fathom::experiments::never_started(store_->tags(started)));
}

// While every writer waited on a frozen lock holder (experiments/write_lock_watch.h), a
// worker's silence is the holder's doing: it counts only from the moment the store was last
// seen blocked.
TEST_F(RunControlTest, SilenceCountsOnlyFromWhenTheStoreWasLastBlocked) {
  const RunRecord run = record(running_run("r", "node7"));
  const double beat = run.heartbeat_at;
  EXPECT_TRUE(fathom::experiments::lost_worker(*store_, run, beat + 200, 180));
  EXPECT_FALSE(fathom::experiments::lost_worker(*store_, run, beat + 200, 180, beat + 100));
  EXPECT_TRUE(fathom::experiments::lost_worker(*store_, run, beat + 281, 180, beat + 100));
  // A block before the last beat changes nothing.
  EXPECT_TRUE(fathom::experiments::lost_worker(*store_, run, beat + 200, 180, beat - 50));
}

TEST_F(RunControlTest, SilentHeartbeatIsLost) {
  const int64_t id = running_run("r", "node7");
  const RunRecord run = record(id);
  const auto why = fathom::experiments::lost_worker(*store_, run, unix_now() + 1000, 180);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("no heartbeat for"), std::string::npos) << *why;
  const long long silent = silent_seconds(*why);
  EXPECT_GE(silent, 999) << *why;
  EXPECT_LE(silent, 1002) << *why;
  EXPECT_NE(why->find("node7"), std::string::npos) << *why;  // where the worker was
  // A longer timeout forgives the same silence.
  EXPECT_FALSE(fathom::experiments::lost_worker(*store_, run, run.heartbeat_at + 1000, 1200));
}

TEST_F(RunControlTest, OnlyRunningRunsCanBeLost) {
  const int64_t queued = queued_run("q");
  const int64_t finished = running_run("f", "node7");
  store_->finish_run(finished, "finished");
  const int64_t crashed = running_run("c", "node7");
  store_->finish_run(crashed, "crashed", "segfault");
  const double later = unix_now() + 1000;
  EXPECT_EQ(record(queued).status, "queued");
  EXPECT_FALSE(fathom::experiments::lost_worker(*store_, record(queued), later, 180));
  EXPECT_EQ(record(finished).status, "finished");
  EXPECT_FALSE(fathom::experiments::lost_worker(*store_, record(finished), later, 180));
  EXPECT_FALSE(fathom::experiments::lost_worker(*store_, record(crashed), later, 180));
}

TEST_F(RunControlTest, LocalWorkerWhoseProcessIsGoneIsLost) {
  const pid_t pid = dead_pid();
  const int64_t id = running_run("r", host_, local_worker(host_, pid));
  // The heartbeat is fresh: only the launcher can tell.
  const auto why = fathom::experiments::lost_worker(*store_, record(id), unix_now(), 180);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("is gone"), std::string::npos) << *why;
  EXPECT_NE(why->find("pid " + std::to_string(pid)), std::string::npos) << *why;
  EXPECT_EQ(why->find("no heartbeat"), std::string::npos) << *why;
}

// A run claimed again (a resume requeued it, a worker took it) keeps its last holder's tags
// until the new worker records itself. Their dead pid is not the new holder's: a second
// `sweep --resume` judged such a run lost and fenced off the first's live worker (issue 57
// item 10). Tags of the current lease still tell; stale ones leave it to the heartbeat and,
// on this host, to the never-started grace.
TEST_F(RunControlTest, AnEarlierHoldersTagsDoNotSpeakForTheNewOne) {
  const pid_t pid = dead_pid();
  auto tags = local_worker(host_, pid);
  const int64_t stale = running_run("stale", host_, tags);
  const RunRecord run = record(stale);
  store_->set_tag(stale, "worker.lease", std::to_string(run.lease - 1));
  EXPECT_FALSE(fathom::experiments::lost_worker(*store_, run, unix_now(), 180));
  const auto unstarted = fathom::experiments::lost_worker(
      *store_, run, run.heartbeat_at + fathom::experiments::kUnstartedGrace + 1, 180);
  ASSERT_TRUE(unstarted);
  EXPECT_NE(unstarted->find("no worker was ever started"), std::string::npos) << *unstarted;
  // ... and so a scheduler puts it back in the queue rather than recording it crashed: nothing
  // ran under this claim (the fault campaign's scheduler killed between claim and launch).
  EXPECT_TRUE(fathom::experiments::never_started(run, store_->tags(stale)));
  EXPECT_FALSE(fathom::experiments::never_started(store_->tags(stale)));

  const int64_t current = running_run("current", host_, tags);
  store_->set_tag(current, "worker.lease", std::to_string(record(current).lease));
  const auto why = fathom::experiments::lost_worker(*store_, record(current), unix_now(), 180);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("is gone"), std::string::npos) << *why;
  EXPECT_FALSE(fathom::experiments::never_started(record(current), store_->tags(current)));
}

// What a holder records carries its lease: the next holder's claim makes it an earlier one's.
TEST_F(RunControlTest, RecordedWorkerTagsCarryTheirLease) {
  const int64_t id = running_run("r", host_);
  const RunRecord run = record(id);
  fathom::experiments::record_worker_tags(*store_, fathom::db::Lease{id, run.lease},
                                          fathom::experiments::holder_tags("local", getpid()));
  EXPECT_EQ(store_->tags(id).at("worker.lease"), std::to_string(run.lease));
  EXPECT_FALSE(fathom::experiments::tags_of_earlier_holder(run, store_->tags(id)));
  RunRecord reclaimed = run;
  reclaimed.lease = run.lease + 1;
  EXPECT_TRUE(fathom::experiments::tags_of_earlier_holder(reclaimed, store_->tags(id)));
}

TEST_F(RunControlTest, LocalWorkerOnRunHostWithoutHostTagIsJudgedToo) {
  // Workers recorded before launchers existed carry only worker.pid; the run's host counts.
  const pid_t pid = dead_pid();
  const int64_t id = running_run("r", host_, {{"worker.pid", std::to_string(pid)}});
  const auto why = fathom::experiments::lost_worker(*store_, record(id), unix_now(), 180);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("is gone"), std::string::npos) << *why;
}

TEST_F(RunControlTest, LiveLocalWorkerIsNotLost) {
  const pid_t pid = spawn_fathom_like();
  const int64_t id = running_run("r", host_, local_worker(host_, pid));
  EXPECT_FALSE(fathom::experiments::lost_worker(*store_, record(id), unix_now(), 180));
  // Alive but silent (frozen): the heartbeat still tells.
  const auto why = fathom::experiments::lost_worker(*store_, record(id), unix_now() + 1000, 180);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("no heartbeat for"), std::string::npos) << *why;
}

TEST_F(RunControlTest, UnrelatedProcessWithTheWorkersPidIsGone) {
  // The pid was reused by a process that is no fathom worker.
  const pid_t pid = spawn_unrelated();
  const int64_t id = running_run("r", host_, local_worker(host_, pid));
  const auto why = fathom::experiments::lost_worker(*store_, record(id), unix_now(), 180);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("is gone"), std::string::npos) << *why;
}

// A Python training loop's run (worker.external, experiments/worker_tags.h): its process names
// no fathom and may even be gone from this host's view, yet while its heartbeat is fresh it is
// no lost worker; once silent it is lost, said as the external writer's. An earlier holder's
// external tag does not speak for a Fathom worker that claimed the run since.
TEST_F(RunControlTest, AnExternalWritersRunIsJudgedByItsHeartbeatAlone) {
  for (const pid_t pid : {spawn_unrelated(), dead_pid()}) {
    auto tags = local_worker(host_, pid);
    tags["worker.launcher"] = "python";
    tags["worker.external"] = "python";
    const int64_t id = running_run("py-" + std::to_string(pid), host_, tags);
    store_->set_tag(id, "worker.lease", std::to_string(record(id).lease));
    EXPECT_FALSE(fathom::experiments::lost_worker(*store_, record(id), unix_now(), 180)) << pid;
    EXPECT_FALSE(fathom::experiments::never_started(record(id), store_->tags(id)));
    const auto why = fathom::experiments::lost_worker(*store_, record(id), unix_now() + 1000, 180);
    ASSERT_TRUE(why);
    EXPECT_NE(why->find("no heartbeat for"), std::string::npos) << *why;
    EXPECT_NE(why->find("(python writer on " + host_ + ")"), std::string::npos) << *why;
  }
  // Claimed again by a Fathom worker (lease 2), whose own tags are not recorded yet: the
  // external tag is the earlier holder's, and the dead pid it names says nothing either.
  auto tags = local_worker(host_, dead_pid());
  tags["worker.external"] = "python";
  tags["worker.lease"] = "1";
  const int64_t id = running_run("taken", host_, tags);
  store_->mark_running(id, host_, "cpu");  // a new claim: lease 2
  ASSERT_GT(record(id).lease, 1);
  EXPECT_EQ(fathom::experiments::external_writer(record(id), store_->tags(id)), "");
}

TEST_F(RunControlTest, WorkerOnAnotherHostIsJudgedByHeartbeatOnly) {
  const pid_t pid = dead_pid();  // no process here has it, but the worker is not here
  const int64_t id = running_run("r", "elsewhere", local_worker("elsewhere", pid));
  EXPECT_FALSE(fathom::experiments::lost_worker(*store_, record(id), unix_now(), 180));
  const auto why = fathom::experiments::lost_worker(*store_, record(id), unix_now() + 1000, 180);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("no heartbeat for"), std::string::npos) << *why;
  EXPECT_NE(why->find("elsewhere"), std::string::npos) << *why;
}

TEST_F(RunControlTest, StaleRecordOfAFinishedRunIsNotLost) {
  const pid_t pid = dead_pid();
  const int64_t id = running_run("r", host_, local_worker(host_, pid));
  const RunRecord listed = record(id);
  ASSERT_EQ(listed.status, "running");
  ASSERT_TRUE(
      fathom::experiments::lost_worker(*store_, listed, unix_now(), 180));  // gone, while running
  // The worker recorded its end and exited after the listing was taken.
  store_->finish_run(id, "finished");
  EXPECT_FALSE(fathom::experiments::lost_worker(*store_, listed, unix_now(), 180));
  EXPECT_FALSE(fathom::experiments::lost_worker(*store_, listed, unix_now() + 1000, 180));
}

// ---- cancel_runs ----------------------------------------------------------------------------

TEST_F(RunControlTest, CancelStopsQueuedAndRunningRunsAndTheLocalWorker) {
  const int64_t queued = queued_run("q");
  const pid_t worker = spawn_fathom_like();
  const int64_t running = running_run("r", host_, local_worker(host_, worker));
  const int64_t finished = running_run("f", host_);
  store_->finish_run(finished, "finished");

  const auto report =
      fathom::experiments::cancel_runs(*store_, store_->list_runs("sw"), "cancelled by test");
  EXPECT_EQ(report.cancelled, 2);
  EXPECT_TRUE(report.problems.empty()) << report.problems.front();

  const auto status = wait_for_exit(worker, 5);
  ASSERT_TRUE(status) << "the worker was not stopped within 5 s";
  forget(worker);
  EXPECT_TRUE(WIFSIGNALED(*status));
  EXPECT_EQ(WTERMSIG(*status), SIGTERM);

  EXPECT_EQ(record(queued).status, "cancelled");
  EXPECT_EQ(record(queued).error, "cancelled by test");
  EXPECT_GT(record(queued).finished_at, 0);
  EXPECT_EQ(record(running).status, "cancelled");
  EXPECT_EQ(record(running).error, "cancelled by test");
  EXPECT_EQ(record(finished).status, "finished");
  EXPECT_EQ(record(finished).error, "");
}

TEST_F(RunControlTest, CancelNeverSignalsAnUnrelatedProcess) {
  const pid_t other = spawn_unrelated();
  const int64_t id = running_run("r", host_, local_worker(host_, other));
  const auto report = fathom::experiments::cancel_runs(*store_, {record(id)}, "stop");
  EXPECT_EQ(report.cancelled, 1);
  EXPECT_EQ(record(id).status, "cancelled");
  EXPECT_EQ(record(id).error, "stop");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  int status = 0;
  EXPECT_EQ(waitpid(other, &status, WNOHANG), 0) << "the unrelated process was stopped";
  EXPECT_EQ(kill(other, 0), 0);
}

TEST_F(RunControlTest, CancelLeavesRunsThatEndedSinceTheListing) {
  const int64_t a = queued_run("a");
  const int64_t b = running_run("b", "node7");
  const int64_t c = queued_run("c");
  const auto listed = store_->list_runs("sw");
  ASSERT_EQ(listed.size(), 3u);
  store_->finish_run(b, "finished");  // its worker ended it meanwhile

  const auto report = fathom::experiments::cancel_runs(*store_, listed, "sweep cancelled");
  EXPECT_EQ(report.cancelled, 2);
  EXPECT_EQ(record(a).status, "cancelled");
  EXPECT_EQ(record(b).status, "finished");
  EXPECT_EQ(record(b).error, "");
  EXPECT_EQ(record(c).status, "cancelled");

  // Nothing is left to cancel a second time.
  EXPECT_EQ(fathom::experiments::cancel_runs(*store_, store_->list_runs("sw"), "again").cancelled,
            0);
  EXPECT_EQ(record(a).error, "sweep cancelled");
}

TEST_F(RunControlTest, CancelReportsAWorkerOnAnotherHost) {
  // A fathom-like process here with the recorded pid, but the worker is on another host:
  // it must not be signalled; the report says the worker stops by itself.
  const pid_t here = spawn_fathom_like();
  const int64_t id = running_run("r", "elsewhere", local_worker("elsewhere", here));
  const auto report = fathom::experiments::cancel_runs(*store_, {record(id)}, "stop");
  EXPECT_EQ(report.cancelled, 1);
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_NE(report.problems[0].find("runs on elsewhere"), std::string::npos) << report.problems[0];
  EXPECT_EQ(record(id).status, "cancelled");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(waitpid(here, nullptr, WNOHANG), 0) << "a process on this host was signalled";
}

}  // namespace test_run_control

namespace test_run_control {

// What read-only views show: a running run silent past the timeout as crashed, everything
// else as stored (a queued run has no heartbeat to go stale; an ended one is what it is).
TEST(ShownStatus, StaleRunningRunShowsAsCrashed) {
  RunRecord run;
  run.status = "running";
  run.heartbeat_at = 1000;
  EXPECT_EQ(fathom::experiments::shown_status(run, 1000 + 179, 180), "running");
  EXPECT_EQ(fathom::experiments::shown_status(run, 1000 + 181, 180), "crashed");
  EXPECT_EQ(fathom::experiments::shown_status(run, 1000 + 181),
            "crashed");  // the default timeout is 180 s
  run.heartbeat_at = 0;  // never beat (an old store): nothing to judge by
  EXPECT_EQ(fathom::experiments::shown_status(run, 1e9, 180), "running");
  for (const char* status : {"queued", "finished", "diverged", "failed", "cancelled"}) {
    run.status = status;
    run.heartbeat_at = 1;
    EXPECT_EQ(fathom::experiments::shown_status(run, 1e9, 180), status);
  }
}

}  // namespace test_run_control
