// The store's paths for a whole sweep at once, on every backend: create_runs records runs and
// their tags in one transaction exactly as create_run and set_tag one by one do (issue 54:
// queueing committed once per run and per tag).
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "db/store.h"
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
    if (i > 0) EXPECT_GT(batched[i], batched[i - 1]);  // ids in the batch's order
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

}  // namespace test_store_bulk
