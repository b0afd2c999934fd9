// Seed groups (plot/curve_groups.h, plot/run_groups.h, plot/curve_x.h): means, bands, counts
// and markers of hand-made groups against values worked out by hand in the comments; the
// incremental update against a group built from scratch; grouping and x axes from a store.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>

#include "base/util/error.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "plot/curve_groups.h"
#include "plot/curve_x.h"
#include "plot/run_groups.h"
#include "plot/store_curves.h"
#include "tests/support/temp_dir.h"

namespace fathom::plot {
namespace test_curve_groups {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A member whose x is its step.
std::unique_ptr<VectorPoints> member(std::vector<int64_t> steps, std::vector<double> y) {
  std::vector<double> x(steps.begin(), steps.end());
  return std::make_unique<VectorPoints>(std::move(steps), std::move(x), std::move(y));
}

// A member that grows, as a live run's cached curve does.
class GrowingPoints : public MemberPoints {
 public:
  std::vector<int64_t> steps;
  std::vector<double> values;
  size_t size() const override { return steps.size(); }
  int64_t step(size_t i) const override { return steps[i]; }
  double x(size_t i) const override { return static_cast<double>(steps[i]); }
  double y(size_t i) const override { return values[i]; }
};

// Issue 58 item 9: learning rates 1e-4, 1e-3, 1e-2 have mean 3.7e-3 and sample std
// sqrt(((-3.6e-3)^2 + (-2.7e-3)^2 + (6.3e-3)^2) / 2) = sqrt(5.994e-5 / 2) = 5.475e-3, so
// mean - std = -1.775e-3: below zero, where no rate is. The band stops at the lowest rate; a
// quantity that reached zero (0, 0, 3: mean 1, std sqrt(3)) stops at zero; one that is
// negative somewhere keeps mean - std.
TEST(CurveGroups, AStdBandStaysAboveZeroWhereNoMemberGoes) {
  auto band_lo = [](std::vector<double> values) {
    std::vector<std::unique_ptr<VectorPoints>> members;
    CurveGroup group("g", Band::Std);
    for (double v : values) {
      members.push_back(member({10}, {v}));
      group.add_member("", members.back().get(), false, true);
    }
    group.update();
    const Curve c = group.curve("lr");
    EXPECT_EQ(c.band_hi.size(), 1u);
    return c.band_lo.at(0);
  };
  EXPECT_DOUBLE_EQ(band_lo({1e-4, 1e-3, 1e-2}), 1e-4);
  EXPECT_DOUBLE_EQ(band_lo({0, 0, 3}), 0.0);
  EXPECT_DOUBLE_EQ(band_lo({-1, 0, 4}), 1 - std::sqrt(7.0));
  EXPECT_DOUBLE_EQ(band_lo({2, 4}), 3 - std::sqrt(2.0));  // above zero: as computed
}

TEST(CurveGroups, MeanAndSampleStdOfThreeHandMadeCurves) {
  // Steps 10, 20, 30.  A: 1 2 3   B: 3 4 5   C: 5 6 10
  // step 10: mean 3, deviations -2 0 2, sum of squares 8, sample variance 8/2 = 4, std 2
  // step 20: mean 4, std 2
  // step 30: mean 6, deviations -3 -1 4, sum of squares 26, variance 13, std sqrt(13)
  auto a = member({10, 20, 30}, {1, 2, 3}), b = member({10, 20, 30}, {3, 4, 5}),
       c = member({10, 20, 30}, {5, 6, 10});
  CurveGroup group("norm=post", Band::Std);
  group.add_member("#1", a.get(), false, true);
  group.add_member("#2", b.get(), false, true);
  group.add_member("#3", c.get(), false, true);
  ASSERT_TRUE(group.update());
  const Curve curve = group.curve("train_loss");
  EXPECT_EQ(curve.label, "norm=post (n=3)");
  EXPECT_EQ(curve.colour_key, "norm=post");
  EXPECT_EQ(curve.members, (std::vector<std::string>{"#1", "#2", "#3"}));
  EXPECT_EQ(curve.step, (std::vector<double>{10, 20, 30}));
  EXPECT_EQ(curve.value, (std::vector<double>{3, 4, 6}));
  EXPECT_EQ(curve.count, (std::vector<int>{3, 3, 3}));
  ASSERT_EQ(curve.band_lo.size(), 3u);
  EXPECT_DOUBLE_EQ(curve.band_lo[0], 1);
  EXPECT_DOUBLE_EQ(curve.band_hi[1], 6);
  EXPECT_DOUBLE_EQ(curve.band_lo[2], 6 - std::sqrt(13.0));
  EXPECT_DOUBLE_EQ(curve.band_hi[2], 6 + std::sqrt(13.0));
  EXPECT_TRUE(curve.ends.empty());
  EXPECT_FALSE(curve.stopped_early);

  CurveGroup range("norm=post", Band::MinMax);
  for (auto* m : {a.get(), b.get(), c.get()}) range.add_member("", m, false, true);
  range.update();
  const Curve minmax = range.curve("train_loss");
  EXPECT_EQ(minmax.band_lo, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(minmax.band_hi, (std::vector<double>{5, 6, 10}));

  CurveGroup bare("g", Band::None);
  bare.add_member("", a.get(), false, true);
  bare.update();
  EXPECT_TRUE(bare.curve("m").band_lo.empty());
  // One member: its own curve, no spread.
  CurveGroup one("g", Band::Std);
  one.add_member("", a.get(), false, true);
  one.update();
  EXPECT_EQ(one.curve("m").band_hi, (std::vector<double>{1, 2, 3}));
}

TEST(CurveGroups, ADivergedMemberIsMarkedAtItsLastStepAndLeavesTheMean) {
  // A: 1 1 1 1   B: 3 3 3 3   C: 2 2 inf (diverged at step 30; last finite point (20, 2))
  // Mean 2 throughout: over all three up to step 20, over A and B (2 of 3: not fewer than
  // half) after.
  auto a = member({10, 20, 30, 40}, {1, 1, 1, 1}), b = member({10, 20, 30, 40}, {3, 3, 3, 3}),
       c = member({10, 20, 30}, {2, 2, kInf});
  CurveGroup group("layers=18", Band::Std);
  group.add_member("#1", a.get(), false, true);
  group.add_member("#2", b.get(), false, true);
  group.add_member("#3", c.get(), true, true);
  group.update();
  const Curve curve = group.curve("valid_loss");
  EXPECT_EQ(curve.label, "layers=18 (n=3, 1 diverged)");
  EXPECT_EQ(curve.step, (std::vector<double>{10, 20, 30, 40}));
  EXPECT_EQ(curve.value, (std::vector<double>{2, 2, 2, 2}));
  EXPECT_EQ(curve.count, (std::vector<int>{3, 3, 2, 2}));
  ASSERT_EQ(curve.ends.size(), 1u);
  EXPECT_EQ(curve.ends[0].x, 20);
  EXPECT_EQ(curve.ends[0].y, 2);
  EXPECT_EQ(curve.ends[0].member, "#3");
  EXPECT_FALSE(curve.stopped_early);
}

TEST(CurveGroups, TheMeanStopsWhereFewerThanHalfAreLeft) {
  // A runs to 40; B blows up at 30 (NaN), C at 20 (inf). Step 30 has A alone: 1 of 3 is fewer
  // than half, and B and C have stopped for good, so the mean ends at 20 and says so.
  auto a = member({10, 20, 30, 40}, {4, 4, 4, 4}), b = member({10, 20, 30}, {2, 2, kNaN}),
       c = member({10, 20}, {3, kInf});
  CurveGroup group("g", Band::Std);
  group.add_member("#1", a.get(), false, true);
  group.add_member("#2", b.get(), true, true);
  group.add_member("#3", c.get(), true, true);
  group.update();
  const Curve curve = group.curve("m");
  EXPECT_EQ(curve.step, (std::vector<double>{10, 20}));
  EXPECT_EQ(curve.value, (std::vector<double>{3, 3}));  // (4+2+3)/3, (4+2)/2
  EXPECT_EQ(curve.count, (std::vector<int>{3, 2}));
  EXPECT_TRUE(curve.stopped_early);
  ASSERT_EQ(curve.ends.size(), 2u);
  EXPECT_EQ(curve.ends[0].x, 20);  // B's last finite point
  EXPECT_EQ(curve.ends[1].x, 10);  // C's
  EXPECT_EQ(curve.label, "g (n=3, 2 diverged)");
}

TEST(CurveGroups, LiveMembersBehindTheLeaderAreNotGoneAndTheUpdateIsIncremental) {
  GrowingPoints a, b, c;
  a.steps = {10, 20, 30, 40}, a.values = {1, 1, 1, 1};
  b.steps = {10, 20}, b.values = {2, 2};
  c.steps = {10, 20}, c.values = {3, 3};
  CurveGroup group("g", Band::MinMax);
  group.add_member("#1", &a, false, false);
  group.add_member("#2", &b, false, false);
  group.add_member("#3", &c, false, false);
  ASSERT_TRUE(group.update());
  Curve curve = group.curve("m");
  EXPECT_EQ(curve.step, (std::vector<double>{10, 20}));
  EXPECT_FALSE(curve.stopped_early);  // B and C are still training: not gone, only behind

  b.steps.push_back(30), b.values.push_back(5);
  c.steps.push_back(30), c.values.push_back(6);
  ASSERT_TRUE(group.update());
  curve = group.curve("m");
  EXPECT_EQ(curve.step, (std::vector<double>{10, 20, 30}));
  EXPECT_EQ(curve.value.back(), 4);  // (1 + 5 + 6) / 3
  EXPECT_EQ(curve.band_hi.back(), 6);

  // Built from scratch from the same points: the same curve.
  CurveGroup fresh("g", Band::MinMax);
  for (auto* m : {&a, &b, &c}) fresh.add_member("", m, false, false);
  fresh.update();
  const Curve again = fresh.curve("m");
  EXPECT_EQ(again.step, curve.step);
  EXPECT_EQ(again.value, curve.value);
  EXPECT_EQ(again.band_lo, curve.band_lo);
  EXPECT_EQ(again.count, curve.count);

  // A resumed run rewrites its points: the group says so and takes in nothing.
  b.steps.pop_back(), b.values.pop_back();
  EXPECT_FALSE(group.update());
  b.steps.push_back(30), b.values.push_back(7);  // same length, a different last value
  EXPECT_FALSE(group.update());
}

TEST(CurveGroups, StepsOneMemberSkippedAreInterpolatedInEitherOrder) {
  // A logs every 10 steps (y = step, x = 100 tokens a step); B every 5 (y = 2, x = 110 a step).
  // Step 5: A interpolates to y 5, x 500 -> mean y (5 + 2) / 2 = 3.5, mean x (500 + 550) / 2.
  // Step 15: A 15 -> 8.5.
  auto a = std::make_unique<VectorPoints>(std::vector<int64_t>{0, 10, 20},
                                          std::vector<double>{0, 1000, 2000},
                                          std::vector<double>{0, 10, 20});
  auto b = std::make_unique<VectorPoints>(std::vector<int64_t>{0, 5, 10, 15, 20},
                                          std::vector<double>{0, 550, 1100, 1650, 2200},
                                          std::vector<double>{2, 2, 2, 2, 2});
  for (bool a_first : {true, false}) {
    CurveGroup group("g", Band::Std);
    group.add_member("a", a_first ? a.get() : b.get(), false, true);
    group.add_member("b", a_first ? b.get() : a.get(), false, true);
    group.update();
    const Curve curve = group.curve("m");
    EXPECT_EQ(curve.value, (std::vector<double>{1, 3.5, 6, 8.5, 11})) << a_first;
    EXPECT_EQ(curve.count, (std::vector<int>{2, 2, 2, 2, 2})) << a_first;
    EXPECT_DOUBLE_EQ(curve.step[1], 525) << a_first;
    EXPECT_DOUBLE_EQ(curve.step[3], (1500 + 1650) / 2.0) << a_first;
  }
}

TEST(CurveGroups, GroupKeysLeaveOutTheSeedAndLabelsStayShort) {
  const std::vector<Tags> tags = {
      {{"axis.model.norm", "post"}, {"axis.train.seed", "1"}, {"axis.model.encoder_layers", "6"}},
      {{"axis.model.norm", "pre"}, {"axis.train.seed", "2"}, {"sweep.axes", "x"}}};
  EXPECT_EQ(expand_group_keys({"axes"}, tags),
            (std::vector<std::string>{"model.encoder_layers", "model.norm"}));
  EXPECT_EQ(expand_group_keys({"axis.model.norm", "model.norm", "train.lr"}, tags),
            (std::vector<std::string>{"model.norm", "train.lr"}));
  // Runs of two sweeps (their sweep names in kSweepTag) are split by sweep first; runs of one
  // sweep are not.
  std::vector<Tags> two_sweeps = tags;
  two_sweeps[0][kSweepTag] = "depth";
  two_sweeps[1][kSweepTag] = "width";
  EXPECT_EQ(expand_group_keys({"axes"}, two_sweeps),
            (std::vector<std::string>{"sweep", "model.encoder_layers", "model.norm"}));
  two_sweeps[1][kSweepTag] = "depth";
  EXPECT_EQ(expand_group_keys({"axes"}, two_sweeps),
            (std::vector<std::string>{"model.encoder_layers", "model.norm"}));
  EXPECT_EQ(run_value(two_sweeps[0], "{}", kSweepTag), "depth");
  // Part of a sweep, its runs all at 24 layers: the depth splits nothing and is left out of
  // "axes"; where no axis varies, all are kept, to name the one group.
  const std::vector<Tags> deep = {
      {{"axis.model.norm", "post"}, {"axis.model.decoder_layers", "24"}, {"axis.train.seed", "1"}},
      {{"axis.model.norm", "pre"}, {"axis.model.decoder_layers", "24"}, {"axis.train.seed", "1"}}};
  EXPECT_EQ(expand_group_keys({"axes"}, deep), (std::vector<std::string>{"model.norm"}));
  const std::vector<Tags> one = {deep[0], deep[0]};
  EXPECT_EQ(expand_group_keys({"axes"}, one),
            (std::vector<std::string>{"model.decoder_layers", "model.norm"}));
  EXPECT_TRUE(is_seed_key("train.seed"));
  EXPECT_FALSE(is_seed_key("train.seeds_file"));
  EXPECT_EQ(group_label({"model.norm", "model.encoder_layers"}, {"post", "6"}),
            "norm=post, encoder_layers=6");
  EXPECT_EQ(group_label({"model.dropout", "train.dropout"}, {"0.1", ""}),
            "model.dropout=0.1, train.dropout=?");
  // The sweep splits first but is named last, after the axes that tell its groups apart.
  EXPECT_EQ(group_label({"sweep", "model.norm", "model.encoder_layers"}, {"depth-61", "post", "6"}),
            "norm=post, encoder_layers=6, sweep=depth-61");
  EXPECT_EQ(group_label({"sweep"}, {"depth-61"}), "sweep=depth-61");
  EXPECT_EQ(run_value(tags[0], R"({"model": {"norm": "x", "dim": 64}})", "model.norm"), "post");
  EXPECT_EQ(run_value(tags[1], R"({"model": {"norm": "x", "dim": 64}})", "model.dim"), "64");
  EXPECT_THROW(parse_band("sem"), InputError);
  EXPECT_THROW(parse_x_axis("epoch"), InputError);
}

TEST(CurveGroups, TheTokensAxisReadsTargetTokensBetweenLoggedSteps) {
  const std::vector<db::MetricPoint> tokens = {{10, 1000, 0}, {20, 2100, 0}};
  const RunX x(XAxis::Tokens, 0, &tokens);
  ASSERT_TRUE(x.available());
  EXPECT_EQ(x.at({20, 0, 0}), 2100);  // logged
  EXPECT_EQ(x.at({15, 0, 0}), 1550);  // halfway between
  EXPECT_EQ(x.at({5, 0, 0}), 500);    // before the first: in proportion
  EXPECT_EQ(x.at({30, 0, 0}), 2100 * 1.5);
  const RunX time(XAxis::Time, 100, nullptr);
  EXPECT_EQ(time.at({7, 0, 160.5}), 60.5);
  EXPECT_FALSE(RunX(XAxis::Tokens, 0, nullptr).available());
  // The compute axis reads train_flops the same way.
  const std::vector<db::MetricPoint> flops = {{10, 4e15, 0}, {20, 8e15, 0}};
  const RunX compute(parse_x_axis("compute"), 0, &flops);
  EXPECT_EQ(compute.at({15, 0, 0}), 6e15);
  EXPECT_EQ(x_series_metric(XAxis::Compute), "train_flops");
  EXPECT_EQ(x_series_metric(XAxis::Tokens), "target_tokens");
  EXPECT_EQ(x_series_metric(XAxis::Update), "");
  EXPECT_FALSE(RunX(XAxis::Compute, 100, nullptr).available());
}

// Two depths at equal compute: the deeper run's points move right by its cost per update, and
// a run without a train_flops curve is named, not placed.
TEST(CurveGroups, TheComputeAxisPlacesEachRunAtItsOwnTrainingFlops) {
  const fathom::testing::TempDir scratch;
  auto store = db::Store::open(scratch.file("runs.db"));
  std::vector<int64_t> ids;
  for (double per_update : {1e12, 3e12}) {
    db::NewRun run;
    run.name = "depth" + std::to_string(ids.size());
    ids.push_back(store.create_run(run));
    std::vector<db::MetricRow> rows;
    for (int step = 10; step <= 20; step += 10) {
      rows.emplace_back(step, "train_loss", 5.0 - step / 10.0, 0.0);
      rows.emplace_back(step, db::metric::kTrainFlops, per_update * step, 0.0);
    }
    store.write_metrics(ids.back(), rows);
  }
  // A queued run (nothing logged yet) has nothing to place: no refusal, no curve.
  db::NewRun queued;
  queued.name = "queued";
  ids.push_back(store.create_run(queued));
  CurveQuery query;
  query.runs = ids;
  query.metrics = {"train_loss"};
  query.x = XAxis::Compute;
  const CurveFigure figure = curves_from_store(store, query);
  EXPECT_EQ(figure.x_kind, "compute");
  ASSERT_EQ(figure.curves.size(), 2u);
  EXPECT_EQ(figure.curves[0].step, (std::vector<double>{1e13, 2e13}));
  EXPECT_EQ(figure.curves[1].step, (std::vector<double>{3e13, 6e13}));

  db::NewRun old;
  old.name = "old";
  const int64_t id = store.create_run(old);
  store.write_metrics(id, {{10, "train_loss", 1.0, 0.0}});
  query.runs = {id};
  try {
    curves_from_store(store, query);
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no train_flops curve"), std::string::npos) << e.what();
  }
}

TEST(CurveGroups, FromTheStoreGroupedBySweepAxesAgainstTokens) {
  const fathom::testing::TempDir scratch;
  const std::string path = scratch.file("runs.db");
  auto store = db::Store::open(path);
  // Two norms x two seeds; pre's seed 2 diverges after step 20.
  for (const char* norm : {"post", "pre"})
    for (int seed : {1, 2}) {
      db::NewRun run;
      run.name = std::string("s/norm=") + norm + ",seed=" + std::to_string(seed);
      run.sweep = "s";
      const int64_t id = store.create_run(run);
      store.set_tag(id, "axis.model.norm", norm);
      store.set_tag(id, "axis.train.seed", std::to_string(seed));
      const bool blows_up = std::string(norm) == "pre" && seed == 2;
      std::vector<db::MetricRow> rows;
      for (int step = 10; step <= 30; step += 10) {
        const double loss = blows_up && step == 30 ? kInf : step / 10.0 + seed;
        rows.emplace_back(step, "train_loss", loss, 0.0);
        rows.emplace_back(step, db::metric::kTargetTokens, step * 100.0 * seed, 0.0);
      }
      store.write_metrics(id, rows);
      store.finish_run(id, blows_up ? "diverged" : "finished", "",
                       blows_up ? std::optional<int64_t>(30) : std::nullopt);
    }
  CurveQuery query;
  query.sweep = "s";
  query.metrics = {"train_loss"};
  query.group_by = {"axes"};
  query.x = XAxis::Tokens;
  const CurveFigure figure = curves_from_store(store, query);
  EXPECT_EQ(figure.x_kind, "tokens");
  EXPECT_EQ(figure.band, "std");
  ASSERT_EQ(figure.curves.size(), 2u);
  const Curve& post = figure.curves[0];
  EXPECT_EQ(post.label, "norm=post (n=2)");
  EXPECT_EQ(post.members, (std::vector<std::string>{"#1 norm=post,seed=1", "#2 norm=post,seed=2"}));
  // Step 10: losses 2 and 3 -> 2.5; tokens 1000 and 2000 -> 1500.
  EXPECT_EQ(post.step, (std::vector<double>{1500, 3000, 4500}));
  EXPECT_EQ(post.value, (std::vector<double>{2.5, 3.5, 4.5}));
  const Curve& pre = figure.curves[1];
  EXPECT_EQ(pre.label, "norm=pre (n=2, 1 diverged)");
  EXPECT_EQ(pre.count, (std::vector<int>{2, 2, 1}));  // 1 of 2 is not fewer than half
  ASSERT_EQ(pre.ends.size(), 1u);
  EXPECT_EQ(pre.ends[0].x, 4000);  // seed 2's step 20: 20 * 100 * 2 tokens, loss 4
  EXPECT_EQ(pre.ends[0].y, 4);

  // A run without a target_tokens curve cannot be placed on the tokens axis: said, not guessed.
  db::NewRun old;
  old.name = "old";
  const int64_t id = store.create_run(old);
  store.write_metrics(id, {{10, "train_loss", 1.0, 0.0}});
  CurveQuery tokens_of_old;
  tokens_of_old.runs = {id};
  tokens_of_old.metrics = {"train_loss"};
  tokens_of_old.x = XAxis::Tokens;
  try {
    curves_from_store(store, tokens_of_old);
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no target_tokens curve"), std::string::npos) << e.what();
  }
}

// One curve per run, coloured by a setting: the legend says the setting only where the run's
// name does not already (a sweep names its runs by their axes' last key parts), and a name part
// that merely begins with the value does not count.
TEST(CurveGroups, ARunsLegendLabelSaysTheColourSettingOnlyWhereItsNameDoesNot) {
  const fathom::testing::TempDir scratch;
  auto store = db::Store::open(scratch.file("runs.db"));
  auto add = [&](const std::string& name, const std::string& norm) {
    db::NewRun run;
    run.name = name;
    run.config_json = R"({"model":{"norm":")" + norm + R"("}})";
    const int64_t id = store.create_run(run);
    store.write_metrics(id, {{10, "train_loss", 1.0, 0.0}});
    return std::to_string(id);
  };
  const std::string swept = add("s/norm=post,seed=1", "post");
  const std::string whole_key = add("t/model.norm=pre", "pre");
  const std::string prefix = add("u/norm=postln", "post");
  const std::string custom = add("my run", "pre");
  CurveQuery query;
  query.runs = {1, 2, 3, 4};
  query.metrics = {"train_loss"};
  query.colour_by = "model.norm";
  const CurveFigure figure = curves_from_store(store, query);
  ASSERT_EQ(figure.curves.size(), 4u);
  EXPECT_EQ(figure.curves[0].label, swept + " s/norm=post,seed=1");
  EXPECT_EQ(figure.curves[1].label, whole_key + " t/model.norm=pre");
  EXPECT_EQ(figure.curves[2].label, prefix + " u/norm=postln (model.norm=post)");
  EXPECT_EQ(figure.curves[3].label, custom + " my run (model.norm=pre)");
  EXPECT_EQ(figure.curves[0].colour_key, "post");  // the colour still follows the setting
  EXPECT_EQ(figure.curves[3].colour_key, "pre");
}

}  // namespace test_curve_groups
}  // namespace fathom::plot
