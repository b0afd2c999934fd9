// `fathom report`: axis groups (zip groups stay one axis), and the Markdown report of a sweep
// and of a run, written from a store built in the test.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <cstdio>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "base/util/error.h"
#include "db/metric_names.h"
#include "db/store.h"
#include "experiments/report.h"
#include "tests/support/temp_dir.h"

namespace test_report {
using namespace fathom;
namespace fs = std::filesystem;
using Axes = std::map<std::string, std::string>;

TEST(Report, AxisGroupsFromTheStoredLayout) {
  const auto groups = experiments::axis_groups(
      {}, "model.encoder_layers+model.decoder_layers,model.norm,train.seed");
  ASSERT_EQ(groups.size(), 2u);  // the seeds are not a table axis
  EXPECT_EQ(groups[0], (std::vector<std::string>{"model.encoder_layers", "model.decoder_layers"}));
  EXPECT_EQ(groups[1], std::vector<std::string>{"model.norm"});
}

// Without a layout tag: keys whose values determine each other (a zip) group, a grid's keys
// do not.
TEST(Report, AxisGroupsInferredWhenNoLayoutIsStored) {
  std::vector<Axes> runs;
  for (const auto& [enc, dec] : {std::pair{"6", "6"}, {"18", "18"}})
    for (const char* norm : {"post", "pre"})
      for (const char* seed : {"1", "2"})
        runs.push_back({{"model.encoder_layers", enc},
                        {"model.decoder_layers", dec},
                        {"model.norm", norm},
                        {"train.seed", seed}});
  const auto groups = experiments::axis_groups(runs, "");
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0], (std::vector<std::string>{"model.decoder_layers", "model.encoder_layers"}));
  EXPECT_EQ(groups[1], std::vector<std::string>{"model.norm"});
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Report, SweepAndRunReports) {
  const fathom::testing::TempDir scratch;
  const fs::path dir = scratch.path();
  const std::string db = (dir / "runs.db").string();
  int64_t first = 0;
  {
    auto store = db::Store::open(db);
    for (auto [norm, seed, bleu] : {std::tuple{"post", "1", 30.0},
                                    {"post", "2", 32.0},
                                    {"pre", "1", 20.0},
                                    {"pre", "2", 0.0}}) {
      db::NewRun n;
      n.name = std::string("s/norm=") + norm + ",seed=" + seed;
      n.sweep = "s";
      n.config_yaml = "name: x\n";
      const int64_t id = store.create_run(n);
      if (!first) first = id;
      store.set_tag(id, "axis.model.norm", norm);
      store.set_tag(id, "axis.train.seed", seed);
      store.set_tag(id, "sweep.axes", "model.norm,train.seed");
      store.write_metrics(id, {{10, "valid_loss", 2.0, 0.0}});
      if (std::string(seed) == "1")  // train.valid_bleu: the BLEU curve is drawn too
        store.write_metrics(id, {{10, "valid_bleu", bleu / 2, 0.0}});
      else  // train.noise_scale: and B_simple's, on a log axis
        store.write_metrics(id, {{10, "noise.b_simple", 120.0, 0.0}});
      if (std::string(norm) == "pre")  // pre's runs were probed: the report draws them
        store.write_probes(id, {{25, "stream.rms", {"enc.0.ffn"}, {1.5f}, 0},
                                {50, "stream.rms", {"enc.0.ffn"}, {2.5f}, 0}});
      if (bleu > 0) {
        store.set_final_metric(id, "test_bleu", bleu);
        store.finish_run(id, "finished");
      } else {
        store.finish_run(id, "diverged", "loss exploded", 77);
      }
    }
  }
  const auto store = db::Store::open(db, db::OpenMode::ReadOnly);
  experiments::ReportOptions options;
  options.out_dir = (dir / "sweep").string();
  options.metrics = {"test_bleu", "test_bpb"};  // no run has bits per byte
  std::vector<std::string> asked;
  std::vector<bool> log_y;
  options.render_curves = [&](const experiments::CurvesRequest& r) {
    asked.push_back(r.file_stem);
    log_y.push_back(r.log_y);
    EXPECT_EQ(r.runs.size(), 4u);
    // Two seeds per configuration: one curve per configuration, the mean over its seeds.
    EXPECT_EQ(r.group_by, std::vector<std::string>{"axes"});
    EXPECT_EQ(r.colour_by, "");
    return r.file_stem + ".png";
  };
  const std::string text = read(experiments::write_report(store, "s", options));
  // One swept axis: its share would be the whole of V by definition -- no importance section.
  EXPECT_EQ(text.find("## Which axes matter"), std::string::npos) << text;
  EXPECT_NE(text.find("4 runs: 1 diverged, 3 finished"), std::string::npos) << text;
  EXPECT_NE(text.find("| model.norm | post, pre |"), std::string::npos) << text;
  // Mean and sample std of post's two runs; pre's value rests on one run (seed 2 diverged), so
  // every cell says its n.
  EXPECT_NE(text.find("| post | 31.00 ± 1.41 (n=2) |"), std::string::npos) << text;
  EXPECT_NE(text.find("| pre | 20.00 (n=1)† |"), std::string::npos) << text;
  EXPECT_NE(text.find("diverged@77"), std::string::npos) << text;  // in the runs table
  // A column, and a table, only for a metric some run has.
  EXPECT_NE(text.find("| id | run | status | updates | test_bleu |\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("test_bpb"), std::string::npos) << text;
  EXPECT_EQ(asked, (std::vector<std::string>{"curves-valid_loss",  // only stored metrics
                                             "curves-valid_bleu", "curves-noise.b_simple"}));
  EXPECT_EQ(log_y, (std::vector<bool>{false, false, true}));
  EXPECT_NE(text.find("![valid_loss](curves-valid_loss.png)"), std::string::npos);
  EXPECT_NE(text.find("the mean over its seeds, shaded +-1 sample std"), std::string::npos) << text;
  // Without a probe renderer the section still says what was recorded.
  EXPECT_NE(text.find("2 run(s) recorded training probes"), std::string::npos) << text;
  EXPECT_NE(text.find("### stream.rms\n\n(figures need a build with Qt)"), std::string::npos);
  std::vector<int64_t> drawn;
  options.out_dir = (dir / "probed").string();
  options.render_probes = [&](const std::vector<std::pair<int64_t, db::ProbeSeries>>& runs,
                              const std::string& probe, const std::string& stem) {
    EXPECT_EQ(probe, "stream.rms");  // the only probe stored
    std::vector<std::string> files;
    for (const auto& [id, series] : runs) {
      drawn.push_back(id);
      EXPECT_EQ(series.steps, (std::vector<int64_t>{25, 50}));
      files.push_back(stem + "-run" + std::to_string(id) + ".png");
    }
    return files;
  };
  const std::string probed = read(experiments::write_report(store, "s", options));
  EXPECT_EQ(drawn, (std::vector<int64_t>{first + 2, first + 3}));  // the two pre runs
  EXPECT_NE(probed.find("![run " + std::to_string(first + 2) + "](probe-stream.rms-run" +
                        std::to_string(first + 2) + ".png)"),
            std::string::npos)
      << probed;
  options.render_probes = nullptr;

  options.out_dir = (dir / "run").string();
  options.render_curves = nullptr;
  const std::string run = read(experiments::write_report(store, std::to_string(first), options));
  EXPECT_NE(run.find("| test_bleu | 30 |"), std::string::npos) << run;
  EXPECT_NE(run.find("name: x"), std::string::npos);
  EXPECT_NE(run.find("need a build with Qt"), std::string::npos);
  EXPECT_THROW(experiments::write_report(store, "nothing", options), InputError);
}

// A sweep of learning-rate schedules draws the lr curve beside the losses (it is what tells
// the runs apart); a sweep whose runs share one schedule -- even at other peak rates -- does
// not.
TEST(Report, ASweepOfSchedulesDrawsTheLearningRate) {
  const fathom::testing::TempDir scratch;
  const std::string db = (scratch.path() / "runs.db").string();
  {
    auto store = db::Store::open(db);
    for (auto [sweep, json] :
         {std::pair{"schedules", R"({"train": {"schedule": "cosine", "warmup": 10}})"},
          {"schedules", R"({"train": {"schedule": "inverse_sqrt", "warmup": 10}})"},
          {"rates", R"({"train": {"schedule": "inverse_sqrt", "lr": 0.001}})"},
          {"rates", R"({"train": {"schedule": "inverse_sqrt", "lr": 0.002}})"}}) {
      db::NewRun n;
      n.name = std::string(sweep) + "/" + json;
      n.sweep = sweep;
      n.config_json = json;
      const int64_t id = store.create_run(n);
      store.write_metrics(id, {{10, "valid_loss", 2.0, 0.0}, {10, "lr", 1e-3, 0.0}});
      store.finish_run(id, "finished");
    }
  }
  const auto store = db::Store::open(db, db::OpenMode::ReadOnly);
  for (const char* sweep : {"schedules", "rates"}) {
    experiments::ReportOptions options;
    options.out_dir = (scratch.path() / sweep).string();
    std::vector<std::string> asked;
    options.render_curves = [&](const experiments::CurvesRequest& r) {
      asked.push_back(r.file_stem);
      return r.file_stem + ".png";
    };
    experiments::write_report(store, sweep, options);
    const std::vector<std::string> expected =
        std::string(sweep) == "schedules"
            ? std::vector<std::string>{"curves-valid_loss", "curves-lr"}
            : std::vector<std::string>{"curves-valid_loss"};
    EXPECT_EQ(asked, expected) << sweep;
  }
}

// A sweep whose runs cost unequally per token (a depth sweep) also draws the validation loss
// against training compute -- of the runs that logged it; runs of equal cost, or a difference
// under 5 %, do not.
TEST(Report, RunsOfUnequalCostAreDrawnAgainstComputeToo) {
  const fathom::testing::TempDir scratch;
  const std::string db = (scratch.path() / "runs.db").string();
  {
    auto store = db::Store::open(db);
    // (sweep, FLOPs per target token; 0: an older run without the count)
    for (auto [sweep, per_token] : {std::pair{"depth", 6e6},
                                    {"depth", 18e6},
                                    {"depth", 0.0},
                                    {"norms", 6e6},
                                    {"norms", 6.2e6}}) {
      db::NewRun n;
      n.name = std::string(sweep) + "/" + std::to_string(per_token);
      n.sweep = sweep;
      const int64_t id = store.create_run(n);
      std::vector<db::MetricRow> rows = {{10, "valid_loss", 2.0, 0.0}};
      if (per_token > 0) rows.emplace_back(10, db::metric::kTrainFlops, per_token * 1000, 0.0);
      store.write_metrics(id, rows);
      store.set_final_metric(id, db::metric::kTrainTokens, 1000);
      if (per_token > 0) store.set_final_metric(id, db::metric::kTrainFlops, per_token * 1000);
      store.finish_run(id, "finished");
    }
  }
  const auto store = db::Store::open(db, db::OpenMode::ReadOnly);
  for (const char* sweep : {"depth", "norms"}) {
    experiments::ReportOptions options;
    options.out_dir = (scratch.path() / sweep).string();
    std::vector<experiments::CurvesRequest> asked;
    options.render_curves = [&](const experiments::CurvesRequest& r) {
      asked.push_back(r);
      return r.file_stem + ".png";
    };
    const std::string text = read(experiments::write_report(store, sweep, options));
    if (std::string(sweep) == "norms") {
      EXPECT_EQ(asked.size(), 1u);
      EXPECT_EQ(text.find("training costs differ"), std::string::npos);
      continue;
    }
    ASSERT_EQ(asked.size(), 2u);
    EXPECT_EQ(asked[1].x, "compute");
    EXPECT_EQ(asked[1].runs, (std::vector<int64_t>{1, 2}));  // run 3 has no train_flops curve
    // The figure draws the equal-compute tables' budget: the cheaper run's 6e9 FLOPs.
    ASSERT_TRUE(asked[1].at);
    EXPECT_EQ(asked[1].at->axis, "compute");
    EXPECT_DOUBLE_EQ(asked[1].at->x, 6e9);
    EXPECT_FALSE(asked[0].at);
    EXPECT_NE(text.find("The dashed line is the budget"), std::string::npos) << text;
    EXPECT_NE(text.find("the costliest 3.00x the cheapest"), std::string::npos) << text;
    EXPECT_NE(text.find("(1 runs trained before Fathom counted it left out)"), std::string::npos);
  }
}

// Sweep "d": lr x norm x 2 seeds at 6 layers, runs 1-8 in this order, each with a final
// valid_ppl and valid_loss and one logged point.
void write_lr_norm_sweep(const std::string& db) {
  auto store = db::Store::open(db);
  for (auto [lr, norm, layers, seed, ppl] : {std::tuple{"1e-3", "post", "6", "1", 3.0},
                                             {"1e-3", "post", "6", "2", 3.2},
                                             {"2e-3", "post", "6", "1", 2.0},
                                             {"2e-3", "post", "6", "2", 2.4},
                                             {"1e-3", "pre", "6", "1", 5.0},
                                             {"1e-3", "pre", "6", "2", 5.0},
                                             {"2e-3", "pre", "6", "1", 6.0},
                                             {"2e-3", "pre", "6", "2", 7.0}}) {
    db::NewRun n;
    n.name = std::string("d/") + lr + norm + seed;
    n.sweep = "d";
    n.config_json = std::string(R"({"model":{"norm":")") + norm + R"(","encoder_layers":)" +
                    layers + R"(},"train":{"lr":)" + lr + R"(,"seed":)" + seed + "}}";
    const int64_t id = store.create_run(n);
    store.set_tag(id, "axis.train.lr", lr);
    store.set_tag(id, "axis.model.encoder_layers", layers);
    store.set_tag(id, "axis.model.norm", norm);
    store.set_tag(id, "axis.train.seed", seed);
    store.set_tag(id, "sweep.axes", "train.lr,model.encoder_layers,model.norm,train.seed");
    store.set_final_metric(id, "valid_ppl", ppl);
    store.set_final_metric(id, "valid_loss", std::log(ppl));  // variants are chosen on it
    store.write_metrics(id, {{100, "valid_ppl", ppl, 0.0}, {100, "train_loss", 1.0, 0.0}});
    store.finish_run(id, "finished");
  }
}

// A depth study's layout: methods by depth, each at its best learning rate. The default
// (first axis group by the second) would pool the methods; --rows/--cols/--agg best give the
// paper's table, and each cell names the learning rate it took.
TEST(Report, TablesTakeTheAskedLayoutAndBestVariant) {
  const fathom::testing::TempDir scratch;
  const std::string db = (scratch.path() / "runs.db").string();
  write_lr_norm_sweep(db);
  const auto store = db::Store::open(db, db::OpenMode::ReadOnly);
  experiments::ReportOptions options;
  options.out_dir = (scratch.path() / "report").string();
  options.metrics = {"valid_ppl"};
  options.rows = "model.norm";
  options.cols = "model.encoder_layers";
  options.agg = experiments::CellAgg::Best;
  // Figures: one per column value, one curve per row (grouped by the row keys), drawn from the
  // chosen variant's runs; train_loss has no final value here, so its figure takes every run.
  std::map<std::string, std::vector<int64_t>> asked;
  options.render_curves = [&](const experiments::CurvesRequest& r) {
    EXPECT_EQ(r.group_by, std::vector<std::string>{"model.norm"});
    asked[r.file_stem] = r.runs;
    return r.file_stem + ".png";
  };
  const std::string text = read(experiments::write_report(store, "d", options));
  ASSERT_EQ(asked.size(), 2u) << text;
  // Runs 1-8 in the order above: post lr 2e-3 are 3 and 4, pre lr 1e-3 are 5 and 6.
  EXPECT_EQ(asked.at("curves-valid_ppl-encoder_layers-6"), (std::vector<int64_t>{3, 4, 5, 6}));
  EXPECT_EQ(asked.at("curves-train_loss-encoder_layers-6").size(), 8u);
  EXPECT_NE(text.find("![valid_ppl encoder_layers=6](curves-valid_ppl-encoder_layers-6.png)"),
            std::string::npos)
      << text;
  // post: lr 2e-3 (mean 2.2, std sqrt(0.08)) beats 1e-3 (3.1); pre: 1e-3 (5.0, std 0) beats 6.5.
  EXPECT_NE(text.find("| post | **2.20 ± 0.28 [lr=2e-3]** |"), std::string::npos) << text;
  EXPECT_NE(text.find("| pre | 5.00 ± 0.00 [lr=1e-3] |"), std::string::npos) << text;

  // A learning-rate axis: a section with each method's sensitivity on the validation loss
  // (values worked by hand in test_lr_sensitivity.cpp). No run has a validation loss at update
  // 0 here: l0 is each run's first logged train_loss, and a note says so. The curves are told
  // apart by the norm alone (encoder_layers has one value: left out of the labels).
  EXPECT_NE(text.find("## Learning-rate sensitivity"), std::string::npos) << text;
  EXPECT_NE(text.find("| norm=post |"), std::string::npos) << text;
  EXPECT_NE(text.find("8 runs recorded before the trainer logged valid_loss at update 0 take "
                      "their first logged train_loss (update 100)"),
            std::string::npos)
      << text;

  // Two swept axes (encoder_layers has one value): which matter for the validation loss, with
  // the figure asked for. By hand over the cell means of log(ppl): mu, the norm's effect
  // -+((post) - mu), and V the mean square of the four cells around mu.
  const double a = (std::log(3.0) + std::log(3.2)) / 2, b = (std::log(2.0) + std::log(2.4)) / 2,
               c = std::log(5.0), d = (std::log(6.0) + std::log(7.0)) / 2;
  const double mu = (a + b + c + d) / 4, f_norm = (a + b) / 2 - mu;
  const double v =
      ((a - mu) * (a - mu) + (b - mu) * (b - mu) + (c - mu) * (c - mu) + (d - mu) * (d - mu)) / 4;
  char norm_share[64];
  std::snprintf(norm_share, sizeof norm_share, "| model.norm | %.4g | %.1f %% [", f_norm * f_norm,
                100 * f_norm * f_norm / v);
  EXPECT_NE(text.find("## Which axes matter"), std::string::npos) << text;
  EXPECT_NE(text.find(norm_share), std::string::npos) << norm_share << "\n" << text;

  options.render_curves = nullptr;
  options.rows = "model.depth";  // not an axis, not a config key: the table names the option
  EXPECT_THROW(experiments::write_report(store, "d", options), InputError);
}

// --where: the report of part of a sweep -- every section reads only the runs the filter keeps
// (post-LN here: no pre-LN row, run or curve anywhere), the header says which part and how
// many runs of how many; a run's report has no part to pick, and a typo is refused naming
// fathom report's option and what was meant.
TEST(Report, APartOfTheSweepIsReportedAsSuch) {
  const fathom::testing::TempDir scratch;
  const std::string db = (scratch.path() / "runs.db").string();
  write_lr_norm_sweep(db);
  const auto store = db::Store::open(db, db::OpenMode::ReadOnly);
  experiments::ReportOptions options;
  options.out_dir = (scratch.path() / "report").string();
  options.metrics = {"valid_ppl"};
  options.rows = "model.norm";
  options.cols = "train.lr";
  options.where = "model.norm=post";
  std::map<std::string, std::vector<int64_t>> asked;
  options.render_curves = [&](const experiments::CurvesRequest& r) {
    asked[r.file_stem] = r.runs;
    return r.file_stem + ".png";
  };
  const std::string text = read(experiments::write_report(store, "d", options));
  EXPECT_NE(text.find("**This report is of part of the sweep: only the runs where "
                      "model.norm=post (4 of 8).**"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("4 runs: 4 finished"), std::string::npos) << text;
  EXPECT_EQ(text.find("| pre"), std::string::npos) << text;     // no table row, no run
  EXPECT_EQ(text.find("norm=pre"), std::string::npos) << text;  // no sensitivity curve
  // By hand: 3.0, 3.2 -> 3.10 ± sqrt(0.02); 2.0, 2.4 -> 2.20 ± sqrt(0.08) (one row: each bold).
  EXPECT_NE(text.find("| post | **3.10 ± 0.14** | **2.20 ± 0.28** |"), std::string::npos) << text;
  for (const auto& [stem, runs] : asked)
    for (int64_t id : runs) EXPECT_LE(id, 4) << stem;  // runs 1-4 are the post-LN ones
  EXPECT_FALSE(asked.empty());

  options.where = "nrom=post";
  try {
    experiments::write_report(store, "d", options);
    ADD_FAILURE() << "a filter no run can match was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("fathom report"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("did you mean norm?"), std::string::npos) << e.what();
  }
  options.where = "model.norm=post";
  EXPECT_THROW(experiments::write_report(store, "1", options), InputError);  // a run
}

// The header names every build the sweep's runs came from, and says what a -dirty one means
// (cmake/git_revision.cmake); a sweep of clean builds gets no such sentence.
TEST(Report, AHeaderWarnsOfABuildWithUncommittedChanges) {
  const fathom::testing::TempDir scratch;
  const std::string db = (scratch.path() / "runs.db").string();
  {
    auto store = db::Store::open(db);
    for (auto [sweep, rev] :
         {std::pair{"clean", "abc1234"}, {"mixed", "abc1234"}, {"mixed", "abc1234-dirty"}}) {
      db::NewRun n;
      n.name = std::string(sweep) + "/" + rev;
      n.sweep = sweep;
      n.git_rev = rev;
      store.finish_run(store.create_run(n), "finished");
    }
  }
  const auto store = db::Store::open(db, db::OpenMode::ReadOnly);
  experiments::ReportOptions options;
  const std::string warning = "A revision marked -dirty was built with uncommitted changes";
  options.out_dir = (scratch.path() / "clean").string();
  const std::string clean = read(experiments::write_report(store, "clean", options));
  EXPECT_NE(clean.find("built from git abc1234."), std::string::npos) << clean;
  EXPECT_EQ(clean.find(warning), std::string::npos) << clean;
  options.out_dir = (scratch.path() / "mixed").string();
  const std::string mixed = read(experiments::write_report(store, "mixed", options));
  EXPECT_NE(mixed.find("built from git abc1234, abc1234-dirty. " + warning), std::string::npos)
      << mixed;
}

// The runs table prints each metric's column with one number of decimals, 4 significant
// digits of its largest value: 29.5 beside 69.55 is 29.50, 2.18 beside 2.152 is 2.180, 1234.5
// rounds to 1235 and 7 to 7; a column of tiny values keeps %.4g.
TEST(Report, TheRunsTableGivesEachColumnOneNumberOfDecimals) {
  const fathom::testing::TempDir scratch;
  const std::string db = (scratch.path() / "runs.db").string();
  {
    auto store = db::Store::open(db);
    for (auto [bleu, ppl, time, tiny] :
         {std::tuple{69.55, 2.152, 1234.6, 0.0001234}, {29.5, 2.18, 7.0, 0.00002}}) {
      db::NewRun n;
      n.name = "d/" + std::to_string(bleu);
      n.sweep = "d";
      const int64_t id = store.create_run(n);
      store.set_final_metric(id, "test_bleu", bleu);
      store.set_final_metric(id, "valid_ppl", ppl);
      store.set_final_metric(id, "train_time_s", time);
      store.set_final_metric(id, "grad_scale", tiny);
      store.finish_run(id, "finished");
    }
  }
  const auto store = db::Store::open(db, db::OpenMode::ReadOnly);
  experiments::ReportOptions options;
  options.out_dir = (scratch.path() / "d").string();
  options.metrics = {"test_bleu", "valid_ppl", "train_time_s", "grad_scale"};
  const std::string text = read(experiments::write_report(store, "d", options));
  EXPECT_NE(text.find("| finished | 0 | 69.55 | 2.152 | 1235 | 0.0001234 |"), std::string::npos)
      << text;
  EXPECT_NE(text.find("| finished | 0 | 29.50 | 2.180 | 7 | 2e-05 |"), std::string::npos) << text;
}

}  // namespace test_report

namespace test_report {

// The Samples section: a sweep shows the samples of the run it would choose on the validation
// loss (not the last one, nor the best test metric); a language model's table has the prompt,
// the text, the greedy and the top-k continuation; a run report shows its own.
TEST(Report, SamplesOfTheRunChosenOnValidation) {
  const fathom::testing::TempDir scratch;
  const std::string db = (scratch.path() / "runs.db").string();
  {
    auto store = db::Store::open(db);
    for (auto [lr, valid, test] :
         {std::tuple{"1e-3", 2.5, 1.0}, {"2e-3", 2.0, 3.0}, {"4e-3", 3.0, 0.5}}) {
      db::NewRun n;
      n.name = std::string("lm/lr=") + lr;
      n.sweep = "lm";
      n.config_yaml = "name: x\n";
      n.config_json = R"({"model": {"arch": "decoder_only"}})";
      const int64_t id = store.create_run(n);
      store.set_tag(id, "axis.train.lr", lr);
      store.set_tag(id, "sweep.axes", "train.lr");
      store.set_tag(id, "samples.u50",
                    std::string(R"([{"source": "a cat", "reference": "sat",)") +
                        R"( "hypothesis": "greedy of )" + lr +
                        R"(", "sampled": "drawn", "top_k": 10}])");
      store.set_final_metric(id, "valid_loss", valid);
      store.set_final_metric(id, "test_loss", test);
      store.finish_run(id, "finished");
    }
  }
  const auto store = db::Store::open(db, db::OpenMode::ReadOnly);
  experiments::ReportOptions options;
  options.out_dir = (scratch.path() / "report").string();
  const std::string text = read(experiments::write_report(store, "lm", options));
  EXPECT_NE(text.find("## Samples"), std::string::npos) << text;
  EXPECT_NE(text.find("Run 2 (`lm/lr=2e-3`), best valid_loss"), std::string::npos) << text;
  EXPECT_NE(text.find("sampled from the top 10"), std::string::npos) << text;
  EXPECT_NE(text.find("| prompt | text | greedy | top-k |"), std::string::npos) << text;
  EXPECT_NE(text.find("| a cat | sat | greedy of 2e-3 | drawn |"), std::string::npos) << text;
  EXPECT_EQ(text.find("greedy of 4e-3"), std::string::npos) << "the best test loss is not chosen";

  options.out_dir = (scratch.path() / "run").string();
  const std::string run = read(experiments::write_report(store, "3", options));
  EXPECT_NE(run.find("| a cat | sat | greedy of 4e-3 | drawn |"), std::string::npos) << run;
}

}  // namespace test_report
