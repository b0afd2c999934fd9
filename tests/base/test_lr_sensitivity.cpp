// Learning-rate sensitivity (experiments/lr_sensitivity.h) against values worked by hand:
// curves by the other axes, seeds averaged with each value capped at its run's l0, diverged
// runs at l0, the sensitivity as Wortsman et al. 2023 define it over one range common to the
// curves, rates weighted by their log spacing, its bootstrap interval; and from a stored sweep,
// l0 from the loss at update 0 or else the first logged training loss.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "base/util/error.h"
#include "db/store.h"
#include "experiments/lr_sensitivity.h"
#include "tests/support/temp_dir.h"

namespace test_lr_sensitivity {
using namespace fathom;

experiments::TableRun run(int64_t id, const std::string& norm, const std::string& lr,
                          const std::string& seed, const std::string& status,
                          std::optional<double> loss) {
  experiments::TableRun r;
  r.id = id;
  r.status = status;
  r.axes = {{"model.norm", norm}, {"train.lr", lr}, {"train.seed", seed}};
  r.metric = loss;
  return r;
}

// pre:  1e-4 {2.0, 2.2} -> 2.1; 1e-3 {1.0, 1.2} -> 1.1; 1e-2 {1.5, diverged = l0}.
// post: 1e-4 {2.5, 3.0}, both above l0 = ln 10 = 2.302585 -> l0; 1e-3 {1.8, 2.0} -> 1.9;
//       1e-2 both diverged -> l0.
std::vector<experiments::TableRun> two_methods() {
  return {
      run(1, "pre", "1e-4", "1", "finished", 2.0),  run(2, "pre", "1e-4", "2", "finished", 2.2),
      run(3, "pre", "1e-3", "1", "finished", 1.0),  run(4, "pre", "1e-3", "2", "finished", 1.2),
      run(5, "pre", "1e-2", "1", "finished", 1.5),  run(6, "pre", "1e-2", "2", "diverged", {}),
      run(7, "post", "1e-4", "1", "finished", 2.5), run(8, "post", "1e-4", "2", "finished", 3.0),
      run(9, "post", "1e-3", "1", "finished", 1.8), run(10, "post", "1e-3", "2", "finished", 2.0),
      run(11, "post", "1e-2", "1", "diverged", {}), run(12, "post", "1e-2", "2", "diverged", {})};
}

TEST(LrSensitivity, CurvesCappedAtTheInitialLossAndTheirSensitivity) {
  const double l0 = std::log(10.0);
  const auto s = experiments::lr_sensitivity(two_methods(), "valid_loss",
                                             [&](int64_t) { return std::optional<double>(l0); });
  ASSERT_EQ(s.curves.size(), 2u);
  const auto& pre = s.curves[0];
  EXPECT_EQ(pre.label, "norm=pre");
  ASSERT_EQ(pre.points.size(), 3u);
  EXPECT_DOUBLE_EQ(pre.points[0].lr, 1e-4);
  EXPECT_NEAR(pre.points[0].mean, 2.1, 1e-12);
  EXPECT_NEAR(pre.points[2].mean, (1.5 + l0) / 2, 1e-12);
  EXPECT_EQ(pre.points[2].diverged, 1);
  EXPECT_DOUBLE_EQ(pre.points[2].lo, 1.5);
  EXPECT_DOUBLE_EQ(pre.points[2].hi, l0);
  EXPECT_DOUBLE_EQ(pre.best_lr, 1e-3);
  EXPECT_NEAR(pre.best_loss, 1.1, 1e-12);
  EXPECT_NEAR(pre.sensitivity, ((2.1 - 1.1) + 0 + ((1.5 + l0) / 2 - 1.1)) / 3, 1e-12);  // 0.60043

  const auto& post = s.curves[1];
  EXPECT_EQ(post.label, "norm=post");
  EXPECT_NEAR(post.points[0].mean, l0, 1e-12);  // 2.5 and 3.0 are worse than not training
  EXPECT_NEAR(post.points[2].mean, l0, 1e-12);
  EXPECT_EQ(post.points[2].diverged, 2);
  EXPECT_NEAR(post.best_loss, 1.9, 1e-12);
  EXPECT_NEAR(post.sensitivity, 2 * (l0 - 1.9) / 3, 1e-12);  // 0.26839

  // Both curves span 1e-4 to 1e-2: that is the common range, every rate in it.
  EXPECT_DOUBLE_EQ(s.range_lo, 1e-4);
  EXPECT_DOUBLE_EQ(s.range_hi, 1e-2);
  EXPECT_EQ(pre.in_range, 3);

  const auto table = experiments::lr_sensitivity_table(s);
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[0][0], "norm=pre");
  EXPECT_EQ(table.rows[0][1], "0.6004");
  EXPECT_EQ(table.rows[0][2].front(), '[');  // two seeds at every rate: an interval
  EXPECT_EQ(table.rows[0][3], "0.001");
  EXPECT_EQ(table.rows[0][5], "3 of 3");
  EXPECT_EQ(table.rows[0][6], "0.01 (1/2)");
  EXPECT_EQ(table.rows[1][6], "0.01 (2/2)");
}

// A curve's label names the axes that tell curves apart: an axis with one value over the runs
// (the depth a filter kept, say) would repeat on every curve, so it is left out.
TEST(LrSensitivity, AnAxisWithOneValueIsLeftOutOfTheLabels) {
  const auto l0 = [](int64_t) { return std::optional<double>(std::log(10.0)); };
  auto runs = two_methods();
  for (auto& r : runs) r.axes["model.decoder_layers"] = "24";
  auto s = experiments::lr_sensitivity(runs, "valid_loss", l0);
  ASSERT_EQ(s.curves.size(), 2u);
  EXPECT_EQ(s.curves[0].label, "norm=pre");
  EXPECT_EQ(s.curves[1].label, "norm=post");
  runs.back().axes["model.decoder_layers"] = "12";  // now it tells two post curves apart
  s = experiments::lr_sensitivity(runs, "valid_loss", l0);
  ASSERT_EQ(s.curves.size(), 3u);
  EXPECT_EQ(s.curves[0].label, "decoder_layers=24, norm=pre");
  EXPECT_EQ(s.curves[2].label, "decoder_layers=12, norm=post");
}

// --label names curves by the given axes' values, in the given order, like a table's rows; the
// axes it does not name that still tell curves apart follow as key=value; the rate cannot be a
// label and an unknown key is refused with the sweep's axes.
TEST(LrSensitivity, ALabelNamesCurvesByTheGivenAxesValues) {
  const auto l0 = [](int64_t) { return std::optional<double>(std::log(10.0)); };
  auto runs = two_methods();
  for (auto& r : runs) r.axes["model.init"] = r.axes.at("model.norm") == "pre" ? "xavier" : "admin";
  runs.back().axes["model.decoder_layers"] = "12";
  for (size_t i = 0; i + 1 < runs.size(); ++i) runs[i].axes["model.decoder_layers"] = "6";
  auto s = experiments::lr_sensitivity(runs, "valid_loss", l0, "model.init + model.norm");
  ASSERT_EQ(s.curves.size(), 3u);
  EXPECT_EQ(s.curves[0].label, "xavier / pre, decoder_layers=6");
  EXPECT_EQ(s.curves[1].label, "admin / post, decoder_layers=6");
  EXPECT_EQ(s.curves[2].label, "admin / post, decoder_layers=12");
  // The same curves and numbers as without the label: it renames, it does not regroup.
  const auto plain = experiments::lr_sensitivity(runs, "valid_loss", l0);
  ASSERT_EQ(plain.curves.size(), 3u);
  EXPECT_EQ(plain.curves[1].label, "decoder_layers=6, init=admin, norm=post");
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(s.curves[i].points.size(), plain.curves[i].points.size()) << i;
    EXPECT_DOUBLE_EQ(s.curves[i].best_loss, plain.curves[i].best_loss) << i;
  }
  EXPECT_DOUBLE_EQ(s.curves[1].sensitivity, plain.curves[1].sensitivity);
  EXPECT_TRUE(std::isnan(s.curves[2].sensitivity));  // one rate (post, 12 layers, 1e-2)
  // Naming an axis with one value keeps it (asked for), unlike the default label.
  for (auto& r : runs) r.axes["model.decoder_layers"] = "6";
  s = experiments::lr_sensitivity(runs, "valid_loss", l0, "model.norm+model.decoder_layers");
  ASSERT_EQ(s.curves.size(), 2u);
  EXPECT_EQ(s.curves[0].label, "pre / 6, init=xavier");  // init varies: it still follows
  EXPECT_EQ(s.curves[1].label, "post / 6, init=admin");

  for (const std::string bad : {"model.norm+model.heads", "train.lr"}) {
    try {
      experiments::lr_sensitivity(runs, "valid_loss", l0, bad);
      FAIL() << bad << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "--label");
      EXPECT_NE(std::string(e.what()).find(bad == "train.lr" ? "x axis" : "model.init"),
                std::string::npos)
          << e.what();
    }
  }
}

// A sweep still running: a setting whose runs have ended at one rate only has no sensitivity
// yet (seen on a live depth study, where 0 read as "perfectly insensitive").
TEST(LrSensitivity, OneRateIsNotACurve) {
  auto runs = two_methods();
  runs.push_back(run(13, "mix", "1e-3", "1", "finished", 1.4));
  runs.push_back(run(14, "mix", "1e-2", "1", "running", {}));  // not ended: left out
  const auto s = experiments::lr_sensitivity(
      runs, "valid_loss", [&](int64_t) { return std::optional<double>(std::log(10.0)); });
  ASSERT_EQ(s.curves.size(), 3u);
  EXPECT_EQ(s.curves[2].points.size(), 1u);
  EXPECT_TRUE(std::isnan(s.curves[2].sensitivity));
  EXPECT_DOUBLE_EQ(s.curves[2].best_loss, 1.4);
  EXPECT_EQ(experiments::lr_sensitivity_table(s).rows[2][1], "n/a (1 rate)");
  ASSERT_EQ(s.notes.size(), 3u);  // how, the range, what was left out by status
  EXPECT_EQ(s.notes[2], "1 runs neither finished nor diverged, left out (1 running)");
}

TEST(LrSensitivity, NeedsALossAndARateAxis) {
  const auto l0 = [](int64_t) { return std::optional<double>(2.3); };
  try {
    experiments::lr_sensitivity(two_methods(), "test_bleu", l0);
    FAIL() << "a BLEU sensitivity accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--metric");
  }
  auto one_rate = two_methods();
  for (auto& r : one_rate) r.axes["train.lr"] = "1e-3";
  try {
    experiments::lr_sensitivity(one_rate, "valid_loss", l0);
    FAIL() << "a single rate accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--sweep");
  }
}

// two_methods() written to `store` as sweep "s": each run's valid_loss at the end, a train_loss
// curve whose first point (update 25) is 2.2, and, for every run not in `without_init`, the
// validation loss at update 0, ln 10.
void write_two_methods(db::Store& store, const std::set<int64_t>& without_init) {
  for (const auto& r : two_methods()) {
    db::NewRun n;
    n.name = "s/" + std::to_string(r.id);
    n.sweep = "s";
    n.config_json = R"({"model":{"norm":")" + r.axes.at("model.norm") + "\"}}";
    const int64_t id = store.create_run(n);
    for (const auto& [key, value] : r.axes) store.set_tag(id, "axis." + key, value);
    if (!without_init.count(id)) store.write_metrics(id, {{0, "valid_loss", std::log(10.0), 0.0}});
    store.write_metrics(id, {{25, "train_loss", 2.2, 0.0}, {50, "train_loss", 1.9, 0.0}});
    if (r.metric) {
      store.write_metrics(id, {{50, "valid_loss", *r.metric, 0.0}});  // the end of training
      store.set_final_metric(id, "valid_loss", *r.metric);
    }
    store.finish_run(id, r.status);
  }
}

// From a store: l0 is each run's validation loss at update 0; a run recorded before the trainer
// logged it takes its first logged train_loss, and a note counts the runs of each.
TEST(LrSensitivity, FromAStoredSweep) {
  fathom::testing::TempDir scratch;
  const std::string path = (scratch.path() / "runs.db").string();
  {
    auto store = db::Store::open(path);
    write_two_methods(store, /*without_init=*/{1});
  }
  const auto store = db::Store::open(path, db::OpenMode::ReadOnly);
  const auto s = experiments::load_lr_sensitivity(store, "s", "valid_loss");
  ASSERT_EQ(s.curves.size(), 2u);
  // Run 1 (2.0) takes l0 = 2.2, its first train_loss: uncapped; the rest as worked above.
  EXPECT_NEAR(s.curves[0].points[0].mean, 2.1, 1e-12);
  EXPECT_NEAR(s.curves[1].sensitivity, 2 * (std::log(10.0) - 1.9) / 3, 1e-12);
  EXPECT_EQ(s.notes[1],
            "l0 = each run's own loss at initialization: valid_loss at update 0, before the "
            "first update (11 runs); 1 runs recorded before the trainer logged valid_loss at "
            "update 0 take their first logged train_loss (update 25), the mean over the first log "
            "window: below the loss at initialization by what those updates learnt");

  // A store from before the trainer logged update 0: every run takes 2.2, its first train_loss.
  // pre: 1e-4 {2.0, 2.2} -> 2.1, 1e-3 -> 1.1, 1e-2 {1.5, diverged = 2.2} -> 1.85: sensitivity
  // (1.0 + 0 + 0.75) / 3 = 0.58333. post: 1e-4 {2.5, 3.0} capped -> 2.2, 1e-3 -> 1.9, 1e-2 both
  // diverged -> 2.2: (0.3 + 0 + 0.3) / 3 = 0.2.
  const std::string old_path = (scratch.path() / "old.db").string();
  {
    auto writer = db::Store::open(old_path);
    write_two_methods(writer, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  }
  const auto old_store = db::Store::open(old_path, db::OpenMode::ReadOnly);
  const auto old = experiments::load_lr_sensitivity(old_store, "s", "valid_loss");
  ASSERT_EQ(old.curves.size(), 2u);
  EXPECT_NEAR(old.curves[0].sensitivity, 1.75 / 3, 1e-12);
  EXPECT_NEAR(old.curves[1].sensitivity, 0.2, 1e-12);
  EXPECT_NEAR(old.curves[1].points[2].loss0, 2.2, 1e-12);      // where its crosses are drawn
  EXPECT_NEAR(old.curves[1].points[2].loss0_max, 2.2, 1e-12);  // what its drawn means stay under
  EXPECT_EQ(old.notes[1].find("valid_loss at update 0, before"), std::string::npos);
  EXPECT_NE(old.notes[1].find("12 runs recorded before"), std::string::npos) << old.notes[1];

  // Every run the curves use has update 0; a queued one has none yet: no fallback note.
  const std::string live = (scratch.path() / "live.db").string();
  {
    auto writer = db::Store::open(live);
    write_two_methods(writer, /*without_init=*/{});  // every run has update 0
    db::NewRun queued;
    queued.name = "s/queued";
    queued.sweep = "s";
    writer.set_tag(writer.create_run(queued), "axis.train.lr", "0.1");
  }
  const auto store2 = db::Store::open(live, db::OpenMode::ReadOnly);
  for (const auto& n : experiments::load_lr_sensitivity(store2, "s", "valid_loss").notes)
    EXPECT_EQ(n.find("first logged"), std::string::npos) << n;

  // --where norm=pre: pre's curve alone (its sensitivity as worked above), and the note.
  const auto pre = experiments::load_lr_sensitivity(store2, "s", "valid_loss",
                                                    experiments::RunValue::Last, "norm=pre");
  ASSERT_EQ(pre.curves.size(), 1u);
  EXPECT_EQ(pre.curves[0].label, "all runs");
  const double l0 = std::log(10.0);
  EXPECT_NEAR(pre.curves[0].sensitivity, ((2.1 - 1.1) + 0 + ((1.5 + l0) / 2 - 1.1)) / 3, 1e-12);
  EXPECT_EQ(pre.notes.back(), "only the runs where norm=pre (6 of 13)");  // 13: the queued one
}

// Wortsman et al.'s sensitivity is of the loss at the end of training. A run's final metrics
// are its best checkpoint's, which hide a run that trained and then blew up: by default each
// run's last logged point counts (a point that is not finite as l0); `final` and `best` remain.
TEST(LrSensitivity, TheLossAtTheEndOfTrainingNotTheBestCheckpoints) {
  fathom::testing::TempDir scratch;
  const std::string path = scratch.file("end.db");
  {
    auto store = db::Store::open(path);
    // lr 1e-3 trains, then blows up: 2.0, 1.0 (its best checkpoint), 9.0 at the end.
    // lr 1e-2 ends at its best, 1.2. lr 1e-1 ends in a NaN after 2.0 (status finished).
    const std::vector<std::pair<std::string, std::vector<double>>> runs = {
        {"0.001", {2.0, 1.0, 9.0}}, {"0.01", {2.0, 1.2}}, {"0.1", {2.0, std::nan("")}}};
    for (const auto& [lr, curve] : runs) {
      db::NewRun n;
      n.name = "e/" + lr;
      n.sweep = "e";
      const int64_t id = store.create_run(n);
      store.set_tag(id, "axis.train.lr", lr);
      std::vector<db::MetricRow> rows = {{0, "valid_loss", std::log(10.0), 0.0}};  // l0
      double best = 1e9;
      for (size_t i = 0; i < curve.size(); ++i) {
        rows.emplace_back(100 * static_cast<int64_t>(i + 1), "valid_loss", curve[i], 0.0);
        if (!std::isnan(curve[i])) best = std::min(best, curve[i]);
      }
      store.write_metrics(id, rows);
      store.set_final_metric(id, "valid_loss", best);  // as the trainer: the best checkpoint's
      store.finish_run(id, "finished");
    }
  }
  const auto store = db::Store::open(path, db::OpenMode::ReadOnly);
  const double l0 = std::log(10.0);
  const auto end = experiments::load_lr_sensitivity(store, "e", "valid_loss");  // last
  ASSERT_EQ(end.curves.size(), 1u);
  const auto& c = end.curves[0];
  ASSERT_EQ(c.points.size(), 3u);
  EXPECT_NEAR(c.points[0].mean, l0, 1e-12);  // 9.0, worse than not training
  EXPECT_NEAR(c.points[1].mean, 1.2, 1e-12);
  EXPECT_NEAR(c.points[2].mean, l0, 1e-12);  // NaN at the end
  EXPECT_NEAR(c.sensitivity, 2 * (l0 - 1.2) / 3, 1e-12);
  bool said = false;
  for (const auto& n : end.notes)
    said = said || n.find("last logged valid_loss") != std::string::npos;
  EXPECT_TRUE(said);

  const auto ckpt =
      experiments::load_lr_sensitivity(store, "e", "valid_loss", experiments::RunValue::Final);
  EXPECT_NEAR(ckpt.curves[0].points[0].mean, 1.0, 1e-12);
  EXPECT_NEAR(ckpt.curves[0].sensitivity, (0 + 0.2 + 1.0) / 3, 1e-12);
  const auto best =
      experiments::load_lr_sensitivity(store, "e", "valid_loss", experiments::RunValue::Best);
  EXPECT_NEAR(best.curves[0].points[2].mean, 2.0, 1e-12);
  EXPECT_EQ(experiments::run_value_named("last", "x"), experiments::RunValue::Last);
  EXPECT_THROW(experiments::run_value_named("end", "x"), InputError);
}

// Each rate weighs its cell in log rate. Rates 1e-3, 2e-3, 8e-3 (gaps ln 2 and 2 ln 2): cells
// ln 2 (the first, as wide as its one gap), (ln 2 + 2 ln 2) / 2 = 1.5 ln 2, and 2 ln 2. Losses
// 1, 2, 4 stand 0, 1, 3 above the best: (0 + 1.5 + 2 x 3) / (1 + 1.5 + 2) = 7.5 / 4.5 = 5/3,
// where the plain mean over the rates says 4/3. On an even grid the cells are equal: the mean.
TEST(LrSensitivity, RatesWeighTheirShareOfTheRangeInLogRate) {
  EXPECT_NEAR(experiments::sensitivity_over({1e-3, 2e-3, 8e-3}, {1.0, 2.0, 4.0}), 5.0 / 3, 1e-12);
  EXPECT_NEAR(experiments::sensitivity_over({1e-3, 1e-2, 1e-1}, {1.0, 2.0, 4.0}), 4.0 / 3, 1e-12);
  // The order of the cells follows the rates: the wide cell is the top rate's here.
  EXPECT_NEAR(experiments::sensitivity_over({1e-3, 2e-3, 8e-3}, {4.0, 2.0, 1.0}),
              (3 * 1.0 + 1 * 1.5 + 0 * 2.0) / 4.5, 1e-12);
  EXPECT_TRUE(std::isnan(experiments::sensitivity_over({1e-3}, {1.0})));
  for (const std::vector<double>& bad :
       {std::vector<double>{1e-3, 1e-3}, std::vector<double>{0.0, 1e-3}}) {
    try {
      experiments::sensitivity_over(bad, {1.0, 2.0});
      FAIL() << "rates " << bad[0] << ", " << bad[1] << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "--range");
    }
  }
}

// The curves of one table are judged over one range. "long" has a run at 1e-1 the others lack
// (the lm-depth-2025 study's DeepNorm at 2.54e-2); "short" starts at 1e-3. Their common range is
// 1e-3 to 1e-2 and nobody's sensitivity counts the rates outside it:
//   long  1e-4: 2.0, 1e-3: 1.0, 1e-2: 1.2, 1e-1: l0 = 3.0 -> over 1e-3..1e-2: (0 + 0.2) / 2 = 0.1
//         (over its own four rates it would be (1.0 + 0 + 0.2 + 2.0) / 4 = 0.8)
//   short 1e-3: 1.5, 1e-2: 1.1                            -> (0.4 + 0) / 2 = 0.2
// l* is the best inside the range: with --range 1e-4:1e-3 "long" is (1.0 + 0) / 2 = 0.5, and
// "short" does not reach 1e-4: none.
TEST(LrSensitivity, CurvesShareOneRangeOfRates) {
  std::vector<experiments::TableRun> runs = {
      run(1, "long", "1e-4", "1", "finished", 2.0),  run(2, "long", "1e-3", "1", "finished", 1.0),
      run(3, "long", "1e-2", "1", "finished", 1.2),  run(4, "long", "1e-1", "1", "diverged", {}),
      run(5, "short", "1e-3", "1", "finished", 1.5), run(6, "short", "1e-2", "1", "finished", 1.1)};
  const auto l0 = [](int64_t) { return std::optional<double>(3.0); };
  auto s = experiments::lr_sensitivity(runs, "valid_loss", l0);
  EXPECT_DOUBLE_EQ(s.range_lo, 1e-3);
  EXPECT_DOUBLE_EQ(s.range_hi, 1e-2);
  EXPECT_NEAR(s.curves[0].sensitivity, 0.1, 1e-12);
  EXPECT_NEAR(s.curves[1].sensitivity, 0.2, 1e-12);
  EXPECT_EQ(s.curves[0].in_range, 2);
  EXPECT_DOUBLE_EQ(s.curves[0].best_lr, 1e-3);  // its best over every rate
  EXPECT_EQ(s.notes[1],
            "every sensitivity over the same rates, 0.001 to 0.01 (the curves' "
            "common range)");
  EXPECT_EQ(experiments::lr_sensitivity_table(s).rows[0][5], "2 of 4");

  s = experiments::lr_sensitivity(runs, "valid_loss", l0, "", std::pair{1e-4, 1e-3});
  EXPECT_NEAR(s.curves[0].sensitivity, 0.5, 1e-12);
  EXPECT_TRUE(std::isnan(s.curves[1].sensitivity));
  EXPECT_EQ(experiments::lr_sensitivity_table(s).rows[1][1], "n/a (short of the range)");
  EXPECT_NE(s.notes[1].find("0.0001 to 0.001 (--range)"), std::string::npos) << s.notes[1];
  // A range between grid points takes the rates inside it: 1e-3 and 1e-2 of "long".
  s = experiments::lr_sensitivity(runs, "valid_loss", l0, "", std::pair{5e-4, 2e-2});
  EXPECT_NEAR(s.curves[0].sensitivity, 0.1, 1e-12);

  // Curves that share no two rates: no sensitivity, and the note says to give a range.
  runs = {run(1, "a", "1e-4", "1", "finished", 2.0), run(2, "a", "1e-3", "1", "finished", 1.0),
          run(3, "b", "1e-2", "1", "finished", 1.5), run(4, "b", "1e-1", "1", "finished", 1.1)};
  s = experiments::lr_sensitivity(runs, "valid_loss", l0);
  EXPECT_TRUE(std::isnan(s.curves[0].sensitivity));
  EXPECT_NE(s.notes[1].find("give --range"), std::string::npos) << s.notes[1];

  EXPECT_EQ(experiments::parse_lr_range(" 2.5e-4 : 8e-3"), (std::pair{2.5e-4, 8e-3}));
  for (const std::string bad : {"1e-3", "1e-2:1e-3", "0:1e-3", "a:1e-3", "1e-3:"}) {
    try {
      experiments::parse_lr_range(bad);
      FAIL() << bad << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "--range");
    }
  }
}

// The interval's resampling distribution enumerated by hand: two rates, even cells; rate 1's
// seeds {1, 1}, rate 2's {2, 4}. A resample of rate 2 has mean 2 (1/4), 3 (1/2) or 4 (1/4),
// rescaled about 3 by sqrt(2/1): 3 - sqrt 2, 3, 3 + sqrt 2; so the sensitivity ((mean - 1) / 2,
// rate 1 always the best) is 1 - sqrt(2)/2, 1 or 1 + sqrt(2)/2 with those chances. The ends
// are read at the expanded percentile's points for 2 degrees of freedom (one a rate),
// Phi(-t_{0.975, 2}) = Phi(-4.30) ~ 8e-6 and 1 minus that: the extreme draws.
TEST(LrSensitivity, TheIntervalOfAnEnumerableCase) {
  const auto [lo, hi] = experiments::bootstrap_sensitivity({1e-3, 1e-2}, {{1.0, 1.0}, {2.0, 4.0}});
  EXPECT_NEAR(lo, 1 - std::sqrt(2.0) / 2, 1e-12);
  EXPECT_NEAR(hi, 1 + std::sqrt(2.0) / 2, 1e-12);
  // Deterministic: the same seed, the same interval; no spread, no width.
  EXPECT_EQ(experiments::bootstrap_sensitivity({1e-3, 1e-2}, {{1.0, 1.0}, {2.0, 4.0}}),
            (std::pair{lo, hi}));
  // Rate 2's 4 a diverged run's l0, the highest of its runs: no mean can pass it, so the rescaled
  // 3 + sqrt 2 is kept at 4 and the upper end is (4 - 1) / 2.
  const auto capped = experiments::bootstrap_sensitivity({1e-3, 1e-2}, {{1.0, 1.0}, {2.0, 4.0}},
                                                         experiments::kLrBootstrapResamples,
                                                         experiments::kLrBootstrapSeed, {1.0, 4.0});
  EXPECT_NEAR(capped.first, 1 - std::sqrt(2.0) / 2, 1e-12);
  EXPECT_DOUBLE_EQ(capped.second, 1.5);
  const auto flat = experiments::bootstrap_sensitivity({1e-3, 1e-2}, {{1.0, 1.0}, {2.0, 2.0}});
  EXPECT_DOUBLE_EQ(flat.first, 0.5);
  EXPECT_DOUBLE_EQ(flat.second, 0.5);
}

// Seeds drawn from one noisy curve: the interval covers the point estimate, and with four
// times the seeds it is about half as wide (the spread of a mean falls as 1/sqrt(n)).
TEST(LrSensitivity, TheIntervalCoversTheEstimateAndShrinksWithSeeds) {
  auto curve = [](int seeds) {
    std::mt19937_64 gen(7);
    std::normal_distribution<double> noise(0.0, 0.1);
    std::vector<experiments::TableRun> runs;
    int64_t id = 0;
    for (const auto& [lr, loss] :
         {std::pair{"1e-4", 2.0}, {"1e-3", 1.2}, {"1e-2", 1.0}, {"1e-1", 1.6}})
      for (int k = 0; k < seeds; ++k)
        runs.push_back(run(++id, "pre", lr, std::to_string(k), "finished", loss + noise(gen)));
    return experiments::lr_sensitivity(runs, "valid_loss",
                                       [](int64_t) { return std::optional<double>(10.0); })
        .curves.at(0);
  };
  const auto three = curve(3), twelve = curve(12);
  for (const auto& c : {three, twelve}) {
    EXPECT_LE(c.ci_lo, c.sensitivity);
    EXPECT_GE(c.ci_hi, c.sensitivity);
    EXPECT_NEAR(c.sensitivity, (1.0 + 0.2 + 0 + 0.6) / 4, 0.15);  // the noiseless curve's
  }
  const double ratio = (twelve.ci_hi - twelve.ci_lo) / (three.ci_hi - three.ci_lo);
  EXPECT_LT(ratio, 0.75);
  EXPECT_GT(ratio, 0.25);
}

}  // namespace test_lr_sensitivity
