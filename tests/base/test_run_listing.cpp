// db::RunListing, the app's listing of every run each second, on every backend: it reads what
// Store::list_runs reads while reading a run's whole row (its config) only when the run is new
// or its row may have changed (running, or its state moved since: a config changes only under
// a lease).
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "db/lease.h"
#include "db/run_listing.h"
#include "db/store.h"
#include "tests/support/store_test_fixture.h"

using namespace fathom::db;
using fathom::testing::sample_run;
using fathom::testing::StoreBackendTest;

namespace test_run_listing {

void expect_same_runs(const std::vector<RunRecord>& listed, const std::vector<RunRecord>& all) {
  ASSERT_EQ(listed.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    SCOPED_TRACE(all[i].name);
    EXPECT_EQ(listed[i].id, all[i].id);
    EXPECT_EQ(listed[i].name, all[i].name);
    EXPECT_EQ(listed[i].status, all[i].status);
    EXPECT_EQ(listed[i].lease, all[i].lease);
    EXPECT_EQ(listed[i].updates, all[i].updates);
    EXPECT_EQ(listed[i].error, all[i].error);
    EXPECT_EQ(listed[i].git_rev, all[i].git_rev);
    EXPECT_EQ(listed[i].created_at, all[i].created_at);
    EXPECT_EQ(listed[i].final_metrics, all[i].final_metrics);
    EXPECT_EQ(listed[i].config_json, all[i].config_json);
    EXPECT_EQ(listed[i].config_yaml, all[i].config_yaml);
  }
}

const RunRecord& by_name(const std::vector<RunRecord>& runs, const std::string& name) {
  for (const auto& r : runs)
    if (r.name == name) return r;
  throw std::runtime_error("no run " + name);
}

TEST_P(StoreBackendTest, RunListingReadsWhatListRunsReads) {
  auto store = Store::open(db_path());
  RunListing listing;
  EXPECT_TRUE(listing.read(store).empty());
  const int64_t a = store.create_run(sample_run("a", "sw"));
  const int64_t b = store.create_run(sample_run("b", "sw"));
  expect_same_runs(listing.read(store), store.list_runs());

  // A run claimed, its config changed by its holder (a resume with more updates), finished
  // with a metric: each read as list_runs reads it.
  const RunRecord claimed = *store.claim_next_run("sw", "node1", "cpu");
  ASSERT_EQ(claimed.id, a);
  const Lease lease{a, claimed.lease};
  expect_same_runs(listing.read(store), store.list_runs());
  store.set_config(lease, "train:\n  max_updates: 900\n", R"({"train":{"max_updates":900}})");
  expect_same_runs(listing.read(store), store.list_runs());
  EXPECT_EQ(by_name(listing.read(store), "a").config_yaml, "train:\n  max_updates: 900\n");
  store.set_final_metric(lease, "valid_loss", 2.5);
  store.finish_run(lease, "finished");
  expect_same_runs(listing.read(store), store.list_runs());
  // An evaluation's metric on the ended run (no lease, no state moved), and a second verdict.
  store.set_final_metric(a, "test_bleu", 31.5);
  expect_same_runs(listing.read(store), store.list_runs());
  EXPECT_EQ(by_name(listing.read(store), "a").final_metrics.at("test_bleu"), 31.5);
  store.finish_run(a, "crashed", "marked lost by hand");
  expect_same_runs(listing.read(store), store.list_runs());
  EXPECT_EQ(by_name(listing.read(store), "a").error, "marked lost by hand");

  // A new run, a deleted one.
  store.create_run(sample_run("c", "sw"));
  store.delete_run(b);
  expect_same_runs(listing.read(store), store.list_runs());
  EXPECT_EQ(listing.read(store).size(), 2U);
}

// What it does not read again: a config edited behind the store's API (which no holder can do
// to a run it does not hold) shows only once the run's status or lease moved -- proof that a
// quiet poll read no config. A fresh listing reads it at once.
TEST_P(StoreBackendTest, RunListingReadsAConfigAgainOnlyWhenItsRunMoved) {
  auto store = Store::open(db_path());
  const int64_t a = store.create_run(sample_run("a", "sw"));
  RunListing listing;
  const std::string stored = listing.read(store).at(0).config_json;
  scratch_->raw_exec("UPDATE runs SET config_json = '{\"edited\":1}' WHERE id = " +
                     std::to_string(a));
  EXPECT_EQ(store.list_runs().at(0).config_json, R"({"edited":1})");
  EXPECT_EQ(listing.read(store).at(0).config_json, stored);  // kept
  EXPECT_EQ(RunListing().read(store).at(0).config_json, R"({"edited":1})");
  const RunRecord claimed = *store.claim_next_run("sw", "node1", "cpu");  // queued -> running
  EXPECT_EQ(listing.read(store).at(0).config_json, R"({"edited":1})");
  // While it runs, each read reads it again.
  scratch_->raw_exec("UPDATE runs SET config_json = '{\"edited\":2}' WHERE id = " +
                     std::to_string(a));
  EXPECT_EQ(listing.read(store).at(0).config_json, R"({"edited":2})");
  store.finish_run(Lease{a, claimed.lease}, "finished");
  scratch_->raw_exec("UPDATE runs SET config_json = '{\"edited\":3}' WHERE id = " +
                     std::to_string(a));
  EXPECT_EQ(listing.read(store).at(0).config_json, R"({"edited":3})");  // its status moved
  scratch_->raw_exec("UPDATE runs SET config_json = '{\"edited\":4}' WHERE id = " +
                     std::to_string(a));
  EXPECT_EQ(listing.read(store).at(0).config_json, R"({"edited":3})");  // ended, kept
  listing.clear();
  EXPECT_EQ(listing.read(store).at(0).config_json, R"({"edited":4})");
}

// A quiet run's config is one text however many reads (and the views' copies of them) hold it:
// the desktop app keeps every run in several views (bench_runs_poll at 64,000 runs: 3.3 GB
// with configs by value, 0.9 GB shared). A run read again (its status moved) gets a text of its
// own.
TEST_P(StoreBackendTest, RunListingReadsShareAQuietRunsConfig) {
  auto store = Store::open(db_path());
  const int64_t a = store.create_run(sample_run("a", "sw"));
  store.create_run(sample_run("b", "sw"));
  RunListing listing;
  const std::vector<RunRecord> first = listing.read(store);
  const std::vector<RunRecord> second = listing.read(store);
  ASSERT_FALSE(first.at(0).config_json.empty());
  ASSERT_FALSE(first.at(0).config_yaml.empty());
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_TRUE(second.at(i).config_json.shares(first.at(i).config_json)) << first.at(i).name;
    EXPECT_TRUE(second.at(i).config_yaml.shares(first.at(i).config_yaml)) << first.at(i).name;
  }
  EXPECT_FALSE(first.at(0).config_json.shares(first.at(1).config_json));  // equal, not shared
  EXPECT_EQ(first.at(0).config_json, first.at(1).config_json);

  ASSERT_EQ(store.claim_next_run("sw", "node1", "cpu")->id, a);  // a's row read again
  const std::vector<RunRecord> third = listing.read(store);
  EXPECT_FALSE(third.at(0).config_json.shares(first.at(0).config_json));
  EXPECT_EQ(third.at(0).config_json, first.at(0).config_json);
  EXPECT_TRUE(third.at(1).config_json.shares(first.at(1).config_json));
}

// Runs made, claimed, finished, requeued, evaluated and deleted in a random order: after every
// step the listing reads what list_runs reads. The store lists states in its index's order (by
// status, then id) and the listing walks them against the kept rows in id order, so runs of
// mixed statuses and deletions in the middle are what this stirs.
TEST_P(StoreBackendTest, RunListingFollowsRandomMovesOfManyRuns) {
  auto store = Store::open(db_path());
  RunListing listing;
  std::mt19937 random(7);
  std::vector<int64_t> alive;
  std::map<int64_t, int64_t> leases;  // the running runs' claims
  for (int i = 0; i < 12; ++i)
    alive.push_back(store.create_run(sample_run("r" + std::to_string(i), "sw")));
  int made = 12;
  for (int step = 0; step < 60; ++step) {
    SCOPED_TRACE(step);
    const auto any = [&] { return alive.at(random() % alive.size()); };
    switch (random() % 6) {
      case 0:
        alive.push_back(store.create_run(sample_run("r" + std::to_string(made++), "sw")));
        break;
      case 1:
        if (const auto claimed = store.claim_next_run("sw", "node", "cpu"))
          leases[claimed->id] = claimed->lease;
        break;
      case 2:
        if (!leases.empty()) {
          const auto held = std::next(leases.begin(), random() % leases.size());
          store.set_final_metric(Lease{held->first, held->second}, "valid_loss", step);
          store.finish_run(Lease{held->first, held->second}, random() % 2 ? "finished" : "failed");
          leases.erase(held);
        }
        break;
      case 3:
        if (!leases.empty()) {
          store.requeue_run(leases.begin()->first, "preempted");
          leases.erase(leases.begin());
        }
        break;
      case 4:  // an evaluation's metric on any run, no lease: no state moves
        store.set_final_metric(any(), "test_bleu", step);
        break;
      default:  // a run deleted (a running one is refused: cancelled first)
        if (alive.size() > 2) {
          const int64_t gone = any();
          if (leases.count(gone)) store.cancel_run(gone, "stopped");
          store.delete_run(gone);
          alive.erase(std::find(alive.begin(), alive.end(), gone));
          leases.erase(gone);
        }
    }
    if (step % 3 == 0) listing.read(store);  // some moves happen between two reads, some not
    expect_same_runs(listing.read(store), store.list_runs());
  }
}

}  // namespace test_run_listing
