// Fencing (db/lease.h) on every backend: each claim and requeue gives a run a new lease
// generation; a holder's writes are accepted only while its generation is the run's current
// one and the run is running, checked in the write's own transaction. So a worker declared
// lost can never change a run that ended, was requeued or was taken by another worker.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "db/metric_writer.h"
#include "db/store.h"
#include "experiments/run_control.h"
#include "tests/support/store_backends.h"

using namespace fathom::db;

namespace test_store_lease {

class LeaseTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgresql")
      if (auto why = fathom::testing::postgres_unavailable()) GTEST_SKIP() << *why;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    scratch_.emplace(GetParam(), info->name());
  }
  const std::string& location() const { return scratch_->location(); }
  std::optional<fathom::testing::ScratchStore> scratch_;
};

NewRun queued_run(const std::string& name, const std::string& sweep = "sw") {
  NewRun r;
  r.name = name;
  r.sweep = sweep;
  r.config_json = "{}";
  r.config_yaml = "";
  return r;
}

// Every write a holder makes, each as one call with lease `l`.
std::vector<std::pair<std::string, std::function<void(Store&, const Lease&)>>> holder_writes() {
  return {
      {"write_metrics",
       [](Store& s, const Lease& l) {
         s.write_metrics(l, {{9, "loss", 9.0, 1.0}});
       }},
      {"set_final_metric", [](Store& s, const Lease& l) { s.set_final_metric(l, "test_bleu", 1); }},
      {"set_tag", [](Store& s, const Lease& l) { s.set_tag(l, "worker.pid", "666"); }},
      {"add_artifacts",
       [](Store& s, const Lease& l) {
         s.add_artifacts(l, {{"checkpoint_last", "stale.pt", 9}});
       }},
      {"add_artifacts removing",
       [](Store& s, const Lease& l) { s.add_artifacts(l, {}, {"checkpoint_last"}); }},
      {"heartbeat", [](Store& s, const Lease& l) { s.heartbeat(l, 999); }},
      {"touch_heartbeat", [](Store& s, const Lease& l) { s.touch_heartbeat(l); }},
      {"delete_metrics_after", [](Store& s, const Lease& l) { s.delete_metrics_after(l, 0); }},
      {"set_config", [](Store& s, const Lease& l) { s.set_config(l, "stale: 1\n", "{}"); }},
      {"mark_running", [](Store& s, const Lease& l) { s.mark_running(l, "stale-host", "cpu"); }},
      {"finish_run", [](Store& s, const Lease& l) { s.finish_run(l, "finished"); }},
      {"requeue_run", [](Store& s, const Lease& l) { s.requeue_run(l, "stale requeue"); }},
  };
}

// Each generation is the previous plus one, from 0 for a run never claimed: claims (by a
// launcher or by `fathom train`) and requeues count, other writes do not.
TEST_P(LeaseTest, EveryClaimAndRequeueStartsANewGeneration) {
  auto store = Store::open(location());
  const int64_t id = store.create_run(queued_run("a"));
  EXPECT_EQ(store.find_run(std::to_string(id))->lease, 0);
  auto claimed = store.claim_next_run("sw", "node1", "cpu");
  ASSERT_TRUE(claimed);
  EXPECT_EQ(claimed->lease, 1);
  const Lease first{id, 1};
  store.heartbeat(first, 10);
  store.write_metrics(first, {{10, "loss", 1.5, 1.0}});
  EXPECT_EQ(store.find_run(std::to_string(id))->lease, 1);
  store.requeue_run(first, "preempted");
  EXPECT_EQ(store.find_run(std::to_string(id))->lease, 2);
  EXPECT_EQ(store.claim_next_run("sw", "node2", "cpu")->lease, 3);
  EXPECT_EQ(store.mark_running(id, "node3", "cpu").generation, 4);  // `fathom train --resume`
  store.finish_run(Lease{id, 4}, "crashed", "lost");
  EXPECT_TRUE(store.requeue_run(id, "resumed after: lost"));  // `fathom sweep --resume`
  EXPECT_EQ(store.find_run(std::to_string(id))->lease, 5);
}

// The run taken by another holder: every write of the old one throws LeaseLost and changes
// nothing -- not a row, not a value, not a time -- while the new holder's writes go through.
TEST_P(LeaseTest, AnOldHoldersWritesAreRefusedAndChangeNothing) {
  auto store = Store::open(location());
  const int64_t id = store.create_run(queued_run("a"));
  const Lease old = store.mark_running(id, "node1", "cpu");
  store.write_metrics(old, {{1, "loss", 3.0, 1.0}, {2, "loss", 2.0, 2.0}});
  store.add_artifacts(old, {{"checkpoint_last", "checkpoint_last.u2.g1.pt", 2}});
  const Lease now = store.mark_running(id, "node2", "cpu");  // declared lost, taken over
  ASSERT_EQ(now.generation, old.generation + 1);
  store.write_metrics(now, {{3, "loss", 1.0, 3.0}});
  const RunExport before = store.export_run(id);

  for (const auto& [name, write] : holder_writes()) {
    try {
      write(store, old);
      ADD_FAILURE() << name << " of the old holder was accepted";
    } catch (const LeaseLost& e) {
      EXPECT_EQ(e.status_now(), "running") << name;
      EXPECT_EQ(e.generation_now(), now.generation) << name;
      EXPECT_NE(std::string(e.what()).find("taken by another worker"), std::string::npos)
          << e.what();
    }
    const RunExport after = store.export_run(id);
    EXPECT_EQ(after.metrics, before.metrics) << name;
    EXPECT_EQ(after.tags, before.tags) << name;
    EXPECT_EQ(after.run.final_metrics, before.run.final_metrics) << name;
    ASSERT_EQ(after.artifacts.size(), 1u) << name;
    EXPECT_EQ(after.artifacts[0].path, "checkpoint_last.u2.g1.pt") << name;
    EXPECT_EQ(after.run.status, "running") << name;
    EXPECT_EQ(after.run.host, "node2") << name;
    EXPECT_EQ(after.run.heartbeat_at, before.run.heartbeat_at) << name;
    EXPECT_EQ(after.run.updates, before.run.updates) << name;
    EXPECT_EQ(after.run.config_yaml, before.run.config_yaml) << name;
    EXPECT_EQ(after.run.lease, now.generation) << name;
  }
  // The holder's own writes all go through.
  for (const auto& [name, write] : holder_writes()) {
    if (name == "finish_run" || name == "requeue_run") continue;  // ends the holding
    EXPECT_NO_THROW(write(store, now)) << name;
  }
  store.finish_run(now, "finished");
  EXPECT_EQ(store.find_run(std::to_string(id))->status, "finished");
}

// A run that ended -- finished by its holder, cancelled by a user, marked crashed by a
// scheduler -- refuses its last holder too: a frozen worker that wakes up changes nothing.
TEST_P(LeaseTest, AnEndedRunRefusesItsLastHolder) {
  auto store = Store::open(location());
  for (const std::string end : {"finished", "cancelled", "crashed"}) {
    const int64_t id = store.create_run(queued_run(end));
    const Lease lease = store.mark_running(id, "node1", "cpu");
    store.write_metrics(lease, {{5, "loss", 1.0, 1.0}});
    if (end == "cancelled")
      ASSERT_TRUE(store.cancel_run(id, "by the user"));
    else
      store.finish_run(lease, end, end == "crashed" ? "no heartbeat" : "");
    const RunExport before = store.export_run(id);
    for (const auto& [name, write] : holder_writes()) {
      try {
        write(store, lease);
        ADD_FAILURE() << name << " was accepted on a " << end << " run";
      } catch (const LeaseLost& e) {
        EXPECT_EQ(e.status_now(), end) << name;
        EXPECT_EQ(e.generation_now(), lease.generation) << name;
      }
    }
    const RunExport after = store.export_run(id);
    EXPECT_EQ(after.run.status, end);
    EXPECT_EQ(after.run.finished_at, before.run.finished_at) << end;
    EXPECT_EQ(after.run.error, before.run.error) << end;
    EXPECT_EQ(after.metrics, before.metrics) << end;
    EXPECT_EQ(after.tags, before.tags) << end;
  }
}

// A heartbeat refreshes heartbeat_at and nothing else (liveness without progress).
TEST_P(LeaseTest, TouchHeartbeatRefreshesOnlyTheTime) {
  auto store = Store::open(location());
  const int64_t id = store.create_run(queued_run("a"));
  const Lease lease = store.mark_running(id, "node7", "cuda:0");
  store.heartbeat(lease, 42);
  const RunRecord before = *store.find_run(std::to_string(id));
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  store.touch_heartbeat(lease);
  const RunRecord after = *store.find_run(std::to_string(id));
  EXPECT_GT(after.heartbeat_at, before.heartbeat_at + 0.02);
  EXPECT_LE(after.heartbeat_at, unix_now() + 1);
  EXPECT_EQ(after.updates, 42);
  EXPECT_EQ(after.status, "running");
  EXPECT_EQ(after.started_at, before.started_at);
  EXPECT_EQ(after.host, "node7");
  EXPECT_THROW(store.touch_heartbeat(Lease{id + 1000, 1}), std::invalid_argument);
}

// Whoever acts for a lost worker acts under the lease it held: once the run was requeued and
// claimed again, marking the old worker's run crashed or requeueing it changes nothing.
TEST_P(LeaseTest, ActingForALostWorkerTouchesOnlyItsOwnHolding) {
  auto store = Store::open(location());
  const int64_t id = store.create_run(queued_run("a"));
  const RunRecord lost = *store.claim_next_run("sw", "node1", "cpu");
  ASSERT_TRUE(fathom::experiments::requeue_lost(store, Lease{id, lost.lease}, "interrupted"));
  const RunRecord alive = *store.claim_next_run("sw", "node2", "cpu");
  // A second scheduler still judging the first worker from an old listing:
  EXPECT_FALSE(fathom::experiments::mark_lost(store, Lease{id, lost.lease}, "no heartbeat"));
  EXPECT_FALSE(fathom::experiments::requeue_lost(store, Lease{id, lost.lease}, "interrupted"));
  RunRecord now = *store.find_run(std::to_string(id));
  EXPECT_EQ(now.status, "running");
  EXPECT_EQ(now.host, "node2");
  EXPECT_EQ(now.lease, alive.lease);
  // The live worker's own loss is recorded.
  EXPECT_TRUE(fathom::experiments::mark_lost(store, Lease{id, alive.lease}, "no heartbeat"));
  now = *store.find_run(std::to_string(id));
  EXPECT_EQ(now.status, "crashed");
  EXPECT_EQ(now.error, "no heartbeat");
}

// The check and the write are one transaction: from the moment a new claim commits, no write
// of the old holder lands. A writer thread logs steps 1, 2, 3, ... as fast as it can under the
// old lease; another connection takes the run and reads the last step right after its claim
// committed. When the writer has stopped (refused), the curve still ends at that step.
TEST_P(LeaseTest, NoOldWriteLandsAfterTheClaimThatFencedItOff) {
  auto store = Store::open(location());
  const int64_t id = store.create_run(queued_run("a"));
  const Lease old = store.mark_running(id, "node1", "cpu");
  std::atomic<int64_t> written{0};
  std::atomic<bool> refused{false};
  std::thread writer([&] {
    auto own = Store::open(location());
    try {
      for (int64_t step = 1; step < 1000000; ++step) {
        own.write_metrics(old, {{step, "loss", 1.0 / step, 1.0}});
        written = step;
      }
    } catch (const LeaseLost&) {
      refused = true;
    }
  });
  while (written < 50) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  auto other = Store::open(location());
  other.mark_running(id, "node2", "cpu");
  const int64_t last_at_claim = other.last_metric_step(id, "loss");
  writer.join();
  EXPECT_TRUE(refused);
  EXPECT_GE(last_at_claim, 50);
  EXPECT_EQ(other.last_metric_step(id, "loss"), last_at_claim);
  EXPECT_EQ(static_cast<int64_t>(other.metric_series(id, "loss").size()), last_at_claim);
}

// A MetricWriter whose run was taken drops its rows on destruction without a warning, and its
// flush says why it was refused.
TEST_P(LeaseTest, MetricWriterOfALostRunIsRefused) {
  auto store = Store::open(location());
  const int64_t id = store.create_run(queued_run("a"));
  const Lease old = store.mark_running(id, "node1", "cpu");
  MetricWriter writer(store, old, /*flush_rows=*/100, /*flush_seconds=*/3600);
  writer.log(1, "loss", 1.0);
  ASSERT_TRUE(store.cancel_run(id, "by the user"));
  writer.log(2, "loss", 0.5);
  EXPECT_THROW(writer.flush(), LeaseLost);
  EXPECT_TRUE(store.metric_series(id, "loss").empty());
}

// A claim can leave out runs: a local launcher does not start again at once a run whose
// worker a user stopped with a signal.
TEST_P(LeaseTest, ClaimSkipsTheRunsItIsToldTo) {
  auto store = Store::open(location());
  const int64_t a = store.create_run(queued_run("a"));
  const int64_t b = store.create_run(queued_run("b"));
  const int64_t c = store.create_run(queued_run("c"));
  EXPECT_EQ(store.claim_next_run("sw", "h", "cpu", {a, b})->id, c);
  EXPECT_EQ(store.claim_next_run("sw", "h", "cpu", {a})->id, b);
  EXPECT_FALSE(store.claim_next_run("sw", "h", "cpu", {a}));
  EXPECT_EQ(store.claim_next_run("sw", "h", "cpu")->id, a);
}

INSTANTIATE_TEST_SUITE_P(Backends, LeaseTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace test_store_lease
