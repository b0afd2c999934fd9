// The store's probe tables (db/sql_store_probes.cpp, docs/schema.md "Probes"), on every
// backend: points and layouts read back exactly (NaN and infinities too), a repeated point
// replaces the old, a resume truncates them with the metric rows, a lost lease writes nothing,
// deleting a run removes them, and `db copy` carries them. The value encoding is checked
// against base64 worked by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "db/lease.h"
#include "db/probe_values.h"
#include "db/store.h"
#include "tests/support/store_backends.h"
#include "tests/support/store_test_fixture.h"

using namespace fathom::db;
using fathom::testing::sample_run;
using fathom::testing::StoreBackendTest;

namespace test_store_probes {

const std::vector<std::string> kHeads = {"enc.0.self_attn.h0", "enc.0.self_attn.h1"};

ProbeRow row(int64_t step, const std::string& probe, std::vector<float> values,
             std::vector<std::string> positions = kHeads) {
  return ProbeRow{step, probe, std::move(positions), std::move(values), 100.0 + step};
}

// 1.0f is 00 00 80 3F little-endian: 000000 000000 001000 000000 | 001111 11(0000) -> "AACA",
// "Pw==". -2.0f is 00 00 00 C0.
TEST(ProbeValues, EncodingIsBase64OfLittleEndianFloat32) {
  EXPECT_EQ(encode_probe_values({1.0f}), "AACAPw==");
  EXPECT_EQ(encode_probe_values({1.0f, -2.0f}), "AACAPwAAAMA=");
  EXPECT_EQ(encode_probe_values({}), "");
  const float inf = std::numeric_limits<float>::infinity();
  const auto back = decode_probe_values(encode_probe_values({0.25f, -inf, NAN, 3e-39f}));
  ASSERT_EQ(back.size(), 4u);
  EXPECT_EQ(back[0], 0.25f);
  EXPECT_EQ(back[1], -inf);
  EXPECT_TRUE(std::isnan(back[2]));
  EXPECT_EQ(back[3], 3e-39f);  // a subnormal keeps its bits
  for (const std::string bad : {"AACAPw=", "AAC*Pw==", "AACAP===", "AA==AACA", "AACAPwA="})
    EXPECT_THROW(decode_probe_values(bad), std::runtime_error) << bad;
}

TEST_P(StoreBackendTest, ProbePointsReadBackByStepWithTheirLayout) {
  auto store = Store::open(db_path());
  const int64_t run = store.create_run(sample_run("probed"));
  const Lease lease = store.mark_running(run, "host", "cpu");
  const float inf = std::numeric_limits<float>::infinity();
  store.write_probes(
      lease, {row(20, "attn.max_logit", {1.5f, NAN}), row(20, "stream.rms", {0.5f}, {"enc.0.ffn"}),
              row(10, "attn.max_logit", {-inf, 2.0f})});
  EXPECT_EQ(store.probe_names(run), (std::vector<std::string>{"attn.max_logit", "stream.rms"}));

  const ProbeSeries s = store.probe_series(run, "attn.max_logit");
  EXPECT_EQ(s.positions, kHeads);
  EXPECT_EQ(s.steps, (std::vector<int64_t>{10, 20}));
  ASSERT_EQ(s.values.size(), 2u);
  EXPECT_EQ(s.values[0], (std::vector<float>{-inf, 2.0f}));
  EXPECT_EQ(s.values[1][0], 1.5f);
  EXPECT_TRUE(std::isnan(s.values[1][1]));
  EXPECT_EQ(store.probe_series(run, "attn.max_logit", 10).steps, std::vector<int64_t>{20});
  const ProbeSeries none = store.probe_series(run, "attn.entropy");
  EXPECT_TRUE(none.positions.empty());
  EXPECT_TRUE(none.steps.empty());

  // A retried write of the same point replaces it: one row, the new values.
  store.write_probes(lease, {row(20, "attn.max_logit", {7.0f, 8.0f})});
  const ProbeSeries again = store.probe_series(run, "attn.max_logit");
  EXPECT_EQ(again.steps, (std::vector<int64_t>{10, 20}));
  EXPECT_EQ(again.values[1], (std::vector<float>{7.0f, 8.0f}));
  EXPECT_EQ(store.counts().probe_points, 3);
  // Values and positions must agree: nothing written.
  EXPECT_THROW(store.write_probes(lease, {row(30, "attn.max_logit", {1.0f})}),
               std::invalid_argument);
  EXPECT_EQ(store.counts().probe_points, 3);
}

// A resume from the checkpoint at update 10 redoes the probe points after it, as the metric
// rows; a holder whose lease was taken writes nothing.
TEST_P(StoreBackendTest, ProbePointsFollowResumesAndLeases) {
  auto store = Store::open(db_path());
  const int64_t run = store.create_run(sample_run("resumed"));
  const Lease first = store.mark_running(run, "host", "cpu");
  store.write_probes(
      first, {row(10, "attn.entropy", {0.1f, 0.2f}), row(20, "attn.entropy", {0.3f, 0.4f})});
  store.write_metrics(first, {{10, "train_loss", 3.0, 1.0}, {20, "train_loss", 2.0, 2.0}});
  store.delete_metrics_after(first, 10);
  EXPECT_EQ(store.probe_series(run, "attn.entropy").steps, std::vector<int64_t>{10});
  EXPECT_EQ(store.metric_series(run, "train_loss").size(), 1u);

  const Lease second = store.mark_running(run, "other", "cpu");  // fences `first` off
  EXPECT_THROW(store.write_probes(first, {row(30, "attn.entropy", {9.0f, 9.0f})}), LeaseLost);
  EXPECT_EQ(store.probe_series(run, "attn.entropy").steps, std::vector<int64_t>{10});
  store.write_probes(second, {row(30, "attn.entropy", {0.5f, 0.6f})});
  EXPECT_EQ(store.probe_series(run, "attn.entropy").steps, (std::vector<int64_t>{10, 30}));
}

TEST_P(StoreBackendTest, DeletingARunRemovesItsProbesOnly) {
  auto store = Store::open(db_path());
  const int64_t gone = store.create_run(sample_run("gone"));
  const int64_t kept = store.create_run(sample_run("kept"));
  for (const int64_t run : {gone, kept})
    store.write_probes(store.mark_running(run, "h", "cpu"),
                       {row(5, "update.ratio", {0.01f, 0.02f})});
  for (const int64_t run : {gone, kept}) store.finish_run(run, "finished");
  store.delete_run(gone);
  for (const std::string table : {"probe_points", "probe_layouts"}) {
    EXPECT_EQ(raw_count(table, gone), 0) << table;
    EXPECT_EQ(raw_count(table, kept), 1) << table;
  }
}

TEST_P(StoreBackendTest, CopyingARunCarriesItsProbes) {
  fathom::testing::ScratchStore target_scratch("sqlite", "probe_copy_target");
  auto source = Store::open(db_path());
  const int64_t run = source.create_run(sample_run("a"));
  const Lease lease = source.mark_running(run, "h", "cpu");
  source.write_probes(
      lease, {row(10, "attn.max_logit", {1.0f, 2.0f}), row(10, "stream.rms", {3.0f}, {"dec.0.ffn"}),
              row(20, "attn.max_logit", {4.0f, 5.0f})});
  source.finish_run(lease, "finished");
  auto target = Store::open(target_scratch.location());
  target.import_run(source.export_run(run));
  EXPECT_TRUE(source.counts() == target.counts());
  EXPECT_EQ(target.counts().probe_points, 3);
  for (const std::string probe : {"attn.max_logit", "stream.rms"}) {
    const ProbeSeries a = source.probe_series(run, probe), b = target.probe_series(run, probe);
    EXPECT_EQ(a.positions, b.positions) << probe;
    EXPECT_EQ(a.steps, b.steps) << probe;
    EXPECT_EQ(a.values, b.values) << probe;
  }
}

}  // namespace test_store_probes
