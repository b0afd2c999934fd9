// Learning-rate sensitivity (experiments/lr_sensitivity.h) against values worked by hand:
// curves by the other axes, seeds averaged with each value capped at l0 = ln V, diverged runs
// at l0, the sensitivity as Wortsman et al. 2023 define it; and from a stored sweep.
#include <gtest/gtest.h>

#include <cmath>

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

  const auto table = experiments::lr_sensitivity_table(s);
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[0][0], "norm=pre");
  EXPECT_EQ(table.rows[0][1], "0.6004");
  EXPECT_EQ(table.rows[0][2], "0.001");
  EXPECT_EQ(table.rows[0][5], "0.01 (1/2)");
  EXPECT_EQ(table.rows[1][5], "0.01 (2/2)");
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
  ASSERT_EQ(s.notes.size(), 2u);  // what was left out, by status
  EXPECT_EQ(s.notes[1], "1 runs neither finished nor diverged, left out (1 running)");
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

// From a store: l0 from each run's vocab.size tag (ln 10 here); a run without it takes the
// sweep's largest value, and a note says so.
// two_methods() written to `store` as sweep "s"; every run but `untagged` gets vocab.size 10.
void write_two_methods(db::Store& store, int64_t untagged) {
  for (const auto& r : two_methods()) {
    db::NewRun n;
    n.name = "s/" + std::to_string(r.id);
    n.sweep = "s";
    n.config_json = R"({"model":{"norm":")" + r.axes.at("model.norm") + "\"}}";
    const int64_t id = store.create_run(n);
    for (const auto& [key, value] : r.axes) store.set_tag(id, "axis." + key, value);
    if (id != untagged) store.set_tag(id, "vocab.size", "10");
    if (r.metric) store.set_final_metric(id, "valid_loss", *r.metric);
    store.finish_run(id, r.status);
  }
}

TEST(LrSensitivity, FromAStoredSweep) {
  fathom::testing::TempDir scratch;
  const std::string path = (scratch.path() / "runs.db").string();
  {
    auto store = db::Store::open(path);
    write_two_methods(store, /*untagged=*/1);
  }
  const auto store = db::Store::open(path, db::OpenMode::ReadOnly);
  const auto s = experiments::load_lr_sensitivity(store, "s", "valid_loss");
  ASSERT_EQ(s.curves.size(), 2u);
  // Run 1 (2.0) takes l0 = 3.0, the largest value: uncapped; the rest as above.
  EXPECT_NEAR(s.curves[0].points[0].mean, 2.1, 1e-12);
  EXPECT_NEAR(s.curves[1].sensitivity, 2 * (std::log(10.0) - 1.9) / 3, 1e-12);
  bool noted = false;
  for (const auto& n : s.notes) noted = noted || n.find("vocab.size") != std::string::npos;
  EXPECT_TRUE(noted);

  // Every run the curves use has the tag; a queued one has none yet: no such note.
  const std::string live = (scratch.path() / "live.db").string();
  {
    auto writer = db::Store::open(live);
    write_two_methods(writer, /*untagged=*/0);  // every run tagged
    db::NewRun queued;
    queued.name = "s/queued";
    queued.sweep = "s";
    writer.set_tag(writer.create_run(queued), "axis.train.lr", "0.1");
  }
  const auto store2 = db::Store::open(live, db::OpenMode::ReadOnly);
  for (const auto& n : experiments::load_lr_sensitivity(store2, "s", "valid_loss").notes)
    EXPECT_EQ(n.find("vocab.size"), std::string::npos) << n;

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
      store.set_tag(id, "vocab.size", "10");
      std::vector<db::MetricRow> rows;
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

}  // namespace test_lr_sensitivity
