// Fencing under real faults (db/lease.h, docs/reliability.md): a worker declared lost -- frozen
// (SIGSTOP), cut off from the PostgreSQL server by a network partition -- writes nothing once
// its run was taken over, and a server restart mid-sweep loses nothing. Each scenario runs
// `fathom sweep` as a user does and ends with the store compared with an uninterrupted run of
// the same sweep: every run finished once, every metric row present once with the same value,
// and the taken-over run not changed by the old worker after it finished.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "db/metric_names.h"
#include "db/store.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/network_link.h"
#include "tests/support/private_postgres.h"
#include "tests/support/processes.h"
#include "tests/support/shared_sweep_reference.h"
#include "tests/support/store_backends.h"
#include "tests/support/temp_dir.h"

namespace test_fencing {
namespace fs = std::filesystem;
namespace ft = fathom::testing;
using fathom::db::OpenMode;
using fathom::db::RunExport;
using fathom::db::RunRecord;
using fathom::db::Store;

// Long enough to be caught mid-run (about 10 ms an update on 2 cores), short enough for CI;
// checkpoints every 250 updates, so a takeover resumes from one.
const std::string kBase = ft::tiny_config_yaml(
    "tiny", "{lr: 0.005, warmup: 10, max_updates: 1000, valid_every: 250, log_every: 10}");
// Fast failure detection, so a takeover takes seconds: beats every second, lost after 5.
const std::vector<std::string> kFast = {"--heartbeat-interval", "1", "--heartbeat-timeout", "5"};

class FaultScene {
 public:
  FaultScene(const fs::path& dir, std::string store) : dir_(dir), store_(std::move(store)) {
    std::ofstream(dir_ / "base.yaml") << kBase;
  }
  // A sweep file of one run.
  std::string sweep(const std::string& name) const {
    const fs::path path = dir_ / (name + ".yaml");
    std::ofstream(path) << "name: " << name << "\nbase: base.yaml\nseeds: [1]\n";
    return path.string();
  }
  std::vector<std::string> env(const std::string& store) const {
    return {"FATHOM_DB=" + store, "FATHOM_ARTIFACTS=" + (dir_ / "artifacts").string(),
            "FATHOM_DB_RETRY_SECONDS=" + std::to_string(retry_seconds)};
  }
  int retry_seconds = 600;  // how long every process keeps retrying a lost server
  // `[prefix...] fathom sweep FILE ARGS...` in the background, against `store` (default: the
  // scene's), its output in DIR/NAME.log.
  pid_t start(const std::string& file, std::vector<std::string> args, const std::string& log,
              const std::vector<std::string>& prefix = {}, const std::string& store = "") const {
    std::vector<std::string> argv = prefix;
    argv.insert(argv.end(), {ft::built_fathom_binary().string(), "sweep", file, "--no-progress"});
    argv.insert(argv.end(), args.begin(), args.end());
    return ft::spawn(argv, env(store.empty() ? store_ : store), (dir_ / log).string());
  }
  int run(const std::string& file, std::vector<std::string> args, const std::string& log) const {
    return ft::wait_exit(start(file, std::move(args), log));
  }
  // `fathom train ARGS...` in the background against the scene's store, as start() does.
  pid_t start_train(const std::vector<std::string>& args, const std::string& log) const {
    std::vector<std::string> argv = {ft::built_fathom_binary().string(), "train", "--no-progress"};
    argv.insert(argv.end(), args.begin(), args.end());
    return ft::spawn(argv, env(store_), (dir_ / log).string());
  }
  std::optional<RunRecord> run_named(const std::string& name) const {
    try {
      return Store::open(store_, OpenMode::ReadOnly).find_run(name);
    } catch (const std::exception&) {  // the store is still being created
      return std::nullopt;
    }
  }
  std::string log(const std::string& name) const { return ft::read_text(dir_ / name); }
  std::optional<RunRecord> only_run(const std::string& sweep) const {
    try {
      const auto runs = Store::open(store_, OpenMode::ReadOnly).list_runs(sweep);
      if (runs.size() == 1) return runs[0];
    } catch (const std::exception&) {  // the store is still being created
    }
    return std::nullopt;
  }
  // Waits until the sweep's run is running with at least `updates` done; its worker's pid.
  pid_t wait_mid_run(const std::string& sweep, int64_t updates) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
    while (std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      const auto run = only_run(sweep);
      if (!run || run->status != "running" || run->updates < updates) continue;
      const auto tags = Store::open(store_, OpenMode::ReadOnly).tags(run->id);
      if (tags.count("worker.pid")) return static_cast<pid_t>(std::stoll(tags.at("worker.pid")));
    }
    return 0;
  }
  // The files the store records for the run: path -> bytes ("<missing>" when gone).
  std::map<std::string, std::string> recorded_files(int64_t run) const {
    std::map<std::string, std::string> out;
    for (const auto& a : Store::open(store_, OpenMode::ReadOnly).artifacts(run))
      out[a.path] = fs::exists(a.path) ? ft::read_text(a.path) : "<missing>";
    return out;
  }
  // Files in the run's directory that no row names (a lost worker's leftovers); the worker
  // log takes every holder's lines and is no artifact.
  std::vector<std::string> strays(int64_t run) const {
    const auto recorded = recorded_files(run);
    std::vector<std::string> out;
    const fs::path dir = dir_ / "artifacts" / ("run-" + std::to_string(run));
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.path().filename() != "worker.log" && !recorded.count(entry.path().string()))
        out.push_back(entry.path().filename().string());
    return out;
  }
  RunExport snapshot(int64_t run) const {
    return Store::open(store_, OpenMode::ReadOnly).export_run(run);
  }

  const std::string& store() const { return store_; }

 private:
  fs::path dir_;
  std::string store_;
};

// The run a fault hit ended as the uninterrupted one did: finished, the same metric rows with
// the same values (timings aside), the same final metrics.
void expect_equal_to_uninterrupted(const RunExport& got, const RunExport& want) {
  EXPECT_EQ(got.run.status, "finished") << got.run.error;
  EXPECT_EQ(got.run.updates, want.run.updates);
  ASSERT_EQ(got.metrics.size(), want.metrics.size()) << "metric rows lost or duplicated";
  for (size_t i = 0; i < want.metrics.size(); ++i) {
    const auto& [step_w, name_w, value_w, wall_w] = want.metrics[i];
    const auto& [step_g, name_g, value_g, wall_g] = got.metrics[i];
    ASSERT_EQ(name_g, name_w);
    ASSERT_EQ(step_g, step_w) << name_w;
    if (!fathom::db::metric::measures_the_machine(name_w)) {
      EXPECT_EQ(value_g, value_w) << name_w << " at update " << step_w;
    }
  }
  ASSERT_EQ(got.run.final_metrics.size(), want.run.final_metrics.size());
  for (const auto& [name, value] : want.run.final_metrics)
    if (!fathom::db::metric::measures_the_machine(name)) {
      EXPECT_EQ(got.run.final_metrics.at(name), value) << name;
    }
}

// The uninterrupted runs of the sweep of `seeds` on the scenes' base config, in the order the
// sweep made them: made once per build for every test here, in whichever process asks first
// (tests/support/shared_sweep_reference.h) -- training is deterministic given the seed, and each
// test ran its own for 10-15 s of both cores.
std::vector<RunExport> uninterrupted_runs(const std::string& seeds = "[1]") {
  const auto reference =
      ft::shared_sweep_reference(kBase, "base: base.yaml\nseeds: " + seeds + "\n");
  const auto store = Store::open(reference.store, OpenMode::ReadOnly);
  std::vector<RunExport> out;
  for (const auto& run : store.list_runs(reference.sweep)) out.push_back(store.export_run(run.id));
  return out;
}
// The base config's one run (seed 1, the default: a `fathom train` of it is the same run).
RunExport uninterrupted_run() { return uninterrupted_runs().at(0); }

// Nothing about the run changed between two snapshots: its row, every metric row, final
// metric, tag and artifact row, and every file the store records for it.
void expect_untouched(const RunExport& after, const RunExport& before,
                      const std::map<std::string, std::string>& files_after,
                      const std::map<std::string, std::string>& files_before) {
  EXPECT_EQ(after.run.status, before.run.status);
  EXPECT_EQ(after.run.updates, before.run.updates);
  EXPECT_EQ(after.run.finished_at, before.run.finished_at);
  EXPECT_EQ(after.run.heartbeat_at, before.run.heartbeat_at);
  EXPECT_EQ(after.run.lease, before.run.lease);
  EXPECT_EQ(after.run.host, before.run.host);
  EXPECT_EQ(after.run.final_metrics, before.run.final_metrics);
  EXPECT_EQ(after.metrics, before.metrics);
  EXPECT_EQ(after.tags, before.tags);
  ASSERT_EQ(files_after.size(), files_before.size());
  for (const auto& [path, bytes] : files_before) {
    ASSERT_TRUE(files_after.count(path)) << path << " no longer recorded";
    EXPECT_NE(files_after.at(path), "<missing>") << path << " removed";
    EXPECT_TRUE(files_after.at(path) == bytes) << path << " rewritten";
  }
}

class Fencing : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(ft::built_fathom_binary())) << ft::built_fathom_binary();
    if (GetParam() == "postgresql")
      if (auto why = ft::postgres_unavailable()) GTEST_SKIP() << *why;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    store_.emplace(GetParam(), info->name());
  }
  std::optional<ft::ScratchStore> store_;
  ft::TempDir scratch_{true};  // kept for a post-mortem when the test fails
};

// A one-run sweep "frozen" whose scheduler and worker,
// started under `prefix`, were frozen (SIGSTOP) mid-run and left silent past the heartbeat
// timeout: the resume that follows declares the worker lost.
struct FrozenSweep {
  std::string file;
  std::vector<std::string> args;
  pid_t scheduler = 0, worker = 0;
  int64_t at_update = 0;
};

FrozenSweep freeze_mid_run(const FaultScene& scene, const std::vector<std::string>& prefix) {
  FrozenSweep frozen;
  frozen.file = scene.sweep("frozen");
  frozen.args = {"--jobs", "1"};
  frozen.args.insert(frozen.args.end(), kFast.begin(), kFast.end());
  frozen.scheduler = scene.start(frozen.file, frozen.args, "first.log", prefix);
  frozen.worker = scene.wait_mid_run("frozen", 300);
  if (frozen.worker <= 0) return frozen;  // the caller asserts
  // The whole node freezes: scheduler and worker. (Killing the scheduler instead would orphan
  // the worker's stopped process group, and the kernel then wakes it with SIGHUP and SIGCONT.)
  EXPECT_EQ(kill(frozen.scheduler, SIGSTOP), 0);
  EXPECT_EQ(kill(frozen.worker, SIGSTOP), 0);
  frozen.at_update = scene.only_run("frozen")->updates;
  // Silent past the heartbeat timeout: the resume declares it lost and requeues its run (a
  // follower that finds a worker lost marks its run crashed; the next --resume requeues).
  std::this_thread::sleep_for(std::chrono::seconds(7));
  return frozen;
}

// The reproduction of issue 32, on both backends: a sweep's scheduler and its worker, on another
// machine, are frozen (SIGSTOP: a node that swaps, a VM paused); `--resume` here declares the
// worker lost after the heartbeat timeout, requeues the run and a new worker finishes it. Then
// the old worker wakes (SIGCONT): its first write is refused, it exits saying why, and the
// finished run -- rows, tags, times, files -- is exactly as the new worker left it. Without
// fencing it trained on and rewrote the finished run's record. (On this machine the resume
// would put it down instead: the next test.)
TEST_P(Fencing, AFrozenWorkerWakesToFindItsRunTakenAndWritesNothing) {
  if (auto why = ft::another_host_unavailable()) GTEST_SKIP() << *why;
  FaultScene scene(scratch_.path(), store_->location());
  const FrozenSweep frozen = freeze_mid_run(scene, ft::as_another_host("frozen-node"));
  ASSERT_GT(frozen.worker, 0) << scene.log("first.log");
  const std::string& file = frozen.file;
  const std::vector<std::string>& args = frozen.args;
  const pid_t scheduler = frozen.scheduler, worker = frozen.worker;
  const int64_t frozen_at = frozen.at_update;

  std::vector<std::string> resume = args;
  resume.push_back("--resume");
  const int resumed = scene.run(file, resume, "resume.log");
  const RunExport finished = scene.snapshot(scene.only_run("frozen")->id);
  const auto files = scene.recorded_files(finished.run.id);
  ASSERT_EQ(resumed, 0) << scene.log("resume.log");
  ASSERT_EQ(finished.run.status, "finished") << finished.run.error;
  EXPECT_GT(finished.run.lease, 1);  // requeued and claimed again

  ASSERT_EQ(kill(worker, SIGCONT), 0) << "the frozen worker was gone before it woke";
  EXPECT_TRUE(ft::wait_gone(worker, 120)) << "the old worker trained on";
  kill(scheduler, SIGKILL);  // still frozen; its worker is done
  ft::wait_exit(scheduler);
  const std::string worker_log = ft::read_text(
      scratch_.path() / "artifacts" / ("run-" + std::to_string(finished.run.id)) / "worker.log");
  EXPECT_NE(worker_log.find("no longer this worker's"), std::string::npos) << worker_log;
  expect_untouched(scene.snapshot(finished.run.id), finished, scene.recorded_files(finished.run.id),
                   files);
  // What the old worker wrote after the takeover (a checkpoint it could not record) it removed.
  EXPECT_EQ(scene.strays(finished.run.id), std::vector<std::string>{});
  expect_equal_to_uninterrupted(finished, uninterrupted_run());
  std::printf("frozen at update %lld; taken over under lease %lld\n",
              static_cast<long long>(frozen_at), static_cast<long long>(finished.run.lease));
}

// The same freeze on this machine: the resume puts the lost worker down (SIGKILL of the very
// process its tags name) before it takes the run over, so it holds no lock, no memory and no
// device while the new worker trains -- and the reason recorded says so.
TEST_P(Fencing, AFrozenWorkerOnThisMachineIsPutDownBeforeItsRunIsTakenOver) {
  FaultScene scene(scratch_.path(), store_->location());
  const FrozenSweep frozen = freeze_mid_run(scene, {});
  ASSERT_GT(frozen.worker, 0) << scene.log("first.log");
  const std::string& file = frozen.file;
  const std::vector<std::string>& args = frozen.args;
  const pid_t scheduler = frozen.scheduler, worker = frozen.worker;

  std::vector<std::string> resume = args;
  resume.push_back("--resume");
  const pid_t resumed = scene.start(file, resume, "resume.log");
  // Put down within the resume's first judgement, long before the new worker is done.
  const bool put_down = ft::wait_gone(worker, 60);
  const int resume_exit = ft::wait_exit(resumed);
  kill(scheduler, SIGKILL);  // still frozen; its worker is a zombie it never reaped
  ft::wait_exit(scheduler);
  EXPECT_TRUE(put_down) << "the frozen worker still exists after the takeover";
  ASSERT_EQ(resume_exit, 0) << scene.log("resume.log");
  const RunExport finished = scene.snapshot(scene.only_run("frozen")->id);
  ASSERT_EQ(finished.run.status, "finished") << finished.run.error;
  EXPECT_GT(finished.run.lease, 1);
  // The requeue's reason, in the resume's account of the run.
  const std::string said = scene.log("resume.log");
  EXPECT_NE(said.find("(pid " + std::to_string(worker)), std::string::npos) << said;
  EXPECT_NE(said.find("was killed"), std::string::npos) << said;
  expect_equal_to_uninterrupted(finished, uninterrupted_run());
}

// `fathom train --resume` of a run whose `fathom train` froze on this machine (SIGSTOP) and
// fell silent past --heartbeat-timeout: as a sweep's resume does, it puts the frozen process
// down before it takes the run over, and the run ends as an uninterrupted one. A timeout of
// fewer than 3 of the heartbeats the worker recorded is refused, leaving the worker be.
TEST_P(Fencing, AFrozenTrainRunIsPutDownByItsResumeAndTakenOver) {
  FaultScene scene(scratch_.path(), store_->location());
  const std::string base = (scratch_.path() / "base.yaml").string();
  const pid_t frozen =
      scene.start_train({base, "--set", "name=frozen", "--heartbeat-interval", "1"}, "frozen.log");
  std::optional<RunRecord> run;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
  while (std::chrono::steady_clock::now() < deadline &&
         !(run && run->status == "running" && run->updates >= 300)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    run = scene.run_named("frozen");
  }
  ASSERT_TRUE(run && run->updates >= 300) << scene.log("frozen.log");
  ASSERT_EQ(kill(frozen, SIGSTOP), 0);
  std::this_thread::sleep_for(std::chrono::seconds(4));  // past a 3 s timeout

  const std::string id = std::to_string(run->id);
  const auto resume = [&](const std::string& timeout, const std::string& log) {
    return ft::wait_exit(scene.start_train({"--resume", id, "--heartbeat-timeout", timeout}, log),
                         300);
  };
  // 2 s is under 3 beats of the 1 s the frozen worker recorded (worker.heartbeat_interval).
  EXPECT_EQ(resume("2", "too-short.log"), 2) << scene.log("too-short.log");
  EXPECT_NE(scene.log("too-short.log").find("at least 3 beats, 3 s"), std::string::npos)
      << scene.log("too-short.log");
  EXPECT_TRUE(ft::process_running(frozen)) << "a refused resume put the worker down";

  const int resumed = resume("3", "resume.log");
  const bool put_down = ft::wait_gone(frozen, 1);
  const int frozen_exit = ft::wait_exit(frozen, 5);  // reaped, or killed by the timeout
  ASSERT_EQ(resumed, 0) << scene.log("resume.log");
  EXPECT_TRUE(put_down) << "the frozen worker still exists after the takeover";
  EXPECT_EQ(frozen_exit, 128 + SIGKILL);
  const std::string said = scene.log("resume.log");
  EXPECT_NE(said.find("its process (pid " + std::to_string(frozen)), std::string::npos) << said;
  EXPECT_NE(said.find("was killed"), std::string::npos) << said;
  const RunExport finished = scene.snapshot(run->id);
  EXPECT_GT(finished.run.lease, run->lease);
  expect_equal_to_uninterrupted(finished, uninterrupted_run());
}

INSTANTIATE_TEST_SUITE_P(Backends, Fencing, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

// A network partition between a worker and the PostgreSQL server: the scheduler and its worker
// run in a network namespace of the test's own, reaching the server over a veth pair; the link
// is cut for longer than the heartbeat timeout; a scheduler on this side resumes the sweep, so
// another worker takes the run over and finishes it; then the link comes back. The cut-off
// worker's writes are refused once it reaches the server again: the finished run is untouched,
// and the cut-off scheduler ends without marking it anything.
TEST(FencingPartition, AWorkerCutOffFromTheServerWritesNothingAfterTheTakeover) {
  ASSERT_TRUE(fs::exists(ft::built_fathom_binary())) << ft::built_fathom_binary();
  ft::TempDir scratch(true);
  ft::NetworkLink link;
  if (link.failure()) GTEST_SKIP() << *link.failure();
  ft::PrivatePostgres server(
      {"PG_TEST_PEER_ADDRESS=" + link.host_address(), "PG_TEST_PEER_NETWORK=" + link.network()});
  if (server.skipped()) GTEST_SKIP() << *server.skipped();
  FaultScene scene(scratch.path(), server.url());

  const std::string file = scene.sweep("partitioned");
  std::vector<std::string> args = {"--jobs", "1"};
  args.insert(args.end(), kFast.begin(), kFast.end());
  // The far side is another machine: a scheduler here cannot signal its worker, only fence it.
  std::vector<std::string> far_machine = link.inside();
  for (const auto& word : ft::as_another_host("far-node")) far_machine.push_back(word);
  const pid_t far =
      scene.start(file, args, "far.log", far_machine, server.url_via(link.host_address()));
  ASSERT_GT(scene.wait_mid_run("partitioned", 300), 0) << scene.log("far.log");
  ASSERT_TRUE(link.cut());
  std::this_thread::sleep_for(std::chrono::seconds(7));  // past the heartbeat timeout

  std::vector<std::string> resume = args;
  resume.push_back("--resume");
  const int resumed = scene.run(file, resume, "near.log");
  const RunExport finished = scene.snapshot(scene.only_run("partitioned")->id);
  const auto files = scene.recorded_files(finished.run.id);
  ASSERT_TRUE(link.restore());
  ASSERT_EQ(resumed, 0) << scene.log("near.log");
  ASSERT_EQ(finished.run.status, "finished") << finished.run.error;

  // The far side reconnects (keepalives end its dead connection within about 30 s), is
  // refused, and its scheduler ends.
  const int far_exit = ft::wait_exit(far, 300);
  const std::string worker_log = ft::read_text(
      scratch.path() / "artifacts" / ("run-" + std::to_string(finished.run.id)) / "worker.log");
  EXPECT_NE(worker_log.find("no longer this worker's"), std::string::npos) << worker_log;
  EXPECT_NE(far_exit, -1) << "the cut-off scheduler never ended: " << scene.log("far.log");
  expect_untouched(scene.snapshot(finished.run.id), finished, scene.recorded_files(finished.run.id),
                   files);
  EXPECT_EQ(scene.strays(finished.run.id), std::vector<std::string>{});
  expect_equal_to_uninterrupted(finished, uninterrupted_run());
}

// The PostgreSQL server restarts (a fast shutdown: every session cut) while a sweep's two
// workers train: each retries on a fresh connection, nothing is lost or written twice, and the
// sweep ends as an uninterrupted one.
TEST(FencingRestart, APostgresRestartMidSweepLosesNothing) {
  ASSERT_TRUE(fs::exists(ft::built_fathom_binary())) << ft::built_fathom_binary();
  ft::TempDir scratch(true);
  ft::PrivatePostgres server;
  if (server.skipped()) GTEST_SKIP() << *server.skipped();
  FaultScene scene(scratch.path(), server.url());
  const auto two_runs = [&](const std::string& name) {
    const fs::path path = scratch.path() / (name + ".yaml");
    std::ofstream(path) << "name: " << name << "\nbase: base.yaml\nseeds: [1, 2]\n";
    return path.string();
  };
  const pid_t sweep = scene.start(two_runs("restarted"), {"--jobs", "2"}, "restarted.log");
  bool mid_run = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
  while (!mid_run && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    try {
      const auto runs = Store::open(server.url(), OpenMode::ReadOnly).list_runs("restarted");
      mid_run = runs.size() == 2 && runs[0].status == "running" && runs[1].status == "running" &&
                runs[0].updates >= 200 && runs[1].updates >= 200;
    } catch (const std::exception&) {
    }
  }
  ASSERT_TRUE(mid_run) << scene.log("restarted.log");
  ASSERT_TRUE(server.restart());
  ASSERT_EQ(ft::wait_exit(sweep), 0) << scene.log("restarted.log");
  EXPECT_NE(scene.log("restarted.log").find("reconnecting"), std::string::npos)
      << "the restart went unnoticed: " << scene.log("restarted.log");

  auto store = Store::open(server.url(), OpenMode::ReadOnly);
  const auto got = store.list_runs("restarted");
  const auto want = uninterrupted_runs("[1, 2]");
  ASSERT_EQ(got.size(), 2u);
  ASSERT_EQ(want.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    SCOPED_TRACE(got[i].name);
    EXPECT_EQ(got[i].lease, 1) << "a restart is no reason to take a run from its worker";
    expect_equal_to_uninterrupted(store.export_run(got[i].id), want[i]);
  }
}

// An outage of the store longer than the retry budget is no fault of the run: the worker that
// meets it leaves its run crashed -- recorded once the server answers again -- which --resume
// continues, never failed (which --resume keeps as it is).
TEST(StoreOutage, ARunCutOffLongerThanTheRetryBudgetIsResumable) {
  ASSERT_TRUE(fs::exists(ft::built_fathom_binary())) << ft::built_fathom_binary();
  if (auto why = ft::postgres_unavailable()) GTEST_SKIP() << *why;
  ft::ScratchStore store("postgresql", "StoreOutage");
  const std::string database = store.location().substr(store.location().rfind('/') + 1);
  ft::TempDir scratch(true);
  FaultScene scene(scratch.path(), store.location());

  scene.retry_seconds = 6;
  const std::string file = scene.sweep("outage");
  std::vector<std::string> args = {"--jobs", "1"};
  args.insert(args.end(), kFast.begin(), kFast.end());
  const pid_t scheduler = scene.start(file, args, "outage.log");
  const pid_t worker = scene.wait_mid_run("outage", 300);
  ASSERT_GT(worker, 0) << scene.log("outage.log");
  // The database refuses every connection and drops the open ones: for the worker, a server
  // that is gone. Back after 9 s: past the 6 s the worker's write retries, within the 6 s
  // that recording its run's end then retries.
  ft::postgres_exec("postgres", "ALTER DATABASE \"" + database + "\" ALLOW_CONNECTIONS false");
  ft::postgres_exec(
      "postgres",
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + database + "'");
  std::this_thread::sleep_for(std::chrono::seconds(9));
  ft::postgres_exec("postgres", "ALTER DATABASE \"" + database + "\" ALLOW_CONNECTIONS true");
  ft::wait_exit(scheduler, 300);            // it lost the store too: its exit says so, not the run
  ASSERT_TRUE(ft::wait_gone(worker, 120));  // the worker records its run's end, then exits

  const RunRecord cut = *scene.only_run("outage");
  EXPECT_EQ(cut.status, "crashed") << cut.error;
  EXPECT_NE(cut.error.find("gave up"), std::string::npos) << cut.error;

  scene.retry_seconds = 600;
  std::vector<std::string> resume = args;
  resume.push_back("--resume");
  ASSERT_EQ(scene.run(file, resume, "resume.log"), 0) << scene.log("resume.log");
  expect_equal_to_uninterrupted(scene.snapshot(cut.id), uninterrupted_run());
}

}  // namespace test_fencing
