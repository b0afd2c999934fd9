// `fathom export table`: cell aggregation (mean, best variant, sample std over seeds),
// diverged@step and other empty cells, bold best, and the CSV / Markdown / LaTeX renderings
// against golden files written by hand (tests/base/golden/).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/metrics/statistics.h"
#include "base/util/error.h"
#include "db/store.h"
#include "experiments/comparison_table.h"
#include "tests/support/temp_dir.h"

namespace test_comparison_table {
using namespace fathom;
namespace fs = std::filesystem;

experiments::TableRun run(int64_t id, const std::string& layers, const std::string& init,
                          const std::string& seed, const std::string& status,
                          std::optional<double> bleu,
                          std::optional<int64_t> diverged_step = std::nullopt) {
  experiments::TableRun r;
  r.id = id;
  r.status = status;
  r.diverged_step = diverged_step;
  r.axes = {{"model.encoder_layers", layers}, {"model.init", init}, {"train.seed", seed}};
  r.metric = bleu;
  return r;
}

// 6 and 18 layers by xavier, admin, rezero_postln, two seeds each; 18 x rezero_postln absent.
std::vector<experiments::TableRun> depth_runs() {
  return {
      run(1, "6", "xavier", "1", "finished", 20.0),
      run(2, "6", "xavier", "2", "finished", 22.0),
      run(3, "6", "admin", "1", "finished", 23.0),
      run(4, "6", "admin", "2", "finished", 25.0),
      run(5, "6", "rezero_postln", "1", "failed", std::nullopt),
      run(6, "6", "rezero_postln", "2", "queued", std::nullopt),
      run(7, "18", "xavier", "1", "diverged", 3.0, 120),  // a diverged run's metric is not used
      run(8, "18", "xavier", "2", "diverged", std::nullopt, 95),
      run(9, "18", "admin", "1", "finished", 26.0),
      run(10, "18", "admin", "2", "diverged", std::nullopt, 300),
  };
}

experiments::TableOptions depth_options() {
  experiments::TableOptions o;
  o.rows = "model.encoder_layers";
  o.cols = "model.init";
  o.metric = "test_bleu";
  o.spread = experiments::Spread::Std;
  o.bold = experiments::BoldBest::Column;
  return o;
}

std::string golden(const std::string& name) {
  std::ifstream in(std::string(FATHOM_SOURCE_DIR) + "/tests/base/golden/" + name, std::ios::binary);
  EXPECT_TRUE(in) << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ComparisonTable, CellsFromHandComputedRuns) {
  const auto t = experiments::build_comparison_table(depth_runs(), depth_options());
  ASSERT_EQ(t.row_labels, (std::vector<std::string>{"6", "18"}));
  ASSERT_EQ(t.col_labels, (std::vector<std::string>{"xavier", "admin", "rezero_postln"}));
  const auto& c = t.cells;
  EXPECT_DOUBLE_EQ(*c[0][0].value, 21.0);
  EXPECT_NEAR(*c[0][0].std, std::sqrt(2.0), 1e-12);  // sample std of {20, 22}
  EXPECT_EQ(c[0][2].status, "failed");               // failed outranks queued
  EXPECT_FALSE(c[1][0].value);
  EXPECT_EQ(c[1][0].status, "diverged@95");  // the earliest divergence
  EXPECT_DOUBLE_EQ(*c[1][1].value, 26.0);
  EXPECT_FALSE(c[1][1].std);  // one finished run: no std
  EXPECT_EQ(c[1][1].diverged, 1);
  EXPECT_EQ(c[1][2].runs, 0);
  EXPECT_TRUE(c[0][0].best);
  EXPECT_FALSE(c[0][1].best);
  EXPECT_TRUE(c[1][1].best);
}

TEST(ComparisonTable, GoldenCsvMarkdownLatex) {
  const auto t = experiments::build_comparison_table(depth_runs(), depth_options());
  EXPECT_EQ(experiments::table_to_csv(t), golden("depth_bleu.csv"));
  EXPECT_EQ(experiments::table_to_markdown(t), golden("depth_bleu.md"));
  EXPECT_EQ(experiments::table_to_latex(t), golden("depth_bleu.tex"));
}

// The note says what each cell holds (issue 21.5): one run per cell is not called a mean and
// gets no "± std"; a common n is stated once; cells print their n only when the n's differ.
TEST(ComparisonTable, NoteStatesTheRunsPerCellAndStdOnlyWhereThereAreTwo) {
  experiments::TableOptions o = depth_options();
  const auto single = experiments::build_comparison_table(
      {run(1, "6", "xavier", "1", "finished", 20.0), run(2, "6", "admin", "1", "finished", 23.0),
       run(3, "18", "admin", "1", "finished", 26.0)},
      o);
  EXPECT_FALSE(single.show_n);
  EXPECT_EQ(single.notes.at(0),
            "test_bleu: the cell's one finished run; no std (no cell has two finished runs); 3 "
            "runs; higher is better");
  EXPECT_EQ(experiments::table_to_markdown(single).find("±"), std::string::npos);
  EXPECT_EQ(experiments::table_to_markdown(single).find("(n="), std::string::npos);

  std::vector<experiments::TableRun> three;
  for (int seed = 1; seed <= 3; ++seed) {
    three.push_back(run(seed, "6", "xavier", std::to_string(seed), "finished", 20.0 + seed));
    three.push_back(run(10 + seed, "6", "admin", std::to_string(seed), "finished", 24.0));
  }
  const auto uniform = experiments::build_comparison_table(three, o);
  EXPECT_FALSE(uniform.show_n);
  EXPECT_EQ(
      uniform.notes.at(0),
      "test_bleu: mean over the cell's 3 finished runs ± sample std; 6 runs; higher is better");
  EXPECT_NE(experiments::table_to_markdown(uniform).find("22.00 ± 1.00"),
            std::string::npos);  // {21, 22, 23}

  const auto varying = experiments::build_comparison_table(depth_runs(), o);  // n = 2, 2 and 1
  EXPECT_TRUE(varying.show_n);
  EXPECT_EQ(varying.cells[1][1].used, 1);
}

// A cell with several variants (here two learning rates): `mean` pools every run, `best`
// takes the variant with the best mean over its seeds and reports that variant's std.
TEST(ComparisonTable, MeanPoolsVariantsBestPicksOne) {
  std::vector<experiments::TableRun> runs;
  int id = 0;
  for (auto [lr, seed, loss] :
       {std::tuple{"1e-3", "1", 2.0}, {"1e-3", "2", 4.0}, {"5e-4", "1", 2.5}, {"5e-4", "2", 2.7}}) {
    experiments::TableRun r;
    r.id = ++id;
    r.status = "finished";
    r.axes = {{"model.norm", "pre"}, {"train.lr", lr}, {"train.seed", seed}};
    r.metric = loss;
    r.final_metrics["valid_loss"] = loss;  // chosen on the reported metric itself
    runs.push_back(r);
  }
  experiments::TableOptions o;
  o.rows = "model.norm";
  o.metric = "valid_loss";
  const auto pooled = experiments::build_comparison_table(runs, o);
  ASSERT_EQ(pooled.col_labels, std::vector<std::string>{"valid_loss"});
  EXPECT_DOUBLE_EQ(*pooled.cells[0][0].value, (2.0 + 4.0 + 2.5 + 2.7) / 4);
  o.agg = experiments::CellAgg::Best;  // loss: lower is better -> lr 5e-4 (mean 2.6) beats 1e-3
                                       // (mean 3.0)
  const auto best = experiments::build_comparison_table(runs, o);
  EXPECT_DOUBLE_EQ(*best.cells[0][0].value, 2.6);
  EXPECT_NEAR(*best.cells[0][0].std, std::sqrt(0.02), 1e-12);
  // The table says which variant it took, in every format; a pooled cell names none.
  EXPECT_EQ(best.cells[0][0].variant, "lr=5e-4");
  EXPECT_EQ(best.cells[0][0].run_ids, (std::vector<int64_t>{3, 4}));  // the runs behind it
  EXPECT_EQ(pooled.cells[0][0].run_ids.size(), 4u);
  EXPECT_NE(experiments::table_to_markdown(best).find("2.60 [lr=5e-4]"), std::string::npos)
      << experiments::table_to_markdown(best);
  EXPECT_NE(experiments::table_to_latex(best).find("2.60 [lr=5e-4]"), std::string::npos);
  EXPECT_NE(experiments::table_to_csv(best).find("valid_loss variant\r\npre,2.6,lr=5e-4"),
            std::string::npos)
      << experiments::table_to_csv(best);
  EXPECT_EQ(pooled.cells[0][0].variant, "");
  EXPECT_EQ(experiments::table_to_markdown(pooled).find('['), std::string::npos);
  // What a pooled cell's spread runs over: the learning rates too, not seeds alone.
  EXPECT_EQ(pooled.pooled, std::vector<std::string>{"train.lr"});
  EXPECT_TRUE(best.pooled.empty());
  o.direction = experiments::MetricDirection::HigherIsBetter;
  const auto highest = experiments::build_comparison_table(runs, o);
  EXPECT_DOUBLE_EQ(*highest.cells[0][0].value, 3.0);
  EXPECT_EQ(highest.cells[0][0].variant, "lr=1e-3");
}

// Methods that are a zip group (norm with init): "model.norm+model.init" makes one row per
// method; model.init alone would merge post+xavier with pre+xavier.
TEST(ComparisonTable, CompositeKeyJoinsAZipGroup) {
  std::vector<experiments::TableRun> runs;
  int id = 0;
  for (auto [norm, init, bleu] :
       {std::tuple{"post", "xavier", 10.0}, {"pre", "xavier", 20.0}, {"post", "admin", 30.0}}) {
    experiments::TableRun r;
    r.id = ++id;
    r.status = "finished";
    r.axes = {{"model.norm", norm}, {"model.init", init}};
    r.metric = bleu;
    runs.push_back(r);
  }
  experiments::TableOptions o;
  o.rows = "model.norm+model.init";
  o.metric = "test_bleu";
  const auto t = experiments::build_comparison_table(runs, o);
  ASSERT_EQ(t.row_labels,
            (std::vector<std::string>{"post / xavier", "pre / xavier", "post / admin"}));
  EXPECT_DOUBLE_EQ(*t.cells[1][0].value, 20.0);
  o.rows = "model.init";  // pools post and pre under xavier
  const auto pooled = experiments::build_comparison_table(runs, o);
  EXPECT_DOUBLE_EQ(*pooled.cells[0][0].value, 15.0);
  EXPECT_NE(pooled.notes.at(0).find("pooled over model.norm"), std::string::npos)
      << pooled.notes[0];

  // A zip partner of the row axis (decoder depth beside encoder depth) splits no cell: it is
  // not called a variant.
  for (auto& r : runs) {
    r.axes["model.encoder_layers"] = r.axes["model.norm"] == "post" ? "6" : "18";
    r.axes["model.decoder_layers"] = r.axes["model.encoder_layers"];
  }
  o.rows = "model.encoder_layers";
  const auto zipped = experiments::build_comparison_table(runs, o);
  EXPECT_EQ(zipped.notes.at(0).find("pooled over model.decoder_layers"), std::string::npos)
      << zipped.notes[0];
}

TEST(ComparisonTable, LatexEscapesEverySpecialCharacter) {
  EXPECT_EQ(
      experiments::latex_escape("a_b&c%d$e#f{g}h~i^j\\k"),
      "a\\_b\\&c\\%d\\$e\\#f\\{g\\}h\\textasciitilde{}i\\textasciicircum{}j\\textbackslash{}k");
}

TEST(ComparisonTable, CsvQuotesFieldsWithCommasAndQuotes) {
  std::vector<experiments::TableRun> runs{run(1, "6", "say \"hi\", twice", "1", "finished", 1.5)};
  experiments::TableOptions o = depth_options();
  o.spread = experiments::Spread::None;
  EXPECT_EQ(experiments::table_to_csv(experiments::build_comparison_table(runs, o)),
            "model.encoder_layers,\"say \"\"hi\"\", twice\"\r\n6,1.5\r\n");
}

TEST(ComparisonTable, UnknownAxisOrMetricNamesTheFlag) {
  experiments::TableOptions o = depth_options();
  o.cols = "model.norm";
  try {
    experiments::build_comparison_table(depth_runs(), o);
    FAIL() << "unknown axis accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--cols");
    EXPECT_NE(std::string(e.what()).find("model.init"), std::string::npos) << "lists the axes";
  }
  o = depth_options();
  std::vector<experiments::TableRun> no_metric = depth_runs();
  for (auto& r : no_metric) r.metric.reset();
  try {
    experiments::build_comparison_table(no_metric, o);
    FAIL() << "missing metric accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--metric");
  }
}

// Through a real store: axis tags, final metrics, diverged runs, and a key that is not an
// axis read from the run's config.
TEST(ComparisonTable, LoadsASweepFromTheStore) {
  const fathom::testing::TempDir scratch;
  const fs::path dir = scratch.path();
  {
    auto store = db::Store::open((dir / "runs.db").string());
    auto add = [&](const std::string& norm, const std::string& seed, const std::string& status,
                   double bleu) {
      db::NewRun n;
      n.name = "s/norm=" + norm + ",seed=" + seed;
      n.sweep = "s";
      n.config_json = R"({"model":{"norm":")" + norm + R"(","encoder_layers":6},"train":{"seed":)" +
                      seed + "}}";
      const int64_t id = store.create_run(n);
      store.set_tag(id, "axis.model.norm", norm);
      store.set_tag(id, "axis.train.seed", seed);
      store.set_tag(id, "final_model", "checkpoint_best, update " + seed);
      if (status == "finished") store.set_final_metric(id, "test_bleu", bleu);
      store.finish_run(id, status, status == "diverged" ? "loss exploded" : "",
                       status == "diverged" ? std::optional<int64_t>(40) : std::nullopt);
    };
    add("post", "1", "finished", 10);
    add("post", "2", "finished", 12);
    add("pre", "1", "diverged", 0);
    // Stopped by train.patience; stopped, then resumed past the stop (the tag rewritten).
    store.set_tag(1, "early_stop", "update 5: 2 validations since update 3 without ...");
    store.set_tag(2, "early_stop", "trained on from update 5 (train.patience 0) after update 5");
    db::NewRun other;  // another sweep's run is not in the table
    other.name = "x";
    other.sweep = "other";
    store.create_run(other);
  }
  const auto store = db::Store::open((dir / "runs.db").string(), db::OpenMode::ReadOnly);
  const auto runs =
      experiments::load_table_runs(store, "s", "test_bleu", {"model.norm", "model.encoder_layers"});
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].axes.at("model.encoder_layers"), "6");
  EXPECT_EQ(runs[1].final_model.kind, db::FinalModel::Kind::BestCheckpoint);
  EXPECT_EQ(runs[1].final_model.update, 2);
  EXPECT_TRUE(runs[0].stopped_early_at.has_value());
  EXPECT_FALSE(runs[1].stopped_early_at.has_value());
  EXPECT_FALSE(runs[2].stopped_early_at.has_value());
  experiments::TableOptions o;
  o.rows = "model.encoder_layers";
  o.cols = "model.norm";
  o.metric = "test_bleu";
  const auto t = experiments::build_comparison_table(runs, o);
  EXPECT_DOUBLE_EQ(*t.cells[0][0].value, 11.0);
  EXPECT_EQ(t.cells[0][1].status, "diverged@40");
  EXPECT_THROW(experiments::load_table_runs(store, "nope", "test_bleu", {}), InputError);
}

// Runs train.patience stopped (TableRun::stopped_early_at, from the tag early_stop): a table whose
// values mix such runs with runs trained to the end warns that they are of fewer updates; one
// where every run stopped early says at which updates; a run that did not finish is not counted.
TEST(ComparisonTable, TheNotesSayWhichRunsStoppedEarly) {
  auto runs = depth_runs();  // 5 finished runs with a value: ids 1, 2, 3, 4, 9
  const auto notes_of = [&] {
    return experiments::build_comparison_table(runs, depth_options()).notes;
  };
  const auto early = [](const std::vector<std::string>& notes) {
    for (const auto& n : notes)
      if (n.find("stopped early") != std::string::npos) return n;
    return std::string();
  };
  EXPECT_EQ(early(notes_of()), "");
  runs[0].stopped_early_at = 310;
  runs[8].stopped_early_at = 225;
  runs[6].stopped_early_at = 100;  // diverged: its value is not used, nor is its stop
  EXPECT_EQ(early(notes_of()),
            "⚠ 2 of 5 runs stopped early (train.patience; tag early_stop) at updates 225-310: "
            "their values are of fewer updates than the others'");
  for (const size_t i : {1, 2, 3}) runs[i].stopped_early_at = 260;
  EXPECT_EQ(early(notes_of()),
            "every run stopped early (train.patience; tag early_stop), at updates 225-310");
  for (auto& r : runs) r.stopped_early_at = 400;
  EXPECT_EQ(early(notes_of()),
            "every run stopped early (train.patience; tag early_stop), at update 400");
}

// Which model final valid_* and test_* values measure (tag final_model, eval.average_checkpoints):
// nothing said when every run used its best checkpoint, said when they averaged, a warning when
// a table mixes the two without separating them by the key.
TEST(ComparisonTable, TheNotesSayWhichModelTheFinalMetricsMeasure) {
  const auto with_model = [](std::vector<std::string> models) {
    std::vector<experiments::TableRun> runs;
    for (size_t i = 0; i < models.size(); ++i) {
      runs.push_back(run(static_cast<int64_t>(i + 1), "6", i % 2 ? "admin" : "xavier",
                         std::to_string(i / 2 + 1), "finished", 20.0 + static_cast<double>(i)));
      runs.back().final_model = db::parse_final_model_tag(models[i]);
      runs.back().axes["eval.average_checkpoints"] = models[i].rfind("mean", 0) ? "0" : "5";
      runs.back().axes["train.best_metric"] =
          models[i].find("valid_bleu") == std::string::npos ? "valid_loss" : "valid_bleu";
      runs.back().axes["eval.average_by"] =
          models[i].find(" best checkpoints") == std::string::npos ? "last" : "best";
    }
    return runs;
  };
  const std::string mean = "mean of 5 checkpoints, updates 600 700 800 900 1000";
  experiments::TableOptions o = depth_options();  // test_bleu, final values
  EXPECT_EQ(experiments::build_comparison_table(with_model({"", "checkpoint_best, update 9"}), o)
                .notes.size(),
            1u);
  // For one protocol's tag beside runs of the default one: the note when every run follows it,
  // when half do, and when the table separates them by the protocol's key.
  const auto expect_notes = [&](const std::string& model, const std::string& protocol,
                                const std::string& key, bool by_rows) {
    SCOPED_TRACE(model);
    auto notes = experiments::build_comparison_table(with_model({model, model}), o).notes;
    ASSERT_EQ(notes.size(), 2u);
    EXPECT_EQ(notes[1], "test_bleu: every run's final model is " + protocol);
    notes = experiments::build_comparison_table(with_model({model, "", model, ""}), o).notes;
    ASSERT_EQ(notes.size(), 2u);
    EXPECT_EQ(notes[1],
              "⚠ the runs' test_bleu measure different models: 2 runs the best checkpoint, 2 "
              "runs " +
                  protocol + "; a difference may be the protocol's, not the method's");
    experiments::TableOptions by_key = o;
    (by_rows ? by_key.rows : by_key.cols) = key;
    notes = experiments::build_comparison_table(with_model({model, "", model, ""}), by_key).notes;
    ASSERT_EQ(notes.size(), 2u);
    EXPECT_EQ(notes[1].rfind("test_bleu: the final model follows " + key + " per cell", 0), 0u)
        << notes[1];
  };
  expect_notes(mean, "the mean of the last 5 kept checkpoints (eval.average_checkpoints)",
               "eval.average_checkpoints", false);
  // Best checkpoints by valid_bleu (train.best_metric) beside ones by valid_loss: other models.
  expect_notes("checkpoint_best by valid_bleu, update 385",
               "the best checkpoint by valid_bleu (train.best_metric)", "train.best_metric", true);
  // The mean of the best kept checkpoints (eval.average_by best): the keys that chose them.
  const std::string best_mean = "mean of 5 best checkpoints by valid_loss, updates 6 7 9 10 11";
  const std::string best_protocol =
      "the mean of the 5 best kept checkpoints by valid_loss (eval.average_checkpoints, "
      "eval.average_by, train.best_metric)";
  auto notes = experiments::build_comparison_table(with_model({best_mean, best_mean}), o).notes;
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[1], "test_bleu: every run's final model is " + best_protocol);
  notes = experiments::build_comparison_table(with_model({best_mean, mean}), o).notes;
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[1].find("1 runs the mean of the 5 best kept checkpoints by valid_loss, 1 runs "
                          "the mean of the last 5 kept checkpoints"),
            std::string::npos)
      << notes[1];
  // Split by the one key that differs between them, the table separates the two models.
  experiments::TableOptions by_average_by = o;
  by_average_by.cols = "eval.average_by";
  notes = experiments::build_comparison_table(with_model({best_mean, mean}), by_average_by).notes;
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[1].rfind("test_bleu: the final model follows eval.average_by per cell", 0), 0u)
      << notes[1];
  // A value not from the final model, or not the final value, is not about it.
  experiments::TableOptions best = o;
  best.value = experiments::RunValue::Best;
  EXPECT_EQ(experiments::build_comparison_table(with_model({mean, ""}), best).notes.size(), 1u);
}

// --value best (issue 21.4): each run's best point of the metric's curve, by direction
// (perplexity down, BLEU up), with its step; a run without a curve keeps its final value, and
// the note says which value the cells hold.
TEST(ComparisonTable, BestOverTrainingTakesEachRunsBestPointOfItsCurve) {
  const fathom::testing::TempDir scratch;
  const fs::path dir = scratch.path();
  {
    auto store = db::Store::open((dir / "runs.db").string());
    auto add = [&](const std::string& norm, std::vector<std::pair<int64_t, double>> curve,
                   double final_ppl) {
      db::NewRun n;
      n.name = "s/norm=" + norm;
      n.sweep = "s";
      const int64_t id = store.create_run(n);
      store.set_tag(id, "axis.model.norm", norm);
      std::vector<db::MetricRow> rows;
      for (const auto& [step, value] : curve) rows.emplace_back(step, "valid_ppl", value, 0.0);
      store.write_metrics(id, rows);
      store.set_final_metric(id, "valid_ppl", final_ppl);
      store.finish_run(id, "finished");
    };
    add("post", {{100, 9.0}, {200, 4.5}, {300, 6.0}}, 6.0);  // overfits after update 200
    add("pre", {{100, 5.0}, {200, 3.0}, {300, 2.5}}, 2.5);
    add("rezero", {}, 7.0);  // no curve: the final value
  }
  const auto store = db::Store::open((dir / "runs.db").string(), db::OpenMode::ReadOnly);
  experiments::TableOptions o;
  o.rows = "model.norm";
  o.metric = "valid_ppl";
  auto runs = experiments::load_table_runs(store, "s", "valid_ppl", {"model.norm"});
  EXPECT_DOUBLE_EQ(*experiments::build_comparison_table(runs, o).cells[0][0].value, 6.0);  // final
  o.value = experiments::RunValue::Best;
  experiments::use_best_of_run(runs, store, o);
  EXPECT_EQ(runs[0].metric_step, 200);
  const auto t = experiments::build_comparison_table(runs, o);
  EXPECT_DOUBLE_EQ(*t.cells[0][0].value, 4.5);
  EXPECT_DOUBLE_EQ(*t.cells[1][0].value, 2.5);
  EXPECT_DOUBLE_EQ(*t.cells[2][0].value, 7.0);
  EXPECT_FALSE(runs[2].metric_step);
  EXPECT_EQ(t.notes.at(0).rfind("valid_ppl: each run's lowest value over training", 0), 0u)
      << t.notes[0];
  o.direction = experiments::MetricDirection::HigherIsBetter;  // as for BLEU: the highest point
  experiments::use_best_of_run(runs, store, o);
  EXPECT_DOUBLE_EQ(*runs[0].metric, 9.0);
  EXPECT_EQ(runs[0].metric_step, 100);
}

// --value last: each run's last logged point, the end of training. A run's final metrics are
// its best checkpoint's, so a run that overfits (or blows up) after it looks better by them.
TEST(ComparisonTable, LastTakesTheEndOfTrainingNotTheBestCheckpoint) {
  const fathom::testing::TempDir scratch;
  const std::string path = scratch.file("runs.db");
  {
    auto store = db::Store::open(path);
    db::NewRun n;
    n.name = "s/post";
    n.sweep = "s";
    n.config_json = R"({"model":{"norm":"post"}})";
    const int64_t id = store.create_run(n);
    store.set_tag(id, "axis.model.norm", "post");
    store.write_metrics(
        id,
        {{100, "valid_ppl", 9.0, 0.0}, {200, "valid_ppl", 4.5, 0.0}, {300, "valid_ppl", 6.0, 0.0}});
    store.set_final_metric(id, "valid_ppl", 4.5);  // as the trainer: the best checkpoint's
    store.finish_run(id, "finished");
  }
  const auto store = db::Store::open(path, db::OpenMode::ReadOnly);
  experiments::TableOptions o;
  o.rows = "model.norm";
  o.metric = "valid_ppl";
  EXPECT_DOUBLE_EQ(*experiments::sweep_comparison_table(store, "s", o).cells[0][0].value, 4.5);
  o.value = experiments::RunValue::Last;
  const auto t = experiments::sweep_comparison_table(store, "s", o);
  EXPECT_DOUBLE_EQ(*t.cells[0][0].value, 6.0);
  EXPECT_NE(t.notes.at(0).find("each run's last logged value, the end of training"),
            std::string::npos)
      << t.notes[0];
  EXPECT_EQ(experiments::run_value_named("best", "x"), experiments::RunValue::Best);
}

// Selection on validation (issue 37): a cell's variant is chosen on the validation loss, and
// the test BLEU reported is that variant's -- even where another variant's test BLEU is higher.
// Choosing on the test metric is refused unless asked for, and then the table says so.
std::vector<experiments::TableRun> lr_runs() {
  std::vector<experiments::TableRun> runs;
  int id = 0;
  // lr 1e-3: lower valid_loss (2.0, 2.2) but lower test BLEU (20, 22);
  // lr 2e-3: higher valid_loss (2.5, 2.7) but higher test BLEU (25, 29).
  for (auto [lr, seed, valid, bleu] : {std::tuple{"1e-3", "1", 2.0, 20.0},
                                       {"1e-3", "2", 2.2, 22.0},
                                       {"2e-3", "1", 2.5, 25.0},
                                       {"2e-3", "2", 2.7, 29.0}}) {
    experiments::TableRun r;
    r.id = ++id;
    r.status = "finished";
    r.axes = {{"model.norm", "pre"}, {"train.lr", lr}, {"train.seed", seed}};
    r.metric = bleu;
    r.final_metrics = {{"valid_loss", valid}, {"test_bleu", bleu}};
    runs.push_back(r);
  }
  return runs;
}

TEST(ComparisonTable, VariantsAreChosenOnValidationNotOnTheReportedTestMetric) {
  experiments::TableOptions o;
  o.rows = "model.norm";
  o.metric = "test_bleu";
  o.agg = experiments::CellAgg::Best;
  const auto t = experiments::build_comparison_table(lr_runs(), o);
  EXPECT_EQ(t.cells[0][0].variant, "lr=1e-3");
  EXPECT_DOUBLE_EQ(*t.cells[0][0].value, 21.0);  // that variant's test BLEU, not the best one
  EXPECT_NE(t.notes.at(0).find("variant best by valid_loss's (lower is better) mean"),
            std::string::npos)
      << t.notes[0];

  o.select_by = "test_bleu";
  try {
    experiments::build_comparison_table(lr_runs(), o);
    FAIL() << "chose on the test metric without being asked";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--select-by");
    EXPECT_NE(e.message().find("--select-on-test"), std::string::npos) << e.what();
  }
  o.select_on_test = true;
  const auto on_test = experiments::build_comparison_table(lr_runs(), o);
  EXPECT_EQ(on_test.cells[0][0].variant, "lr=2e-3");
  EXPECT_DOUBLE_EQ(*on_test.cells[0][0].value, 27.0);
  EXPECT_NE(experiments::table_to_markdown(on_test).find("model selection on the test set"),
            std::string::npos);

  o.select_on_test = false;
  o.select_by = "valid_ppl";  // no run has it
  try {
    experiments::build_comparison_table(lr_runs(), o);
    FAIL() << "chose on a metric no run has";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--select-by");
    EXPECT_NE(e.message().find("valid_ppl"), std::string::npos) << e.what();
  }
}

// Mean ± half-width of the 95 % t-interval: seeds 20 and 22 give mean 21, s = sqrt(2) and
// t_{0.975, 1} * s / sqrt(2) = 12.706; with n = 4 (20, 22, 25, 29: s = 3.9158) t_{0.975, 3} =
// 3.1824 gives 6.2310.
TEST(ComparisonTable, CellsShowTheirNinetyFivePercentInterval) {
  experiments::TableOptions o;
  o.rows = "train.lr";
  o.metric = "test_bleu";
  o.spread = experiments::Spread::Ci95;
  o.digits = 3;
  const auto t = experiments::build_comparison_table(lr_runs(), o);
  EXPECT_NEAR(*t.cells[0][0].ci95, 12.706205, 1e-5);
  const std::string md = experiments::table_to_markdown(t);
  EXPECT_NE(md.find("| 1e-3 | 21.000 ± 12.706 |"), std::string::npos) << md;
  EXPECT_NE(md.find("half-width of the 95 % t-interval"), std::string::npos) << md;
  EXPECT_NE(experiments::table_to_csv(t).find("test_bleu,test_bleu ci95\r\n1e-3,21,12.7062"),
            std::string::npos)
      << experiments::table_to_csv(t);
  o.rows = "model.norm";  // all four pooled
  const auto pooled = experiments::build_comparison_table(lr_runs(), o);
  EXPECT_NEAR(*pooled.cells[0][0].ci95, 3.182446 * std::sqrt(46.0 / 3.0) / 2, 1e-5);
}

// Rows against a reference row, column by column: Welch's p over the seeds (values worked in
// test_statistics.cpp: {1,2,3,4} against {2,4,6,8,10}); a cell with one seed says n < 2.
TEST(ComparisonTable, RowsAreTestedAgainstTheVersusRow) {
  std::vector<experiments::TableRun> runs;
  int id = 0;
  auto add = [&](const std::string& norm, const std::string& seed, double v) {
    experiments::TableRun r;
    r.id = ++id;
    r.status = "finished";
    r.axes = {{"model.norm", norm}, {"train.seed", seed}};
    r.metric = v;
    runs.push_back(r);
  };
  for (int i = 1; i <= 4; ++i) add("post", std::to_string(i), i);
  for (int i = 1; i <= 5; ++i) add("pre", std::to_string(i), 2.0 * i);
  add("peri", "1", 3.0);
  experiments::TableOptions o;
  o.rows = "model.norm";
  o.metric = "valid_loss";
  o.versus = "post";
  const auto t = experiments::build_comparison_table(runs, o);
  EXPECT_FALSE(t.cells[0][0].p);  // the reference row itself
  ASSERT_TRUE(t.cells[1][0].p);
  EXPECT_NEAR(*t.cells[1][0].p, fathom::welch_t_test({2, 4, 6, 8, 10}, {1, 2, 3, 4})->p, 1e-12);
  EXPECT_TRUE(t.cells[2][0].p_needs_seeds);
  const std::string md = experiments::table_to_markdown(t);
  EXPECT_NE(md.find("| peri | 3.00 (n=1) (n < 2) |"), std::string::npos) << md;
  EXPECT_NE(md.find("Welch's two-sided t-test"), std::string::npos) << md;
  char expected[64];
  std::snprintf(expected, sizeof expected, "| pre | 6.00 (n=5) (p=%.3f) |", *t.cells[1][0].p);
  EXPECT_NE(md.find(expected), std::string::npos) << md;
  EXPECT_NE(experiments::table_to_csv(t).find("valid_loss p"), std::string::npos);
  o.versus = "nope";
  try {
    experiments::build_comparison_table(runs, o);
    FAIL() << "an unknown reference row accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--versus");
  }
}

// Several rows tested against one: each p is Holm-adjusted over the table's tests (the
// unadjusted one kept beside it, in the CSV too), and the note says over how many.
TEST(ComparisonTable, PValuesAreHolmAdjustedOverTheTablesTests) {
  std::vector<experiments::TableRun> runs;
  int id = 0;
  auto add = [&](const std::string& norm, int seed, double v) {
    experiments::TableRun r;
    r.id = ++id;
    r.status = "finished";
    r.axes = {{"model.norm", norm}, {"train.seed", std::to_string(seed)}};
    r.metric = v;
    runs.push_back(r);
  };
  const std::vector<double> post{1, 2, 3, 4}, pre{2, 4, 6, 8}, peri{1.5, 2.5, 3.5, 4.6};
  for (int i = 0; i < 4; ++i) add("post", i + 1, post[i]), add("pre", i + 1, pre[i]);
  for (int i = 0; i < 4; ++i) add("peri", i + 1, peri[i]);
  experiments::TableOptions o;
  o.rows = "model.norm";
  o.metric = "valid_loss";
  o.versus = "post";
  const auto t = experiments::build_comparison_table(runs, o);
  const double p_pre = fathom::welch_t_test(pre, post)->p,
               p_peri = fathom::welch_t_test(peri, post)->p;
  ASSERT_LT(p_pre, p_peri);  // pre's is the smaller: times 2, peri's times 1 (or pre's if larger)
  EXPECT_EQ(t.tests, 2);
  EXPECT_NEAR(*t.cells[1][0].p_raw, p_pre, 1e-12);
  EXPECT_NEAR(*t.cells[1][0].p, 2 * p_pre, 1e-12);
  EXPECT_NEAR(*t.cells[2][0].p, std::max(2 * p_pre, p_peri), 1e-12);
  const std::string md = experiments::table_to_markdown(t);
  EXPECT_NE(md.find("Holm-adjusted over the table's 2 tests"), std::string::npos) << md;
  EXPECT_NE(experiments::table_to_csv(t).find("valid_loss p unadjusted"), std::string::npos);
  o.p_adjust = experiments::PAdjust::None;
  const auto raw = experiments::build_comparison_table(runs, o);
  EXPECT_NEAR(*raw.cells[1][0].p, p_pre, 1e-12);
  EXPECT_NE(experiments::table_to_markdown(raw).find("not adjusted for the table's 2 tests"),
            std::string::npos);
}

}  // namespace test_comparison_table
