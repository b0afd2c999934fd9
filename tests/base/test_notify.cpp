// Alerts (experiments/notify.h, experiments/notify_command.h; issue 59.3) with real child
// processes: a command that writes a file sees the run's environment; one that fails is
// reported with its status and stderr; one that hangs is killed at its limit with what it
// started, without the caller ever waiting; each event fires once per run, also for a second
// notifier on the same store (a restarted scheduler); stalled fires for a running run whose
// newest metric row is older than the limit; and the config's notify keys refuse bad events.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "base/config/config_io.h"
#include "db/metric_names.h"
#include "db/run_status.h"
#include "db/store.h"
#include "experiments/notify.h"
#include "experiments/sweep_spec.h"
#include "tests/support/fathom_cli.h"
#include "tests/support/input_error.h"
#include "tests/support/temp_dir.h"

namespace fathom {
namespace test_notify {
namespace fs = std::filesystem;
using experiments::CommandEnd;
using experiments::CommandRunner;
using experiments::Notifier;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

TEST(NotifyCommand, ACommandSeesItsEnvironmentAndEndsOk) {
  testing::TempDir dir;
  const fs::path out = dir.path() / "out.txt";
  std::vector<CommandEnd> ends;
  CommandRunner runner([&](const CommandEnd& e) { ends.push_back(e); });
  runner.start(
      "printf '%s %s' \"$FATHOM_EVENT\" \"$FATHOM_RUN_ID\" > " + testing::shell_quote(out.string()),
      {"FATHOM_EVENT=diverged", "FATHOM_RUN_ID=12"}, 10, "run 12 diverged");
  runner.wait_all();
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_TRUE(ends[0].ok) << ends[0].outcome;
  EXPECT_EQ(ends[0].outcome, "ok");
  EXPECT_EQ(testing::read_text(out), "diverged 12");
}

TEST(NotifyCommand, AFailingCommandIsReportedWithItsStatusAndStderr) {
  std::vector<CommandEnd> ends;
  CommandRunner runner([&](const CommandEnd& e) { ends.push_back(e); });
  runner.start("echo 'chat server said no' >&2; exit 3", {}, 10, "run 4 failed");
  runner.wait_all();
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_FALSE(ends[0].ok);
  EXPECT_EQ(ends[0].outcome, "exited with status 3: chat server said no");
  EXPECT_EQ(ends[0].label, "run 4 failed");
}

// A command that hangs (and started a child of its own) is killed at its limit, the grandchild
// too; start() and poll() return at once meanwhile.
TEST(NotifyCommand, AHangingCommandIsKilledWithWhatItStartedAndNeverBlocks) {
  testing::TempDir dir;
  const fs::path late = dir.path() / "late.txt";
  std::vector<CommandEnd> ends;
  CommandRunner runner([&](const CommandEnd& e) { ends.push_back(e); });
  const auto t0 = Clock::now();
  runner.start("(sleep 2; touch " + testing::shell_quote(late.string()) + ") & sleep 30", {}, 0.5,
               "run 7 stalled");
  runner.poll();
  EXPECT_LT(seconds_since(t0), 0.3) << "start and poll must not wait for the command";
  EXPECT_EQ(runner.running(), 1u);
  runner.wait_all();
  const double took = seconds_since(t0);
  EXPECT_GE(took, 0.5);
  EXPECT_LT(took, 5.0);
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_FALSE(ends[0].ok);
  EXPECT_EQ(ends[0].outcome, "was killed after 0.5 s (its time limit)");
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_FALSE(fs::exists(late)) << "the command's own child outlived the kill";
}

// A command whose exit status another part of the process collected (a waitpid(-1), as the
// local launcher once did) still ends, rather than being waited for forever.
TEST(NotifyCommand, ACommandReapedElsewhereStillEnds) {
  std::vector<CommandEnd> ends;
  CommandRunner runner([&](const CommandEnd& e) { ends.push_back(e); });
  runner.start("exit 0", {}, 10, "run 1 finished");
  int status = 0;
  ASSERT_GT(waitpid(-1, &status, 0), 0);
  runner.wait_all();
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(ends[0].outcome, "ended; its exit status was collected elsewhere");
}

class NotifierTest : public ::testing::Test {
 protected:
  void SetUp() override { store_.emplace(db::Store::open((dir_.path() / "runs.db").string())); }
  // A run of sweep "sw" whose config names `on` and a command appending one line per alert.
  int64_t run(const std::string& name, const std::string& on, double stalled_after_s = 1800) {
    db::NewRun r;
    r.name = "sw/" + name;
    r.sweep = "sw";
    RunConfig c;
    c.notify.on = {};
    for (size_t at = 0; at < on.size();) {
      const size_t comma = std::min(on.find(',', at), on.size());
      c.notify.on.push_back(on.substr(at, comma - at));
      at = comma + 1;
    }
    c.notify.command =
        "echo \"$FATHOM_EVENT $FATHOM_RUN_NAME $FATHOM_STATUS $FATHOM_METRIC_VALUE\" >> " +
        testing::shell_quote(log().string());
    c.notify.stalled_after_s = stalled_after_s;
    r.config_json = config_to_json(c).dump();
    return store_->create_run(r);
  }
  fs::path log() const { return dir_.path() / "alerts.txt"; }
  std::string alerts() const { return testing::read_text(log()); }
  void look(Notifier& n) {
    n.observe(store_->list_run_states("sw"));
    n.wait();
  }

  testing::TempDir dir_;
  std::optional<db::Store> store_;
};

TEST_F(NotifierTest, EachEventFiresOncePerRunAcrossRestarts) {
  const int64_t a = run("a", "diverged,finished");
  const int64_t b = run("b", "finished");  // diverges, but alerts only when finished
  const int64_t c = run("c", "finished");
  const db::Lease lease_a = store_->mark_running(a, "here", "cpu");
  store_->write_metrics(lease_a, {{10, db::metric::kTrainLoss, 2.5, db::unix_now()}});
  store_->finish_run(lease_a, db::status::kDiverged, "loss exceeded", 10);
  store_->finish_run(store_->mark_running(b, "here", "cpu"), db::status::kDiverged);
  {
    Notifier first(*store_, "sw", nullptr);
    look(first);
    look(first);  // looked at again: nothing new
    EXPECT_EQ(first.alerts_sent(), 1u);
  }
  EXPECT_EQ(alerts(), "diverged sw/a diverged 2.5\n");
  EXPECT_EQ(store_->tags(a).at("notify.diverged"), "ok");
  EXPECT_FALSE(store_->tags(b).count("notify.diverged"));
  // A restarted scheduler: what was sent stays sent; the run that finished since is alerted.
  store_->finish_run(store_->mark_running(c, "here", "cpu"), db::status::kFinished);
  Notifier second(*store_, "sw", nullptr);
  look(second);
  EXPECT_EQ(second.alerts_sent(), 1u);
  EXPECT_EQ(alerts(), "diverged sw/a diverged 2.5\nfinished sw/c finished \n");
}

TEST_F(NotifierTest, SweepFinishedFiresOncePerSweep) {
  const int64_t a = run("a", "sweep_finished");
  run("b", "sweep_finished");
  for (const auto& r : store_->list_run_states("sw"))
    store_->finish_run(store_->mark_running(r.id, "here", "cpu"), db::status::kFinished);
  for (int scheduler = 0; scheduler < 2; ++scheduler) {
    Notifier n(*store_, "sw", nullptr);
    n.sweep_finished(store_->list_run_states("sw"));
    n.wait();
  }
  EXPECT_EQ(alerts(), "sweep_finished sw/a finished \n");
  EXPECT_EQ(store_->tags(a).at("notify.sweep_finished"), "ok");
}

// Stalled: running, with no new metric row for notify.stalled_after_s -- counted from the
// newest row or from when the notifier saw the run running, whichever is later (a run resumed
// after a long pause has only old rows at first, and is not stalled for that).
TEST_F(NotifierTest, StalledFiresForARunningRunWithoutNewRows) {
  const int64_t quiet = run("quiet", "stalled", 0.5);
  const int64_t busy = run("busy", "stalled", 0.5);
  const int64_t slow = run("slow", "stalled", 30);
  const double hour_ago = db::unix_now() - 3600;
  const db::Lease busy_lease = store_->mark_running(busy, "here", "cpu");
  for (const auto& [id, lease] :
       {std::pair{quiet, store_->mark_running(quiet, "here", "cpu")}, std::pair{busy, busy_lease},
        std::pair{slow, store_->mark_running(slow, "here", "cpu")}})
    store_->write_metrics(lease, {{10, db::metric::kTrainLoss, 3.0, hour_ago}});
  Notifier n(*store_, "sw", nullptr);
  look(n);
  EXPECT_EQ(alerts(), "") << "rows an hour old, but the notifier saw the runs start just now";
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  store_->write_metrics(busy_lease, {{20, db::metric::kTrainLoss, 2.9, db::unix_now()}});
  look(n);
  EXPECT_EQ(alerts(), "stalled sw/quiet running 3\n");
  EXPECT_EQ(store_->tags(quiet).at("notify.stalled"), "ok");
  EXPECT_FALSE(store_->tags(busy).count("notify.stalled"));  // a new row
  EXPECT_FALSE(store_->tags(slow).count("notify.stalled"));  // within its 30 s
}

// A failing command is logged and recorded, and the run is not alerted again for it.
TEST_F(NotifierTest, AFailingCommandIsRecordedOnTheRun) {
  db::NewRun r;
  r.name = "sw/x";
  r.sweep = "sw";
  RunConfig c;
  c.notify.on = {"failed"};
  c.notify.command = "echo no route to chat >&2; exit 2";
  r.config_json = config_to_json(c).dump();
  const int64_t id = store_->create_run(r);
  store_->finish_run(store_->mark_running(id, "here", "cpu"), db::status::kFailed, "boom");
  const fs::path logged = dir_.path() / "scheduler.log";
  std::FILE* file = std::fopen(logged.c_str(), "w");
  {
    Notifier n(*store_, "sw", file);
    look(n);
    look(n);
    EXPECT_EQ(n.alerts_sent(), 1u);
  }
  std::fclose(file);
  EXPECT_EQ(store_->tags(id).at("notify.failed"), "exited with status 2: no route to chat");
  EXPECT_EQ(testing::read_text(logged),
            "notify: run " + std::to_string(id) +
                " failed: the command exited with status 2: no route to chat\n");
}

TEST(NotifyConfig, EventsAreAListOfKnownNamesAndNeedACommand) {
  const RunConfig c = load_config_string(
      "notify:\n  on: [diverged, sweep_finished]\n  command: ./post.sh\n", "n.yaml", "");
  EXPECT_EQ(c.notify.on, (std::vector<std::string>{"diverged", "sweep_finished"}));
  EXPECT_EQ(experiments::notify_settings(config_to_json(c).dump())->on.count("diverged"), 1u);
  // A config written out reads back the same.
  EXPECT_EQ(load_config_string(config_to_yaml(c), "again.yaml", "").notify.on, c.notify.on);
  auto bad = testing::expect_input_error([] {
    load_config_string("notify:\n  command: x\n  on: [diverged, exploded]\n", "n.yaml", "");
  });
  EXPECT_EQ(bad.line(), 3);
  EXPECT_NE(std::string(bad.what()).find("'exploded' is not one of"), std::string::npos)
      << bad.what();
  bad = testing::expect_input_error(
      [] { load_config_string("notify:\n  command: x\n  on: [failed, failed]\n", "n.yaml", ""); });
  EXPECT_NE(std::string(bad.what()).find("listed twice"), std::string::npos) << bad.what();
  bad = testing::expect_input_error(
      [] { check_config(load_config_string("notify:\n  on: [failed]\n", "n.yaml", "")); });
  EXPECT_EQ(bad.field(), "notify.on");
  EXPECT_FALSE(experiments::notify_settings(config_to_json(RunConfig{}).dump()));
  // From the notify section alone (the scheduler's start reads it through the store): the same.
  const auto whole = experiments::notify_settings(config_to_json(c).dump());
  const auto section = experiments::notify_section_settings(config_to_json(c)["notify"].dump());
  ASSERT_TRUE(whole && section);
  EXPECT_EQ(section->on, whole->on);
  EXPECT_EQ(section->command, whole->command);
  EXPECT_EQ(section->stalled_after_s, whole->stalled_after_s);
  EXPECT_FALSE(experiments::notify_section_settings(std::nullopt));
  EXPECT_FALSE(experiments::notify_section_settings(std::string("not json")));
}

// A sweep file's notify: section is the config's notify keys, fixed for every run; a bad event
// or an unknown key in it is refused at its line.
TEST(NotifyConfig, ASweepFilesNotifySectionSetsEveryRunsKeys) {
  const std::string head = "name: s\nbase: {data.task: synthetic}\nseeds: [1, 2]\nnotify:\n";
  const auto spec = experiments::load_sweep_string(
      head + "  on: [crashed]\n  command: ./tell.sh\n  timeout_s: 5\n", "s.yaml", "");
  const auto runs = experiments::expand_sweep(spec, {});
  ASSERT_EQ(runs.size(), 2u);
  for (const auto& run : runs) {
    EXPECT_EQ(run.config.notify.on, std::vector<std::string>{"crashed"});
    EXPECT_EQ(run.config.notify.command, "./tell.sh");
    EXPECT_EQ(run.config.notify.timeout_s, 5.0);
  }
  auto bad = testing::expect_input_error([&] {
    experiments::load_sweep_string(head + "  command: x\n  on: [crashd]\n", "s.yaml", "");
  });
  EXPECT_EQ(bad.line(), 6);
  EXPECT_NE(std::string(bad.what()).find("did you mean 'crashed'"), std::string::npos)
      << bad.what();
  bad = testing::expect_input_error([&] {
    experiments::load_sweep_string(head + "  command: x\n  onn: [crashed]\n", "s.yaml", "");
  });
  EXPECT_EQ(bad.field(), "notify.onn");
  bad = testing::expect_input_error(
      [&] { experiments::load_sweep_string(head + "  - crashed\n", "s.yaml", ""); });
  EXPECT_EQ(bad.field(), "notify");
}

}  // namespace test_notify
}  // namespace fathom
