// The run store on every backend (SQLite, PostgreSQL: the same tests, parameterised): round
// trips of runs, metrics, artifacts and analyses, copies between stores, requeueing. Several
// processes at once: test_store_processes.cpp; SQLite's own file checks:
// test_store_sqlite_file.cpp; PostgreSQL-only failures: test_store_postgres.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/util/error.h"
#include "db/metric_writer.h"
#include "db/store.h"
#include "tests/support/store_test_fixture.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using namespace fathom::db;
using fathom::testing::sample_run;
using fathom::testing::StoreBackendTest;

// ---- runs -----------------------------------------------------------------------------------

namespace test_store {

TEST_P(StoreBackendTest, RunRoundTrip) {
  auto store = Store::open(db_path());
  const double before = unix_now();
  const int64_t id = store.create_run(sample_run("deep-post-ln", "depth"));
  EXPECT_GT(id, 0);

  auto run = store.find_run(std::to_string(id));
  ASSERT_TRUE(run);
  EXPECT_EQ(run->id, id);
  EXPECT_EQ(run->name, "deep-post-ln");
  EXPECT_EQ(run->sweep, "depth");
  EXPECT_EQ(run->config_json, R"({"model":{"encoder_layers":18}})");
  EXPECT_EQ(run->config_yaml, "model:\n  encoder_layers: 18\n");
  EXPECT_EQ(run->git_rev, "abc1234");
  EXPECT_EQ(run->status, "queued");
  EXPECT_EQ(run->updates, 0);
  EXPECT_FALSE(run->diverged_step);
  EXPECT_GE(run->created_at, before - 1);
  EXPECT_LE(run->created_at, unix_now() + 1);
  EXPECT_EQ(run->started_at, 0);
  EXPECT_EQ(run->finished_at, 0);
  EXPECT_TRUE(run->final_metrics.empty());

  // A run outside any sweep stores NULL, which reads back as "".
  const int64_t solo = store.create_run(sample_run("solo"));
  EXPECT_EQ(store.find_run(std::to_string(solo))->sweep, "");

  NewRun bad = sample_run("bad");
  bad.status = "exploded";
  EXPECT_THROW(store.create_run(bad), std::invalid_argument);
}

TEST_P(StoreBackendTest, StatusTransitions) {
  auto store = Store::open(db_path());
  const int64_t id = store.create_run(sample_run("r"));

  store.mark_running(id, "node7", "cuda:0");
  auto run = *store.find_run("r");
  EXPECT_EQ(run.status, "running");
  EXPECT_EQ(run.host, "node7");
  EXPECT_EQ(run.device, "cuda:0");
  EXPECT_GT(run.started_at, 0);
  EXPECT_GT(run.heartbeat_at, 0);
  const double first_start = run.started_at;

  store.heartbeat(id, 120);
  EXPECT_EQ(store.find_run("r")->updates, 120);

  store.finish_run(id, "diverged", "loss 3e4 > 10 x first loss", 1530);
  run = *store.find_run("r");
  EXPECT_EQ(run.status, "diverged");
  EXPECT_EQ(run.error, "loss 3e4 > 10 x first loss");
  ASSERT_TRUE(run.diverged_step);
  EXPECT_EQ(*run.diverged_step, 1530);
  EXPECT_GE(run.finished_at, run.started_at);

  // Resuming sheds the previous outcome but keeps the first start time.
  store.mark_running(id, "node8", "cuda:1");
  run = *store.find_run("r");
  EXPECT_EQ(run.status, "running");
  EXPECT_EQ(run.error, "");
  EXPECT_FALSE(run.diverged_step);
  EXPECT_EQ(run.finished_at, 0);
  EXPECT_EQ(run.started_at, first_start);
  EXPECT_EQ(run.host, "node8");

  store.finish_run(id, "finished");
  EXPECT_EQ(store.find_run("r")->status, "finished");

  EXPECT_THROW(store.finish_run(id, "running"), std::invalid_argument);
  EXPECT_THROW(store.finish_run(id, "bogus"), std::invalid_argument);
  EXPECT_THROW(store.mark_running(id + 100, "h", "cpu"), std::invalid_argument);
  EXPECT_THROW(store.heartbeat(id + 100, 1), std::invalid_argument);
}

TEST_P(StoreBackendTest, FinalMetrics) {
  auto store = Store::open(db_path());
  const int64_t id = store.create_run(sample_run("r"));
  store.set_final_metric(id, "valid_ppl", 7.5);
  store.set_final_metric(id, "valid_ppl", 5.25);  // replaces
  store.set_final_metric(id, "test_bleu", 27.3);
  store.set_final_metric(id, "train_loss", std::nan(""));

  auto run = *store.find_run(std::to_string(id));
  ASSERT_EQ(run.final_metrics.size(), 3u);
  EXPECT_DOUBLE_EQ(run.final_metrics["valid_ppl"], 5.25);
  EXPECT_DOUBLE_EQ(run.final_metrics["test_bleu"], 27.3);
  EXPECT_TRUE(std::isnan(run.final_metrics["train_loss"]));  // NULL reads back as NaN

  auto listed = store.list_runs();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_DOUBLE_EQ(listed[0].final_metrics.at("valid_ppl"), 5.25);

  // Foreign keys are on: no metrics for a run that does not exist.
  EXPECT_THROW(store.set_final_metric(id + 1, "x", 1), std::runtime_error);
}

TEST_P(StoreBackendTest, ArtifactsReplaceOnSameKind) {
  auto store = Store::open(db_path());
  const int64_t id = store.create_run(sample_run("r"));
  store.add_artifact(id, "vocab", "runs/1/vocab.model", std::nullopt);
  store.add_artifact(id, "checkpoint_last", "runs/1/last-200.pt", 200);
  store.add_artifact(id, "checkpoint_last", "runs/1/last-400.pt", 400);

  auto arts = store.artifacts(id);
  ASSERT_EQ(arts.size(), 2u);
  EXPECT_EQ(arts[0].kind, "checkpoint_last");
  EXPECT_EQ(arts[0].path, "runs/1/last-400.pt");
  ASSERT_TRUE(arts[0].step);
  EXPECT_EQ(*arts[0].step, 400);
  EXPECT_EQ(arts[1].kind, "vocab");
  EXPECT_FALSE(arts[1].step);

  store.set_tag(id, "layers", "18");
  store.set_tag(id, "layers", "24");
  EXPECT_EQ(store.tags(id), (std::map<std::string, std::string>{{"layers", "24"}}));
}

TEST_P(StoreBackendTest, ListAndFindRuns) {
  auto store = Store::open(db_path());
  const int64_t a = store.create_run(sample_run("base", "depth"));
  const int64_t b = store.create_run(sample_run("base", "width"));
  const int64_t c = store.create_run(sample_run("42"));  // a name that looks like an id

  EXPECT_EQ(store.list_runs().size(), 3u);
  auto depth = store.list_runs("depth");
  ASSERT_EQ(depth.size(), 1u);
  EXPECT_EQ(depth[0].id, a);
  EXPECT_TRUE(store.list_runs("nope").empty());

  EXPECT_EQ(store.find_run("base")->id, b);  // latest with that name
  EXPECT_EQ(store.find_run(std::to_string(a))->id, a);
  EXPECT_EQ(store.find_run("42")->id, c);  // no run 42: falls back to the name
  EXPECT_FALSE(store.find_run("missing"));
  EXPECT_FALSE(store.find_run("999"));
}

// `fathom runs --where norm=pre`'s narrowing: only runs whose config text holds every word
// (quotes included), ASCII case ignored, _ a character and not LIKE's wildcard, within the
// sweep asked, with their final metrics; a word that is not plain is refused.
TEST_P(StoreBackendTest, RunsWhoseConfigHoldsWords) {
  auto store = Store::open(db_path());
  auto run = [&](const std::string& name, const std::string& sweep, const std::string& json) {
    NewRun r = sample_run(name, sweep);
    r.config_json = json;
    return store.create_run(r);
  };
  const int64_t a = run("a", "s", R"({"model":{"norm":"pre","act":"gelu"},"lr":0.001})");
  const int64_t b = run("b", "s", R"({"model":{"norm":"post","act":"GELU"},"lr":0.002})");
  const int64_t c = run("c", "t", R"({"model":{"norm":"pre","act":"relu"},"tied":true})");
  const int64_t d = run("d", "s", R"({"model":{"norm":"preXln"}})");  // the x where _ would be
  store.set_final_metric(a, "valid_ppl", 4.5);
  auto ids = [](const std::vector<RunRecord>& runs) {
    std::vector<int64_t> out;
    for (const auto& r : runs) out.push_back(r.id);
    return out;
  };
  using Ids = std::vector<int64_t>;
  EXPECT_EQ(ids(store.list_runs("", {"pre"})), (Ids{a, c, d}));  // "preXln" holds pre too
  EXPECT_EQ(ids(store.list_runs("s", {"pre"})), (Ids{a, d}));
  EXPECT_EQ(ids(store.list_runs("", {"PRE", "gelu"})), (Ids{a}));
  EXPECT_EQ(ids(store.list_runs("", {"Gelu"})), (Ids{a, b}));
  EXPECT_EQ(ids(store.list_runs("", {"pre_ln"})), Ids{});  // not "preXln"
  EXPECT_EQ(ids(store.list_runs("", {"TRUE"})), (Ids{c}));
  EXPECT_EQ(ids(store.list_runs("", {"0.002"})), (Ids{b}));
  EXPECT_EQ(ids(store.list_runs("", {"\"pre\""})), (Ids{a, c}));  // a string leaf, quoted
  EXPECT_EQ(ids(store.list_runs("s", {"\"GELU\"", "\"post\""})), (Ids{b}));
  EXPECT_EQ(ids(store.list_runs("", {})), (Ids{a, b, c, d}));
  const auto with_metric = store.list_runs("s", {"gelu"});
  ASSERT_EQ(with_metric.size(), 2u);
  EXPECT_EQ(with_metric[0].final_metrics.at("valid_ppl"), 4.5);
  EXPECT_TRUE(with_metric[1].final_metrics.empty());
  for (const std::string bad : {"%", "a b", "", "'", "pre%"})
    EXPECT_THROW(store.list_runs("", {bad}), std::invalid_argument) << bad;

  // A narrowed listing reads its runs' final metrics by id, 500 a statement: each run of
  // 1,100 gets its own, across the statements' edges.
  std::vector<NewTaggedRun> many(1100);
  for (size_t i = 0; i < many.size(); ++i)
    many[i].run = sample_run("m" + std::to_string(i), "many");
  store.create_runs(many);
  const auto listed = store.list_runs("many");
  ASSERT_EQ(listed.size(), 1100u);
  for (size_t i : {0, 499, 500, 1000, 1099})
    store.set_final_metric(listed[i].id, "valid_ppl", static_cast<double>(i));
  const auto narrowed = store.list_runs("many", {"encoder_layers"});
  ASSERT_EQ(narrowed.size(), 1100u);
  for (size_t i = 0; i < narrowed.size(); ++i) {
    EXPECT_EQ(narrowed[i].id, listed[i].id);
    const bool has = i == 0 || i == 499 || i == 500 || i == 1000 || i == 1099;
    ASSERT_EQ(narrowed[i].final_metrics.size(), has ? 1u : 0u) << i;
    if (has) {
      EXPECT_EQ(narrowed[i].final_metrics.at("valid_ppl"), static_cast<double>(i));
    }
  }
}

// Deleting a run removes its row and every row about it; the other runs keep all of theirs.
TEST_P(StoreBackendTest, DeleteRunRemovesOnlyThatRunsRows) {
  auto store = Store::open(db_path());
  auto fill = [&](const std::string& name) {
    const int64_t id = store.create_run(sample_run(name));
    store.write_metrics(id, {{10, "train_loss", 3.0, 1.0}, {20, "train_loss", 2.0, 1.0}});
    store.set_final_metric(id, "valid_ppl", 7.5);
    store.set_tag(id, "axis.model.norm", "post");
    store.add_artifact(id, "checkpoint_best", "run/best.pt", 20);
    NewAnalysis a;
    a.run_id = id;
    a.kind = "beta";
    a.checkpoint = "best";
    a.result_json = "{}";
    store.add_analysis(a);
    return id;
  };
  const int64_t keep = fill("keep"), gone = fill("gone"), also_kept = fill("also");
  NewAnalysis config_analysis;  // a config analysis (no run) survives too
  config_analysis.kind = "output-shift";
  config_analysis.result_json = "{}";
  store.add_analysis(config_analysis);

  store.delete_run(gone);

  // Counted with plain SQL, so a row the Store API cannot see would still be found.
  auto count = [&](const std::string& table, int64_t run) { return raw_count(table, run); };
  for (const std::string table :
       {"runs", "metrics", "final_metrics", "run_tags", "artifacts", "analyses"}) {
    EXPECT_EQ(count(table, gone), 0) << table;
    EXPECT_GT(count(table, keep), 0) << table;
    EXPECT_GT(count(table, also_kept), 0) << table;
  }
  EXPECT_EQ(count("metrics", keep), 2);
  EXPECT_FALSE(store.find_run(std::to_string(gone)));
  EXPECT_EQ(store.list_runs().size(), 2u);
  EXPECT_EQ(store.metric_series(also_kept, "train_loss").size(), 2u);
  EXPECT_EQ(store.list_analyses().size(), 3u);  // two runs' and the config's

  EXPECT_THROW(store.delete_run(gone), std::invalid_argument);  // already gone
}

// The desktop app's "anything new?" for its Analyses tab: the newest row's id, 0 when none.
TEST_P(StoreBackendTest, LastAnalysisIdIsTheNewestRow) {
  auto store = Store::open(db_path());
  EXPECT_EQ(store.last_analysis_id(), 0);
  NewAnalysis a;
  a.kind = "beta";
  a.result_json = "{}";
  const int64_t first = store.add_analysis(a);
  EXPECT_EQ(store.last_analysis_id(), first);
  const int64_t second = store.add_analysis(a);
  EXPECT_GT(second, first);
  auto reader = Store::open(db_path(), OpenMode::ReadOnly);  // another connection sees it too
  EXPECT_EQ(reader.last_analysis_id(), second);
}

// An analysis is a function of its run's checkpoint and its options: run again, its result
// replaces the earlier one (one row per run, kind, checkpoint and options), whatever differs
// in any of them is a result of its own. A config's analysis (no run) likewise.
TEST_P(StoreBackendTest, RerunningAnAnalysisReplacesItsEarlierResult) {
  auto store = Store::open(db_path());
  const int64_t run = store.create_run(sample_run("analysed"));
  const int64_t other = store.create_run(sample_run("other"));
  auto analysis = [](std::optional<int64_t> on, const std::string& checkpoint,
                     const std::string& params, const std::string& result) {
    NewAnalysis a;
    a.run_id = on;
    a.kind = "beta";
    a.checkpoint = checkpoint;
    a.params_json = params;
    a.result_json = result;
    return a;
  };
  const int64_t first = store.add_analysis(analysis(run, "best", "{}", R"({"v":1})"));
  const int64_t again = store.add_analysis(analysis(run, "best", "{}", R"({"v":2})"));
  auto rows = store.list_analyses(run);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].id, again);
  EXPECT_GT(again, first);
  EXPECT_EQ(rows[0].result_json, R"({"v":2})");

  store.add_analysis(analysis(run, "last", "{}", "{}"));                  // another checkpoint
  store.add_analysis(analysis(run, "best", R"({"sentences":8})", "{}"));  // other options
  store.add_analysis(analysis(other, "best", "{}", "{}"));                // another run
  EXPECT_EQ(store.list_analyses(run).size(), 3u);
  EXPECT_EQ(store.list_analyses(other).size(), 1u);

  store.add_analysis(analysis(std::nullopt, "", R"({"config":"a.yaml"})", "{}"));
  store.add_analysis(analysis(std::nullopt, "", R"({"config":"a.yaml"})", R"({"v":3})"));
  store.add_analysis(analysis(std::nullopt, "", R"({"config":"b.yaml"})", "{}"));
  EXPECT_EQ(store.list_analyses().size(), 6u);  // 3 + 1 of the runs, 2 configs'
}

TEST_P(StoreBackendTest, DeleteRunRefusesARunningRun) {
  auto store = Store::open(db_path());
  const int64_t id = store.create_run(sample_run("live"));
  store.mark_running(id, "host", "cpu");
  store.write_metrics(id, {{10, "train_loss", 3.0, 1.0}});
  try {
    store.delete_run(id);
    FAIL() << "a running run was deleted";
  } catch (const fathom::InputError& e) {
    EXPECT_NE(std::string(e.message()).find("running"), std::string::npos) << e.message();
  }
  EXPECT_TRUE(store.find_run(std::to_string(id)));
  EXPECT_EQ(store.metric_series(id, "train_loss").size(), 1u);  // rolled back, nothing removed
  store.finish_run(id, "cancelled");
  store.delete_run(id);
  EXPECT_FALSE(store.find_run(std::to_string(id)));
}

// `fathom prune` drops kept checkpoints' rows of an ended run, only those named, in one
// write, or points one at a new file; a running run's rows stay (its holder may read them).
TEST_P(StoreBackendTest, RemoveArtifactsDropsOnlyTheNamedKindsAndNeverARunningRunsRows) {
  auto store = Store::open(db_path());
  const int64_t id = store.create_run(sample_run("kept"));
  const int64_t other = store.create_run(sample_run("other"));
  for (int64_t run : {id, other})
    for (int step : {10, 20, 30})
      store.add_artifact(run, "checkpoint_" + std::to_string(step), "c.pt", step);
  store.add_artifact(id, "checkpoint_best", "best.pt", 20);
  store.remove_artifacts(id, {"checkpoint_10", "checkpoint_20", "checkpoint_99"});
  std::vector<std::string> kinds;
  for (const auto& a : store.artifacts(id)) kinds.push_back(a.kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"checkpoint_30", "checkpoint_best"}));
  EXPECT_EQ(store.artifacts(other).size(), 3u);

  // `fathom prune --model-only` points a row at a new file: the same kind, step and place.
  store.replace_artifacts(id, {{"checkpoint_30", "c.model.pt", 30}});
  const auto after = store.artifacts(id);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after[0].kind, "checkpoint_30");
  EXPECT_EQ(after[0].path, "c.model.pt");
  EXPECT_EQ(after[0].step, std::optional<int64_t>(30));

  store.mark_running(other, "host", "cpu");
  for (const auto& write : std::vector<std::function<void()>>{
           [&] { store.remove_artifacts(other, {"checkpoint_10"}); },
           [&] {
             store.replace_artifacts(other, {{"checkpoint_10", "x.pt", 10}});
           }}) {
    try {
      write();
      FAIL() << "a running run's artifact rows were changed";
    } catch (const fathom::InputError& e) {
      EXPECT_NE(std::string(e.message()).find("running"), std::string::npos) << e.message();
    }
  }
  EXPECT_EQ(store.artifacts(other).size(), 3u);
  EXPECT_EQ(store.artifacts(other)[0].path, "c.pt");
}

// ---- metrics --------------------------------------------------------------------------------

TEST_P(StoreBackendTest, MetricSeriesOrderedByStep) {
  auto store = Store::open(db_path());
  const int64_t id = store.create_run(sample_run("r"));
  const int64_t other = store.create_run(sample_run("other"));
  store.write_metrics(id, {{30, "train_loss", 3.0, 1.0},
                           {10, "train_loss", 5.0, 1.0},
                           {20, "train_loss", 4.0, 1.0},
                           {20, "lr", 1e-4, 1.0},
                           {40, "train_loss", std::nan(""), 1.5}});
  store.write_metrics(other, {{10, "grad_norm", 1.0, 1.0}});

  auto series = store.metric_series(id, "train_loss");
  ASSERT_EQ(series.size(), 4u);
  EXPECT_EQ(series[0].step, 10);
  EXPECT_EQ(series[1].step, 20);
  EXPECT_EQ(series[2].step, 30);
  EXPECT_DOUBLE_EQ(series[0].value, 5.0);
  EXPECT_TRUE(std::isnan(series[3].value));
  EXPECT_DOUBLE_EQ(series[3].wall_time, 1.5);

  EXPECT_EQ(store.metric_names(id), (std::vector<std::string>{"lr", "train_loss"}));
  EXPECT_EQ(store.metric_names(other), (std::vector<std::string>{"grad_norm"}));
  EXPECT_TRUE(store.metric_names(other + 1).empty());
  EXPECT_TRUE(store.metric_series(id, "missing").empty());
}

TEST_P(StoreBackendTest, BestPointsSkipNonFiniteValuesAndTakeTheEarliestTie) {
  auto store = Store::open(db_path());
  const int64_t a = store.create_run(sample_run("a"));
  const int64_t b = store.create_run(sample_run("b"));
  const int64_t blown = store.create_run(sample_run("blown"));
  const double inf = std::numeric_limits<double>::infinity();
  // a: overfits after step 20 (lowest 2.0 at 20 and again at 40: the earlier one counts);
  // -inf and NaN are not values anyone would call best.
  store.write_metrics(a, {{10, "valid_ppl", 4.0, 1.0},
                          {20, "valid_ppl", 2.0, 2.0},
                          {30, "valid_ppl", 3.0, 3.0},
                          {40, "valid_ppl", 2.0, 4.0},
                          {50, "valid_ppl", -inf, 5.0},
                          {60, "valid_ppl", std::nan(""), 6.0},
                          {20, "valid_bleu", 10.0, 2.0},
                          {40, "valid_bleu", 12.5, 4.0}});
  store.write_metrics(b, {{10, "valid_ppl", 7.0, 1.0}, {20, "valid_ppl", inf, 2.0}});
  store.write_metrics(blown, {{10, "valid_ppl", std::nan(""), 1.0}, {20, "valid_ppl", inf, 2.0}});

  const auto lowest = store.best_points({a, b, blown, blown + 1}, "valid_ppl", /*higher=*/false);
  ASSERT_EQ(lowest.size(), 2u);  // blown has no finite point, blown + 1 does not exist
  EXPECT_EQ(lowest.at(a).step, 20);
  EXPECT_DOUBLE_EQ(lowest.at(a).value, 2.0);
  EXPECT_DOUBLE_EQ(lowest.at(a).wall_time, 2.0);
  EXPECT_EQ(lowest.at(b).step, 10);
  EXPECT_DOUBLE_EQ(lowest.at(b).value, 7.0);

  const auto highest = store.best_points({a, b}, "valid_ppl", /*higher=*/true);
  EXPECT_EQ(highest.at(a).step, 10);  // +inf is not finite either
  EXPECT_EQ(highest.at(b).step, 10);
  const auto bleu = store.best_points({a, b}, "valid_bleu", /*higher=*/true);
  ASSERT_EQ(bleu.size(), 1u);
  EXPECT_EQ(bleu.at(a).step, 40);
  EXPECT_DOUBLE_EQ(bleu.at(a).value, 12.5);
  EXPECT_TRUE(store.best_points({}, "valid_ppl", false).empty());
}

TEST_P(StoreBackendTest, ResumeReplacesAndTruncates) {
  auto store = Store::open(db_path());
  const int64_t id = store.create_run(sample_run("r"));
  std::vector<MetricRow> rows;
  for (int step = 10; step <= 100; step += 10) rows.emplace_back(step, "loss", step, 0.0);
  store.write_metrics(id, rows);

  // Resume from the checkpoint at step 50: later points go, then get re-logged.
  store.delete_metrics_after(id, 50);
  auto series = store.metric_series(id, "loss");
  ASSERT_EQ(series.size(), 5u);
  EXPECT_EQ(series.back().step, 50);

  rows.clear();
  for (int step = 50; step <= 100; step += 10) rows.emplace_back(step, "loss", -step, 0.0);
  store.write_metrics(id, rows);
  store.write_metrics(id, rows);  // a repeated flush must not duplicate either
  series = store.metric_series(id, "loss");
  ASSERT_EQ(series.size(), 10u);
  EXPECT_DOUBLE_EQ(series[3].value, 40);   // kept from the first attempt
  EXPECT_DOUBLE_EQ(series[4].value, -50);  // replaced
  EXPECT_DOUBLE_EQ(series[9].value, -100);
}

TEST_P(StoreBackendTest, MetricWriterBatches) {
  auto store = Store::open(db_path());
  const int64_t id = store.create_run(sample_run("r"));
  const Lease lease = store.mark_running(id, "host", "cpu");
  auto reader = Store::open(db_path(), OpenMode::ReadOnly);  // another connection
  {
    MetricWriter writer(store, lease, /*flush_rows=*/100, /*flush_seconds=*/3600);
    for (int i = 0; i < 99; ++i) writer.log(i, "loss", i);
    EXPECT_EQ(writer.pending(), 99u);
    EXPECT_TRUE(reader.metric_series(id, "loss").empty());
    writer.log(99, "loss", 99);  // the 100th row triggers a write
    EXPECT_EQ(writer.pending(), 0u);
    EXPECT_EQ(reader.metric_series(id, "loss").size(), 100u);

    writer.log(100, "loss", 100);
    writer.flush();
    EXPECT_EQ(reader.metric_series(id, "loss").size(), 101u);

    for (int i = 101; i < 104; ++i) writer.log(i, "loss", i);
    EXPECT_EQ(reader.metric_series(id, "loss").size(), 101u);
  }  // the destructor flushes
  auto series = reader.metric_series(id, "loss");
  ASSERT_EQ(series.size(), 104u);
  EXPECT_EQ(series.back().step, 103);
  EXPECT_GT(series.back().wall_time, 0);

  // A zero interval writes on every call.
  MetricWriter eager(store, lease, 1000, 0.0);
  eager.log(1, "lr", 0.1);
  EXPECT_EQ(reader.metric_series(id, "lr").size(), 1u);
}

// ---- points after a step, copies (every backend) --------------------------------------------

TEST_P(StoreBackendTest, PointsAfterAStepAndLastStep) {
  auto store = Store::open(db_path());
  const int64_t id = store.create_run(sample_run("r"));
  EXPECT_EQ(store.last_metric_step(id, "loss"), -1);
  store.write_metrics(
      id,
      {{1, "loss", 3.0, 1.0}, {2, "loss", 2.0, 1.0}, {5, "loss", 1.0, 1.0}, {9, "lr", 0.1, 1.0}});
  EXPECT_EQ(store.last_metric_step(id, "loss"), 5);
  const auto after = store.metric_points_after(id, "loss", 1);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after[0].step, 2);
  EXPECT_DOUBLE_EQ(after[1].value, 1.0);
  EXPECT_TRUE(store.metric_points_after(id, "loss", 5).empty());
  // Extreme values survive the trip: +-inf and tiny/huge doubles, exactly.
  store.write_metrics(id, {{10, "x", INFINITY, 1.0},
                           {11, "x", -INFINITY, 1.0},
                           {12, "x", 1e-308, 1.0},
                           {13, "x", 0.1 + 0.2, 1.0}});
  const auto x = store.metric_series(id, "x");
  ASSERT_EQ(x.size(), 4u);
  EXPECT_EQ(x[0].value, INFINITY);
  EXPECT_EQ(x[1].value, -INFINITY);
  EXPECT_EQ(x[2].value, 1e-308);
  EXPECT_EQ(x[3].value, 0.1 + 0.2);
}

// What `fathom db copy` relies on: a run exported and imported elsewhere is the same run,
// ids kept, and new runs after an import get fresh ids.
TEST_P(StoreBackendTest, ExportImportKeepsEverything) {
  fathom::testing::ScratchStore target_scratch("sqlite", "copy_target");
  auto source = Store::open(db_path());
  const int64_t a = source.create_run(sample_run("a", "s"));
  const int64_t b = source.create_run(sample_run("b", "s"));
  source.mark_running(b, "node", "cuda:0");
  source.write_metrics(
      b, {{1, "loss", 2.0, 10.0}, {2, "loss", std::nan(""), 11.0}, {1, "lr", 0.5, 10.0}});
  source.set_final_metric(b, "valid_ppl", 3.5);
  source.set_tag(b, "axis.model.norm", "pre");
  source.add_artifact(b, "checkpoint_best", "/x/best.pt", 2);
  source.finish_run(b, "diverged", "nan", 2);
  NewAnalysis an;
  an.run_id = b;
  an.kind = "beta";
  an.result_json = R"({"x":1})";
  source.add_analysis(an);

  auto target = Store::open(target_scratch.location());
  for (const auto& run : source.list_runs()) target.import_run(source.export_run(run.id));
  for (const auto& x : source.list_analyses()) target.import_analysis(x);
  EXPECT_TRUE(source.counts() == target.counts());
  const auto copied = *target.find_run(std::to_string(b));
  const auto original = *source.find_run(std::to_string(b));
  EXPECT_EQ(copied.status, "diverged");
  EXPECT_EQ(copied.diverged_step, original.diverged_step);
  EXPECT_EQ(copied.started_at, original.started_at);
  EXPECT_EQ(copied.host, "node");
  EXPECT_EQ(copied.final_metrics, original.final_metrics);
  EXPECT_EQ(target.tags(b), source.tags(b));
  EXPECT_EQ(target.metric_rows(b).size(), 3u);
  EXPECT_TRUE(std::isnan(target.metric_series(b, "loss")[1].value));
  EXPECT_EQ(target.list_analyses(b).at(0).result_json, R"({"x":1})");
  EXPECT_GT(target.create_run(sample_run("new")), std::max(a, b));
  // And back into this backend: ids kept there too, new ids continue after them.
  fathom::testing::ScratchStore back_scratch(GetParam(), "copy_back");
  auto back = Store::open(back_scratch.location());
  for (const auto& run : target.list_runs()) back.import_run(target.export_run(run.id));
  EXPECT_EQ(back.counts().runs, 3);
  EXPECT_GT(back.create_run(sample_run("newer")), 3);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreBackendTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

// The dashboard's batched poll answers each curve as the single-curve reads do, in order,
// including curves with no points and a run that does not exist.
TEST_P(StoreBackendTest, PollCurvesMatchesCurveByCurveReads) {
  auto store = Store::open(db_path());
  const int64_t a = store.create_run(sample_run("a")), b = store.create_run(sample_run("b"));
  store.write_metrics(a, {{1, "loss", 3.0, 1.0},
                          {2, "loss", 2.0, 2.0},
                          {3, "loss", 1.0, 3.0},
                          {2, "lr", 0.5, 2.0},
                          {1, "we\"ird,name{}", 7.0, 1.0}});
  store.write_metrics(b, {{10, "loss", std::nan(""), 4.0}});
  const std::vector<CurveRequest> requests = {{a, "loss", 1},        {a, "lr", 5},
                                              {b, "loss", -1},       {a, "missing", -1},
                                              {b + 100, "loss", -1}, {a, "we\"ird,name{}", 0},
                                              {a, "loss", -1}};
  const auto replies = store.poll_curves(requests);
  ASSERT_EQ(replies.size(), requests.size());
  EXPECT_EQ(replies[0].last_step, 3);
  ASSERT_EQ(replies[0].points.size(), 2u);
  EXPECT_EQ(replies[0].points[0].step, 2);
  EXPECT_DOUBLE_EQ(replies[0].points[1].value, 1.0);
  EXPECT_DOUBLE_EQ(replies[0].points[1].wall_time, 3.0);
  EXPECT_EQ(replies[1].last_step, 2);  // the end is reported even when nothing is new
  EXPECT_TRUE(replies[1].points.empty());
  EXPECT_EQ(replies[2].last_step, 10);
  ASSERT_EQ(replies[2].points.size(), 1u);
  EXPECT_TRUE(std::isnan(replies[2].points[0].value));
  EXPECT_EQ(replies[3].last_step, -1);
  EXPECT_TRUE(replies[3].points.empty());
  EXPECT_EQ(replies[4].last_step, -1);
  ASSERT_EQ(replies[5].points.size(), 1u);
  EXPECT_DOUBLE_EQ(replies[5].points[0].value, 7.0);
  EXPECT_EQ(replies[6].points.size(), 3u);
  for (size_t i = 0; i < requests.size(); ++i) {
    EXPECT_EQ(replies[i].last_step, store.last_metric_step(requests[i].run, requests[i].name)) << i;
    EXPECT_EQ(
        replies[i].points.size(),
        store.metric_points_after(requests[i].run, requests[i].name, requests[i].after_step).size())
        << i;
  }
  EXPECT_TRUE(store.poll_curves({}).empty());
}

// ---- requeueing (preempted or interrupted runs); holders' writes: test_store_lease.cpp ----

TEST_P(StoreBackendTest, RequeueRunningOrCrashedRuns) {
  auto store = Store::open(db_path());
  // A running run, preempted: back to the queue with its progress, then claimed again.
  const int64_t id = store.create_run(sample_run("preempted", "sw"));
  ASSERT_TRUE(store.claim_next_run("sw", "node7", "cuda:0"));
  store.heartbeat(id, 300);
  const double started = store.find_run(std::to_string(id))->started_at;
  EXPECT_TRUE(store.requeue_run(id, "preempted (USR2)"));
  RunRecord run = *store.find_run(std::to_string(id));
  EXPECT_EQ(run.status, "queued");
  EXPECT_EQ(run.error, "preempted (USR2)");
  EXPECT_EQ(run.finished_at, 0);
  EXPECT_EQ(run.updates, 300);
  EXPECT_EQ(run.started_at, started);

  auto claimed = store.claim_next_run("sw", "node9", "cuda:1");
  ASSERT_TRUE(claimed);
  EXPECT_EQ(claimed->id, id);
  EXPECT_EQ(claimed->status, "running");
  EXPECT_EQ(claimed->host, "node9");
  EXPECT_EQ(claimed->updates, 300);  // it continues from its checkpoint
  EXPECT_EQ(claimed->started_at, started);
  EXPECT_FALSE(store.claim_next_run("sw", "node9", "cuda:1"));  // claimed once only

  // A crashed run goes back to the queue too.
  const int64_t crashed = store.create_run(sample_run("crashed", "other"));
  store.mark_running(crashed, "node7", "cuda:0");
  store.finish_run(crashed, "crashed", "worker killed");
  ASSERT_GT(store.find_run(std::to_string(crashed))->finished_at, 0);
  EXPECT_TRUE(store.requeue_run(crashed, "resumed after: worker killed"));
  run = *store.find_run(std::to_string(crashed));
  EXPECT_EQ(run.status, "queued");
  EXPECT_EQ(run.error, "resumed after: worker killed");
  EXPECT_EQ(run.finished_at, 0);
  auto again = store.claim_next_run("other", "node8", "cpu");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->id, crashed);
}

TEST_P(StoreBackendTest, RequeueRefusesOtherStatuses) {
  auto store = Store::open(db_path());
  // Cancelled meanwhile, or ended for good: false, nothing changed.
  for (const std::string status : {"cancelled", "finished", "failed"}) {
    const int64_t id = store.create_run(sample_run(status, "sw"));
    store.mark_running(id, "node7", "cuda:0");
    store.heartbeat(id, 11);
    store.finish_run(id, status, status == "finished" ? "" : "why: " + status);
    const RunRecord before = *store.find_run(std::to_string(id));
    EXPECT_FALSE(store.requeue_run(id, "preempted")) << status;
    const RunRecord after = *store.find_run(std::to_string(id));
    EXPECT_EQ(after.status, status);
    EXPECT_EQ(after.error, status == "finished" ? "" : "why: " + status);
    EXPECT_EQ(after.finished_at, before.finished_at) << status;
    EXPECT_GT(after.finished_at, 0) << status;
    EXPECT_EQ(after.heartbeat_at, before.heartbeat_at) << status;
    EXPECT_EQ(after.updates, 11) << status;
  }
  EXPECT_FALSE(store.claim_next_run("sw", "node9", "cpu"));  // none of them was queued

  // Already queued: nothing to do.
  const int64_t queued = store.create_run(sample_run("queued", "q"));
  EXPECT_FALSE(store.requeue_run(queued, "preempted"));
  EXPECT_EQ(store.find_run(std::to_string(queued))->error, "");

  EXPECT_THROW(store.requeue_run(queued + 1000, "preempted"), std::invalid_argument);
}

// cancel_run ends a queued or running run in one statement and leaves an ended one exactly as
// it is -- the write `fathom cancel` makes, so a run that finished between the caller's look
// and the write keeps "finished", its error and its times.
TEST_P(StoreBackendTest, CancelRunEndsOnlyQueuedOrRunningRuns) {
  auto store = Store::open(db_path());
  const int64_t queued = store.create_run(sample_run("queued", "sw"));
  const int64_t running = store.create_run(sample_run("running", "sw"));
  store.mark_running(running, "node7", "cpu");
  for (const int64_t id : {queued, running}) {
    EXPECT_TRUE(store.cancel_run(id, "cancelled by test"));
    const RunRecord r = *store.find_run(std::to_string(id));
    EXPECT_EQ(r.status, "cancelled");
    EXPECT_EQ(r.error, "cancelled by test");
    EXPECT_GT(r.finished_at, 0);
  }
  for (const std::string status : {"finished", "diverged", "failed", "crashed", "cancelled"}) {
    const int64_t id = store.create_run(sample_run(status, "sw"));
    store.mark_running(id, "node7", "cpu");
    store.finish_run(id, status, status == "finished" ? "" : "why: " + status);
    const RunRecord before = *store.find_run(std::to_string(id));
    EXPECT_FALSE(store.cancel_run(id, "too late")) << status;
    const RunRecord after = *store.find_run(std::to_string(id));
    EXPECT_EQ(after.status, status);
    EXPECT_EQ(after.error, before.error) << status;
    EXPECT_EQ(after.finished_at, before.finished_at) << status;
  }
  EXPECT_THROW(store.cancel_run(running + 1000, "no such run"), std::invalid_argument);
}

}  // namespace test_store
