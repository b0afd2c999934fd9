// The store's paths for a whole sweep at once, on every backend: create_runs records runs and
// their tags in one transaction exactly as create_run and set_tag one by one do (issue 54:
// queueing committed once per run and per tag); list_run_states reads what the scheduler's
// poll needs, and no config (it read every run's JSON and YAML config each second);
// tagged_runs reads one tag of every run, as tags() run by run would; listing_tags and
// recent_train_losses read many runs' tags and recent losses at once, as run by run.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "db/store.h"
#include "db/update_rate.h"
#include "tests/support/store_test_fixture.h"

using namespace fathom::db;
using fathom::testing::sample_run;
using fathom::testing::StoreBackendTest;

namespace test_store_bulk {

std::vector<NewTaggedRun> three_runs(const std::string& sweep) {
  std::vector<NewTaggedRun> runs;
  for (int i = 0; i < 3; ++i) {
    NewTaggedRun& r = runs.emplace_back();
    r.run = sample_run(sweep + "/layers=" + std::to_string(6 * (i + 1)), sweep);
    r.run.host = i == 1 ? "node1" : "";
    r.tags = {{"axis.model.encoder_layers", std::to_string(6 * (i + 1))},
              {"sweep.axes", "model.encoder_layers"}};
  }
  runs[2].tags["sweep.set"] = "train.lr=0.001";
  return runs;
}

// Everything stored about a run but its id and creation time.
struct Stored {
  RunRecord run;
  std::map<std::string, std::string> tags;
};
void expect_same(const Stored& a, const Stored& b) {
  EXPECT_EQ(a.run.name, b.run.name);
  EXPECT_EQ(a.run.sweep, b.run.sweep);
  EXPECT_EQ(a.run.config_json, b.run.config_json);
  EXPECT_EQ(a.run.config_yaml, b.run.config_yaml);
  EXPECT_EQ(a.run.status, b.run.status);
  EXPECT_EQ(a.run.host, b.run.host);
  EXPECT_EQ(a.run.device, b.run.device);
  EXPECT_EQ(a.run.git_rev, b.run.git_rev);
  EXPECT_EQ(a.run.error, b.run.error);
  EXPECT_EQ(a.run.lease, b.run.lease);
  EXPECT_EQ(a.run.updates, b.run.updates);
  EXPECT_EQ(a.run.started_at, b.run.started_at);
  EXPECT_EQ(a.run.heartbeat_at, b.run.heartbeat_at);
  EXPECT_EQ(a.tags, b.tags);
}

TEST_P(StoreBackendTest, CreateRunsStoresWhatCreateRunAndSetTagDoOneByOne) {
  auto store = Store::open(db_path());
  std::vector<int64_t> one_by_one;
  for (const auto& r : three_runs("a")) {
    one_by_one.push_back(store.create_run(r.run));
    for (const auto& [key, value] : r.tags) store.set_tag(one_by_one.back(), key, value);
  }
  const std::vector<int64_t> batched = store.create_runs(three_runs("b"));
  ASSERT_EQ(batched.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    if (i > 0) {
      EXPECT_GT(batched[i], batched[i - 1]);  // ids in the batch's order
    }
    Stored a{*store.find_run(std::to_string(one_by_one[i])), store.tags(one_by_one[i])};
    Stored b{*store.find_run(std::to_string(batched[i])), store.tags(batched[i])};
    a.run.name.replace(0, 1, "b");  // the only difference: the sweep's name
    a.run.sweep = "b";
    expect_same(a, b);
    EXPECT_GT(b.run.created_at, 0);
  }
  EXPECT_EQ(store.list_runs("b").size(), 3u);
  EXPECT_TRUE(store.create_runs({}).empty());
  EXPECT_EQ(store.counts().runs, 6);
}

// A bad status anywhere in the batch refuses all of it: nothing is recorded.
TEST_P(StoreBackendTest, CreateRunsRecordsAllOrNothing) {
  auto store = Store::open(db_path());
  auto runs = three_runs("a");
  runs[2].run.status = "paused";
  EXPECT_THROW(store.create_runs(runs), std::invalid_argument);
  EXPECT_EQ(store.counts().runs, 0);
  EXPECT_EQ(store.counts().tags, 0);
}

TEST_P(StoreBackendTest, ListRunStatesReadsWhatAPollNeedsInIdOrder) {
  auto store = Store::open(db_path());
  store.create_runs(three_runs("a"));
  store.create_run(sample_run("single"));
  const auto claimed = store.claim_next_run("a", "node2", "cuda:0");
  ASSERT_TRUE(claimed);
  store.heartbeat(claimed->id, 17);
  store.set_final_metric(claimed->id, "valid_ppl", 12.5);
  store.finish_run(claimed->id, status::kFailed, "out of memory");
  const auto second = store.claim_next_run("a", "node3", "cpu");
  store.requeue_run(second->id, "preempted");
  store.claim_next_run("a", "node4", "cuda:1");  // the oldest queued: the second again

  const auto full = store.list_runs("a"), states = store.list_run_states("a");
  ASSERT_EQ(states.size(), 3u);
  ASSERT_EQ(full.size(), 3u);
  for (size_t i = 0; i < full.size(); ++i) {
    const RunRecord &want = full[i], &got = states[i];
    // What the poll reads, as list_runs has it...
    EXPECT_EQ(got.id, want.id);
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(got.sweep, want.sweep);
    EXPECT_EQ(got.status, want.status);
    EXPECT_EQ(got.host, want.host);
    EXPECT_EQ(got.device, want.device);
    EXPECT_EQ(got.updates, want.updates);
    EXPECT_EQ(got.heartbeat_at, want.heartbeat_at);
    EXPECT_EQ(got.lease, want.lease);
    // ...and nothing else.
    EXPECT_EQ(got.config_json, "");
    EXPECT_EQ(got.config_yaml, "");
    EXPECT_EQ(got.error, "");
    EXPECT_EQ(got.git_rev, "");
    EXPECT_EQ(got.created_at, 0);
    EXPECT_TRUE(got.final_metrics.empty());
  }
  EXPECT_EQ(states[0].status, status::kFailed);
  EXPECT_EQ(states[0].updates, 17);
  EXPECT_EQ(states[1].status, status::kRunning);
  EXPECT_EQ(states[1].lease, 3);  // claimed, requeued, claimed
  EXPECT_EQ(states[1].device, "cuda:1");
  EXPECT_EQ(states[2].status, status::kQueued);
  EXPECT_EQ(states[2].lease, 0);
  EXPECT_TRUE(store.list_run_states("nope").empty());
}

// What the scheduler's start reads of each config, by the engine's JSON functions: a scalar as
// its text, an object as JSON that parses back to the stored one, nothing for a missing key.
TEST_P(StoreBackendTest, ConfigValuesReadKeysOfEachConfigInIdOrder) {
  auto store = Store::open(db_path());
  auto runs = three_runs("a");
  runs[0].run.config_json = R"({"train":{"max_updates":1200},"notify":{"on":["failed"]}})";
  runs[1].run.config_json = R"({"train":{"max_updates":7}})";
  runs[2].run.config_json = R"({"train":{"lr":0.5}})";
  const auto ids = store.create_runs(runs);
  store.create_run(sample_run("other", "b"));

  const auto values = store.config_values("a", {"train.max_updates", "notify", "model"});
  ASSERT_EQ(values.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(values[i].run, ids[i]);
    ASSERT_EQ(values[i].values.size(), 3u);
    EXPECT_FALSE(values[i].values[2]);  // no model section in these configs
  }
  EXPECT_EQ(values[0].values[0], "1200");
  ASSERT_TRUE(values[0].values[1]);
  EXPECT_EQ(nlohmann::json::parse(*values[0].values[1]),
            nlohmann::json::parse(R"({"on":["failed"]})"));
  EXPECT_EQ(values[1].values[0], "7");
  EXPECT_FALSE(values[1].values[1]);
  EXPECT_FALSE(values[2].values[0]);
  EXPECT_TRUE(store.config_values("nope", {"notify"}).empty());
  // A key becomes part of the statement: anything but a plain dotted key is refused.
  for (const char* bad : {"", "train.", ".train", "a..b", "x') --", "Train"})
    EXPECT_THROW(store.config_values("a", {bad}), std::invalid_argument) << bad;
}

// A run whose stored config is not JSON (edited by hand): its values are null and the other
// runs' are read, on both engines -- PostgreSQL's ::json cast fails the whole statement, so the
// configs are then parsed outside it. Nothing stored changes.
TEST_P(StoreBackendTest, ConfigValuesOfAConfigThatIsNotJsonAreNullAndTheOthersStillRead) {
  auto store = Store::open(db_path());
  auto runs = three_runs("a");
  runs[0].run.config_json = R"({"train":{"max_updates":1200},"notify":{"on":["failed"]}})";
  runs[1].run.config_json = R"({"train":{"max_updates": 7)";  // cut off
  runs[2].run.config_json = R"({"train":{"max_updates":"9","lr":null},"notify":true})";
  const auto ids = store.create_runs(runs);

  const auto values = store.config_values("a", {"train.max_updates", "notify", "train.lr"});
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values[0].run, ids[0]);
  EXPECT_EQ(values[0].values[0], "1200");
  ASSERT_TRUE(values[0].values[1]);
  EXPECT_EQ(nlohmann::json::parse(*values[0].values[1]),
            nlohmann::json::parse(R"({"on":["failed"]})"));
  EXPECT_FALSE(values[0].values[2]);
  EXPECT_EQ(values[1].run, ids[1]);
  for (const auto& v : values[1].values) EXPECT_FALSE(v);
  EXPECT_EQ(values[2].values[0], "9");  // a string as its text
  EXPECT_FALSE(values[2].values[2]);    // JSON null: no value
  EXPECT_EQ(store.find_run(std::to_string(ids[1]))->config_json, runs[1].run.config_json);
}

TEST_P(StoreBackendTest, TaggedRunsIsEachRunsTagReadOneByOne) {
  auto store = Store::open(db_path());
  const std::vector<int64_t> ids = store.create_runs(three_runs("a"));
  store.set_tag(ids[0], "early_stop", "update 225: ...");
  store.set_tag(ids[2], "early_stop", "trained on from update 300 ...");
  store.set_tag(ids[2], "early_stop_other", "x");  // a key that begins like it is another tag
  std::map<int64_t, std::string> one_by_one;
  for (int64_t id : ids)
    if (const auto tags = store.tags(id); tags.count("early_stop"))
      one_by_one[id] = tags.at("early_stop");
  EXPECT_EQ(store.tagged_runs("early_stop"), one_by_one);
  EXPECT_EQ(one_by_one.size(), 2U);
  EXPECT_EQ(store.tagged_runs("sweep.set"),
            (std::map<int64_t, std::string>{{ids[2], "train.lr=0.001"}}));
  EXPECT_TRUE(store.tagged_runs("no such tag").empty());
  store.delete_run(ids[0]);
  EXPECT_EQ(store.tagged_runs("early_stop").count(ids[0]), 0U);
}

// What a listing shows of many runs in one read: each run's tags as tags() has them, but its
// stored validation samples (large: a translation of each sample at each validation).
TEST_P(StoreBackendTest, ListingTagsAreEachRunsTagsButItsSamples) {
  auto store = Store::open(db_path());
  std::vector<int64_t> ids = store.create_runs(three_runs("a"));
  ids.push_back(store.create_run(sample_run("untagged")));
  store.set_tag(ids[1], "samples.u100", R"([{"source":"a","reference":"b","hypothesis":"c"}])");
  store.set_tag(ids[1], "samples.u", "[]");
  store.set_tag(ids[1], "Samples.u5", "kept: another key");  // case matters
  store.set_tag(ids[1], "samples.x", "kept");
  const auto read = store.listing_tags({ids[1], ids[2], ids[3]});
  std::map<int64_t, std::map<std::string, std::string>> expected;
  for (int64_t id : {ids[1], ids[2]}) expected[id] = store.tags(id);
  expected[ids[1]].erase("samples.u100");
  expected[ids[1]].erase("samples.u");
  EXPECT_EQ(read, expected);
  EXPECT_EQ(read.at(ids[1]).size(), 4U);  // two axis tags, two kept keys
  EXPECT_EQ(read.count(ids[0]), 0U);      // not asked
  EXPECT_EQ(read.count(ids[3]), 0U);      // no tags
  EXPECT_TRUE(store.listing_tags({}).empty());
}

// The Runs tab's losses and rates of every running run in two reads: each run's last six
// train_loss points (five of its own logging intervals), as the read of one run gives them.
TEST_P(StoreBackendTest, RecentTrainLossesOfManyRunsAreEachRunsOwn) {
  auto store = Store::open(db_path());
  std::vector<RunRecord> runs;
  for (int every : {10, 50, 20}) {
    NewRun r = sample_run("every" + std::to_string(every));
    r.config_json = R"({"train": {"log_every": )" + std::to_string(every) + "}}";
    const int64_t id = store.create_run(r);
    if (every != 20) {  // that one has no point yet
      std::vector<MetricRow> rows;
      for (int64_t step = every; step <= 40 * every; step += every)
        rows.push_back({step, "train_loss", 1.0 / step, 0.1 * step});
      rows.push_back({1, "valid_loss", 9.0, 0.0});
      store.write_metrics(id, rows);
    }
    runs.push_back(*store.find_run(std::to_string(id)));
  }
  const auto read = recent_train_losses(store, runs);
  ASSERT_EQ(read.size(), 2U);
  EXPECT_EQ(read.count(runs[2].id), 0U);
  for (size_t i = 0; i < 2; ++i) {
    const auto& points = read.at(runs[i].id);
    const auto one = recent_train_losses(store, runs[i]);
    ASSERT_EQ(points.size(), one.size());
    ASSERT_EQ(points.size(), 6U);  // steps 35..40 logging intervals
    const int64_t every = i == 0 ? 10 : 50;
    EXPECT_EQ(points.front().step, 35 * every);
    EXPECT_EQ(points.back().step, 40 * every);
    for (size_t k = 0; k < points.size(); ++k) {
      EXPECT_EQ(points[k].step, one[k].step);
      EXPECT_DOUBLE_EQ(points[k].value, 1.0 / points[k].step);
    }
  }
  EXPECT_TRUE(recent_train_losses(store, std::vector<RunRecord>{}).empty());
}

}  // namespace test_store_bulk
