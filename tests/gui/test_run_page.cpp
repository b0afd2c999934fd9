// The run page (issues 36, 58 item 2): a window that blocks nothing, several open at once, that
// leads with the run's charts and follows the run as it trains; every key stands apart from its
// value, however long the key ("decode_time_s5.98552"); notes are stored with the run; the
// worker's log, the first test translations (each validation's samples, newest first, then the
// test set's), artifact sizes and the config keys another run differs in are shown.
#include <cmath>

#include <qcustomplot.h>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "db/store.h"
#include "gui/compare_window.h"
#include "gui/curve_plot.h"
#include "gui/export_targets.h"
#include "gui/fathom_binary.h"
#include "gui/main_window.h"
#include "gui/probes_view.h"
#include "gui/run_charts.h"
#include "gui/run_page.h"
#include "gui/run_pages.h"
#include "gui/runs_view.h"
#include "plot/whole_number_ticker.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::NewRun;
using fathom::db::Store;

namespace test_run_page {

// The graph named `name` in a chart (nullptr if none).
QCPGraph* graph_named(fathom::gui::CurvePlot* chart, const QString& name) {
  for (int g = 0; chart && g < chart->plot()->graphCount(); ++g)
    if (chart->plot()->graph(g)->name() == name) return chart->plot()->graph(g);
  return nullptr;
}

double last_x(QCPGraph* graph) {
  return graph && !graph->data()->isEmpty() ? (graph->data()->constEnd() - 1)->key : -1;
}

// A new run named `name`, marked running on "host".
int64_t running_run(Store& store, const std::string& name, const std::string& config_json = "{}") {
  NewRun r;
  r.name = name;
  r.config_json = config_json;
  const int64_t id = store.create_run(r);
  store.mark_running(id, "host", "cpu");
  return id;
}

// train_loss at each step of `steps` (value 5 - step / 100) and the run's update count.
void log_loss(Store& store, int64_t id, const std::vector<int64_t>& steps) {
  std::vector<fathom::db::MetricRow> rows;
  for (int64_t s : steps) rows.push_back({s, "train_loss", 5.0 - s / 100.0, 0.0});
  store.write_metrics(id, rows);
  store.heartbeat(id, steps.back());
}

class RunPageTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("fathom-test");
    QCoreApplication::setApplicationName("run-page-test");
    QSettings().clear();
  }

  // Training health first, then the run's other known curves in the presentation table's
  // order, then curves the table does not know (system metrics), then the probes; a chart
  // mixing train and valid curves smooths nothing as a whole (valid points are exact).
  void chartsLeadWithLossPerplexityLrAndGradNorm() {
    const auto specs = fathom::gui::run_chart_specs(
        {"grad_norm", "gradnorm.dec.0", "gradnorm.enc.0", "lr", "probe.log_z_mean",
         "sys.gpu_memory_gb", "target_tokens", "tokens_per_s", "train_loss", "train_ppl",
         "valid_bleu", "valid_loss", "valid_ppl"});
    QStringList titles;
    for (const auto& s : specs) titles << s.title;
    QCOMPARE(titles,
             QStringList({"loss (nats)", "perplexity", "learning rate", "gradient norm",
                          "valid_bleu (BLEU)", "tokens_per_s (tokens/s)", "sys.gpu_memory_gb",
                          "probe.log_z_mean (nats)", "gradient norm by layer"}));
    QCOMPARE(specs[0].metrics, (std::vector<std::string>{"train_loss", "valid_loss"}));
    QVERIFY(!specs[0].smoothed);
    QVERIFY(specs[1].log_y);
    QVERIFY(!specs[2].smoothed);  // a schedule is drawn as it is
    QVERIFY(specs[3].smoothed);
    QCOMPARE(specs.back().metrics, (std::vector<std::string>{"gradnorm.dec.0", "gradnorm.enc.0"}));
    for (const auto& s : specs) QVERIFY2(!s.whole_y, qPrintable(s.title));  // none is a count
  }

  // train.noise_scale's B_simple with its interval's ends in one chart, on a log axis, after
  // the training-health charts; its parts each their own.
  void theNoiseScaleIsChartedWithItsInterval() {
    const auto specs =
        fathom::gui::run_chart_specs({"noise.b_simple", "noise.b_simple_high", "noise.b_simple_low",
                                      "noise.trace", "train_loss"});
    QCOMPARE(specs.size(), size_t(3));
    QCOMPARE(specs[1].title, QStringLiteral("gradient noise scale B_simple (target tokens)"));
    QCOMPARE(specs[1].metrics, (std::vector<std::string>{"noise.b_simple", "noise.b_simple_low",
                                                         "noise.b_simple_high"}));
    QVERIFY(specs[1].log_y);
    QVERIFY(!specs[1].smoothed);
    QCOMPARE(specs[1].y_label, QStringLiteral("B_simple"));  // not the 3 names joined
    QCOMPARE(specs[2].metrics, std::vector<std::string>{"noise.trace"});
  }

  // A count of a few things (the process's threads) ticks at whole numbers: 2.8, 3.0, 3.2
  // threads was the run page's axis for a run whose thread count moved between 3 and 3.
  void aChartOfThreadsTicksAtWholeNumbers() {
    const auto specs = fathom::gui::run_chart_specs({"sys.threads", "train_loss"});
    QCOMPARE(specs.size(), size_t(2));
    QVERIFY(!specs[0].whole_y);
    QCOMPARE(specs[1].metrics, std::vector<std::string>{"sys.threads"});
    QVERIFY(specs[1].whole_y);

    QTemporaryDir dir;
    auto store = Store::open(dir.filePath("runs.db").toStdString());
    const int64_t id = running_run(store, "threads");
    store.write_metrics(id, {{10, "sys.threads", 3, 0.0},
                             {20, "sys.threads", 3, 0.0},
                             {30, "sys.threads", 3, 0.0},
                             {10, "train_loss", 4.0, 0.0}});
    fathom::gui::RunPage page(store, *store.find_run(std::to_string(id)));
    QCustomPlot* threads = page.charts()->chart("sys.threads (threads)")->plot();
    QVERIFY(
        dynamic_cast<fathom::plot::detail::WholeNumberTicker*>(threads->yAxis->ticker().data()));
    threads->replot();
    for (double tick : threads->yAxis->tickVector())
      QVERIFY2(tick == std::round(tick), qPrintable(QString::number(tick)));
    QCustomPlot* loss = page.charts()->chart("loss (nats)")->plot();
    QVERIFY(!dynamic_cast<fathom::plot::detail::WholeNumberTicker*>(loss->yAxis->ticker().data()));
  }

  // The page is a window (no dialog, nothing modal), its first tab the charts, which grow as
  // the run logs: new points extend a curve, a new curve adds a chart, and the overview's
  // update count follows.
  void pageIsAWindowLedByChartsThatFollowTheRun() {
    QTemporaryDir dir;
    auto store = Store::open(dir.filePath("runs.db").toStdString());
    const int64_t id = running_run(store, "live");
    log_loss(store, id, {10, 20, 30, 40, 50});
    store.write_metrics(id, {{50, "valid_loss", 4.8, 0.0}, {10, "lr", 1e-3, 0.0}});
    fathom::gui::RunPage page(store, *store.find_run(std::to_string(id)));
    QVERIFY(page.isWindow());
    QVERIFY(!page.isModal());
    QStringList tabs;
    for (int i = 0; i < page.tabs()->count(); ++i) tabs << page.tabs()->tabText(i).remove('&');
    QCOMPARE(tabs, QStringList({"Charts", "Overview", "Config", "Config diff", "Log", "Samples",
                                "Notes", "Translate"}));
    QCOMPARE(page.charts()->titles(), QStringList({"loss (nats)", "learning rate"}));
    auto* loss = page.charts()->chart("loss (nats)");
    QCOMPARE(last_x(graph_named(loss, "train_loss")), 50.0);
    QCOMPARE(graph_named(loss, "valid_loss")->data()->size(), 1);

    log_loss(store, id, {60, 70});
    store.write_metrics(id, {{70, "grad_norm", 1.5, 0.0}});
    page.refresh(*store.find_run(std::to_string(id)));
    QCOMPARE(page.charts()->titles(),
             QStringList({"loss (nats)", "learning rate", "gradient norm"}));
    QCOMPARE(last_x(graph_named(page.charts()->chart("loss (nats)"), "train_loss")), 70.0);
    const QString overview =
        page.findChild<QPlainTextEdit*>(QStringLiteral("overview"))->toPlainText();
    QVERIFY2(overview.contains(QRegularExpression(R"(\nupdates {2,}70\n)")), qPrintable(overview));
  }

  // The Overview's status says when train.patience ended the run, as `fathom show` does; a run
  // that finished without it says "finished" alone. A fork's overview names its parent.
  void theOverviewSaysWhenPatienceEndedTheRun() {
    QTemporaryDir dir;
    auto store = Store::open(dir.filePath("runs.db").toStdString());
    const int64_t early = running_run(store, "early"), whole = running_run(store, "whole");
    store.set_tag(early, "early_stop", "update 40: 2 validations since update 20 without ...");
    store.finish_run(early, "finished");
    store.finish_run(whole, "finished");
    // The Overview's line that starts with `key`, the key cut off.
    auto overview_line = [&](int64_t id, const QString& key) {
      fathom::gui::RunPage page(store, *store.find_run(std::to_string(id)));
      const QString text =
          page.findChild<QPlainTextEdit*>(QStringLiteral("overview"))->toPlainText();
      for (const QString& line : text.split('\n'))
        if (line.startsWith(key)) return line.mid(key.size()).trimmed();
      return QString();
    };
    auto status_line = [&](int64_t id) { return overview_line(id, QStringLiteral("status")); };
    QCOMPARE(status_line(early), QStringLiteral("finished (early stop: train.patience)"));
    QCOMPARE(status_line(whole), QStringLiteral("finished"));
    // A fork says what it continues and what it changed; other runs have no such line.
    store.set_tag(whole, "forked_from", std::to_string(early));
    store.set_tag(whole, "forked_at", "30");
    store.set_tag(whole, "fork.settings", "train.lr=0.0005");
    auto fork_line = [&](int64_t id) { return overview_line(id, QStringLiteral("fork of")); };
    QCOMPARE(fork_line(whole), QStringLiteral("run %1 at update 30 (train.lr=0.0005)").arg(early));
    QCOMPARE(fork_line(early), QString());
    // Its parent lists it.
    QCOMPARE(overview_line(early, QStringLiteral("forks")),
             QStringLiteral("1 run: #%1").arg(whole));
    QCOMPARE(overview_line(whole, QStringLiteral("forks")), QString());
    // The fork's page compares it with its parent; the parent's has no such button.
    QVERIFY(
        !fathom::gui::RunPage(store, *store.find_run(std::to_string(early))).compareWithParent());
    fathom::gui::RunPage fork_page(store, *store.find_run(std::to_string(whole)));
    QVERIFY(fork_page.compareWithParent());
    QCOMPARE(fork_page.compareWithParent()->text(),
             QStringLiteral("Compare with parent #%1").arg(early));
    if (fathom::gui::find_fathom_binary().isEmpty()) return;  // the click runs `fathom compare`
    fork_page.compareWithParent()->click();
    const auto windows = fork_page.findChildren<fathom::gui::CommandReportWindow*>();
    QCOMPARE(windows.size(), qsizetype(1));
    QCOMPARE(windows.front()->windowTitle(),
             QStringLiteral("Compare #%1 against #%2").arg(whole).arg(early));
    QVERIFY(windows.front()->markdown().contains(QStringLiteral("Settings that differ")));
  }

  // The loss chart marks, on valid_loss, the checkpoint the final evaluation measured (tag
  // final_model) and where train.patience stopped training (tag early_stop), each on the curve
  // at its update; the read-out says what it is. A run resumed past its stop keeps the first.
  void theLossChartMarksTheBestCheckpointAndTheEarlyStop() {
    QTemporaryDir dir;
    auto store = Store::open(dir.filePath("runs.db").toStdString());
    const int64_t id = running_run(store, "early");
    log_loss(store, id, {10, 20, 30, 40});
    store.write_metrics(id, {{10, "valid_loss", 4.5, 0.0},
                             {20, "valid_loss", 4.2, 0.0},
                             {30, "valid_loss", 4.3, 0.0},
                             {40, "valid_loss", 4.25, 0.0}});
    store.set_tag(id, "final_model", "checkpoint_best, update 20");
    store.set_tag(id, "early_stop", "update 40: 2 validations since update 20 without ...");
    fathom::gui::RunPage page(store, *store.find_run(std::to_string(id)));
    auto* loss = page.charts()->chart("loss (nats)");
    using Kind = fathom::gui::ChartMark::Kind;
    const auto drawn = loss->drawnMarks(Kind::Milestone);
    QCOMPARE(drawn.size(), size_t(2));
    QCOMPARE(drawn[0], std::make_pair(20.0, 4.2));
    QCOMPARE(drawn[1], std::make_pair(40.0, 4.25));
    QVERIFY(loss->marks()[0].text.startsWith("checkpoint_best, update 20"));
    QVERIFY(loss->marks()[1].text.startsWith("stopped early: update 40"));
    // Export... draws them too: on the valid curve the figure carries, at their updates.
    const auto exported = fathom::gui::figure_to_export(loss->plot());
    QVERIFY(exported);
    const auto& figure = std::get<fathom::plot::CurveFigure>(*exported);
    std::vector<double> milestones;
    for (const auto& curve : figure.curves)
      milestones.insert(milestones.end(), curve.milestone_x.begin(), curve.milestone_x.end());
    QCOMPARE(milestones, (std::vector<double>{20.0, 40.0}));
    // The best checkpoint is the valid curve's lowest point: its tick reaches below it, and the
    // axis makes room for it (10 pixels at least) instead of cutting it off at the edge -- on a
    // chart of the usual height, where the 5 % air of the fit leaves it about 5.
    page.resize(1000, 360);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QCustomPlot* plot = loss->plot();
    plot->replot(QCustomPlot::rpImmediateRefresh);
    plot->replot(QCustomPlot::rpImmediateRefresh);  // the room is made before each paint
    const double bottom = plot->yAxis->axisRect()->bottom();
    for (const auto& [x, y] : drawn)
      QVERIFY2(plot->yAxis->coordToPixel(y) <= bottom - 10,
               qPrintable(QString("update %1: %2 px above the bottom %3")
                              .arg(x)
                              .arg(bottom - plot->yAxis->coordToPixel(y))
                              .arg(bottom)));

    store.set_tag(id, "early_stop", "trained on from update 40 (train.patience 0) after ...");
    log_loss(store, id, {50});  // training on
    page.refresh(*store.find_run(std::to_string(id)));
    QCOMPARE(loss->drawnMarks(Kind::Milestone).size(), size_t(1));

    // While a run trains (no final_model yet): its checkpoint_best so far, from the artifact row.
    const int64_t live = running_run(store, "live");
    log_loss(store, live, {10, 20, 30});
    store.write_metrics(live, {{10, "valid_loss", 4.5, 0.0}, {20, "valid_loss", 4.4, 0.0}});
    store.add_artifact(live, "checkpoint_best", dir.filePath("best.pt").toStdString(), 20);
    fathom::gui::RunPage running(store, *store.find_run(std::to_string(live)));
    auto* live_loss = running.charts()->chart("loss (nats)");
    QCOMPARE(live_loss->drawnMarks(Kind::Milestone),
             (std::vector<std::pair<double, double>>{{20.0, 4.4}}));
    QVERIFY(live_loss->marks()[0].text.startsWith("checkpoint_best so far, update 20"));
    QVERIFY(live_loss->marks()[0].text.endsWith("the lowest valid_loss yet"));
    // One selected on valid_bleu (train.best_metric) says so.
    const int64_t on_bleu =
        running_run(store, "on-bleu", R"({"train": {"best_metric": "valid_bleu"}})");
    log_loss(store, on_bleu, {10, 20});
    store.write_metrics(on_bleu, {{10, "valid_loss", 4.5, 0.0}});
    store.add_artifact(on_bleu, "checkpoint_best", dir.filePath("b.pt").toStdString(), 10);
    fathom::gui::RunPage bleu_page(store, *store.find_run(std::to_string(on_bleu)));
    const auto bleu_marks = bleu_page.charts()->chart("loss (nats)")->marks();
    QCOMPARE(bleu_marks.size(), size_t(1));
    QVERIFY2(bleu_marks[0].text.endsWith("the highest valid_bleu yet"),
             qPrintable(bleu_marks[0].text));
    // Once its valid_bleu is drawn, the marks go on that curve, where they were decided.
    store.write_metrics(on_bleu, {{10, "valid_bleu", 12.5, 0.0}, {20, "valid_bleu", 11.0, 0.0}});
    log_loss(store, on_bleu, {30});  // the run moved: the page reads again
    bleu_page.refresh(*store.find_run(std::to_string(on_bleu)));
    const QStringList titles = bleu_page.charts()->titles();
    const auto on_curve = [&](const QString& title) {
      return bleu_page.charts()->chart(title)->drawnMarks(Kind::Milestone);
    };
    QString bleu_title;
    for (const QString& t : titles)
      if (t.contains(QStringLiteral("BLEU"), Qt::CaseInsensitive)) bleu_title = t;
    QVERIFY2(!bleu_title.isEmpty(), qPrintable(titles.join(", ")));
    QCOMPARE(on_curve(bleu_title), (std::vector<std::pair<double, double>>{{10.0, 12.5}}));
    QVERIFY(on_curve(QStringLiteral("loss (nats)")).empty());
  }

  // The learning-rate chart draws the schedule the run's config plans beside the logged
  // points, to its last update: cosine over 100 updates after a warmup of 10, from 2e-3 to
  // 2e-4, passes the logged 1.1e-3 at update 55 (p = 1/2) and ends at 2e-4 at update 100. A
  // run without a config that reads has the logged points alone.
  void theLearningRateChartShowsThePlannedSchedule() {
    QTemporaryDir dir;
    auto store = Store::open(dir.filePath("runs.db").toStdString());
    NewRun r;
    r.name = "cosine";
    r.config_yaml =
        "train:\n  schedule: cosine\n  lr: 0.002\n  warmup: 10\n  max_updates: 100\n"
        "  min_lr_ratio: 0.1\n";
    const int64_t id = store.create_run(r);
    r.name = "no config";
    r.config_yaml = "";
    const int64_t bare = store.create_run(r);
    for (int64_t run : {id, bare}) {
      store.mark_running(run, "host", "cpu");
      store.write_metrics(run, {{10, "lr", 2e-3, 0.0}, {55, "lr", 1.1e-3, 0.0}});
    }
    fathom::gui::RunPage page(store, *store.find_run(std::to_string(id)));
    auto* chart = page.charts()->chart("learning rate");
    QCPGraph* planned = graph_named(chart, "planned (cosine)");
    QVERIFY(planned);
    QCOMPARE(last_x(planned), 100.0);
    QVERIFY(qAbs((planned->data()->constEnd() - 1)->value - 2e-4) < 1e-12);
    const auto at55 = planned->data()->findBegin(55.0, false);
    QCOMPARE(at55->key, 55.0);
    QVERIFY(qAbs(at55->value - 1.1e-3) < 1e-12);
    QCOMPARE(last_x(graph_named(chart, "lr")), 55.0);

    fathom::gui::RunPage plain(store, *store.find_run(std::to_string(bare)));
    QCOMPARE(plain.charts()->chart("learning rate")->plot()->graphCount(), 1);

    // A fork at update 40 with half the rate: its config plans updates 41 on (1e-3 times the
    // cosine factor, 0.1 + 0.9 (1 + cos(pi 31/90)) / 2 = 0.7326 at update 41); before, it
    // followed its parent's schedule, which its plan must not stand in for.
    r.name = "fork";
    r.config_yaml =
        "train:\n  schedule: cosine\n  lr: 0.001\n  warmup: 10\n  max_updates: 100\n"
        "  min_lr_ratio: 0.1\n";
    const int64_t fork = store.create_run(r);
    store.write_metrics(fork, {{10, "lr", 2e-3, 0.0}, {55, "lr", 5.5e-4, 0.0}});
    store.set_tag(fork, "forked_from", std::to_string(id));
    store.set_tag(fork, "forked_at", "40");
    fathom::gui::RunPage forked(store, *store.find_run(std::to_string(fork)));
    QCPGraph* plan =
        graph_named(forked.charts()->chart("learning rate"), "planned (cosine, after update 40)");
    QVERIFY(plan);
    QCOMPARE(plan->data()->constBegin()->key, 41.0);
    const double factor = 0.1 + 0.9 * (1 + std::cos(M_PI * 31.0 / 90.0)) / 2;
    QVERIFY(qAbs(plan->data()->constBegin()->value - 1e-3 * factor) < 1e-12);
    QCOMPARE(last_x(plan), 100.0);
    // The parent's own points drawn beside the fork's, under their own name: past the fork
    // point they are what the fork is judged against (1.1e-3 at update 55, the fork 5.5e-4).
    QCPGraph* parent = graph_named(forked.charts()->chart("learning rate"),
                                   QStringLiteral("lr (parent #%1)").arg(id));
    QVERIFY(parent);
    QCOMPARE(last_x(parent), 55.0);
    QVERIFY(qAbs((parent->data()->constEnd() - 1)->value - 1.1e-3) < 1e-12);
    QCOMPARE(last_x(graph_named(forked.charts()->chart("learning rate"), "lr")), 55.0);
    // A parent no longer in the store (run 999): the fork's curves alone, as before.
    store.set_tag(fork, "forked_from", "999");
    fathom::gui::RunPage orphan(store, *store.find_run(std::to_string(fork)));
    QVERIFY(
        !graph_named(orphan.charts()->chart("learning rate"), QStringLiteral("lr (parent #999)")));
    QCOMPARE(last_x(graph_named(orphan.charts()->chart("learning rate"), "lr")), 55.0);
  }

  // Issue 58: the run page shows the run's probes as the Probes tab draws them -- a tab after
  // Charts once the run has probes (a run without none, until its first probe point).
  void probesShowOnThePageOnceTheRunHasThem() {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    auto store = Store::open(db.toStdString());
    const int64_t id = running_run(store, "probed");
    log_loss(store, id, {10, 20});
    fathom::gui::RunPage page(store, *store.find_run(std::to_string(id)));
    page.showProbes(db);
    QVERIFY(!page.probes());  // no probe yet: no tab
    QCOMPARE(page.tabs()->count(), 8);
    const std::vector<std::string> positions = {"enc.0.ffn", "enc.1.ffn", "enc.2.ffn"};
    store.write_probes(id, {{10, "stream.rms", positions, {1, 2, 3}, 1.0},
                            {20, "stream.rms", positions, {2, 4, 6}, 2.0}});
    log_loss(store, id, {30});
    page.refresh(*store.find_run(std::to_string(id)));
    QVERIFY(page.probes());
    QCOMPARE(page.tabs()->tabText(1).remove('&'), QStringLiteral("Probes"));
    // The run's heatmap: depth (3 sub-layers) x update (2 probe points), its values as written.
    QTRY_COMPARE(page.probes()->heatmaps().size(), size_t(1));
    const auto& map = page.probes()->heatmaps().front();
    QCOMPARE(map.values.size(), size_t(3));
    QCOMPARE(map.values[0].size(), size_t(2));
    QCOMPARE(map.values[2][1], 6.0);
    // A new probe point reaches the page at the next refresh.
    store.write_probes(id, {{30, "stream.rms", positions, {3, 6, 9}, 3.0}});
    log_loss(store, id, {40});
    page.refresh(*store.find_run(std::to_string(id)));
    QTRY_COMPARE(page.probes()->heatmaps().front().values[0].size(), size_t(3));
  }

  // Open shows a page per selected run and returns at once (the workbench stays usable); the
  // window's poll carries each run's new points to its page; opening a run again raises its
  // page instead of making a second.
  void severalPagesStayOpenAndFollowThePoll() {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    auto store = Store::open(db.toStdString());
    std::vector<int64_t> ids;
    for (const char* name : {"a", "b"}) {
      NewRun r;
      r.name = name;
      ids.push_back(store.create_run(r));
      store.mark_running(ids.back(), "host", "cpu");
      log_loss(store, ids.back(), {10, 20});
    }
    fathom::gui::MainWindow window;
    QVERIFY(window.openDatabase(db, true));
    window.runsView()->selectAll();
    window.runsView()->openSelected();
    auto pages = window.runsView()->pages()->pages();
    QCOMPARE(pages.size(), size_t(2));
    for (auto* page : pages) {
      QVERIFY(page->isVisible());
      QVERIFY(page->isWindow());
    }
    QVERIFY(QApplication::activeModalWidget() == nullptr);

    log_loss(store, ids[0], {30, 40});
    window.pollNow();
    for (auto* page : pages) {
      const double expected = page->runId() == ids[0] ? 40 : 20;
      QCOMPARE(last_x(graph_named(page->charts()->chart("loss (nats)"), "train_loss")), expected);
    }
    window.runsView()->openSelected();
    QCOMPARE(window.runsView()->pages()->pages().size(), size_t(2));
    window.runsView()->pages()->closeAll();
  }

  void keysAndValuesNeverRunTogether() {
    QTemporaryDir dir;
    auto store = Store::open(dir.filePath("runs.db").toStdString());
    NewRun r;
    r.name = "details";
    const int64_t id = store.create_run(r);
    store.set_final_metric(id, "decode_time_s", 5.98552);
    store.set_final_metric(id, "valid_ppl", 3.5);
    store.set_tag(id, "axis.model.encoder_layers_with_a_long_name", "18");
    store.add_artifact(id, "checkpoint_best", "run-1/best.g1.pt", 200);
    fathom::gui::RunPage dialog(store, *store.find_run(std::to_string(id)));
    const QString text =
        dialog.findChild<QPlainTextEdit*>(QStringLiteral("overview"))->toPlainText();
    QVERIFY2(text.contains(QRegularExpression(R"(\n  decode_time_s {2,}5\.986\n)")),
             qPrintable(text));
    QVERIFY(text.contains(QRegularExpression(R"(\n  valid_ppl {2,}3\.5\n)")));
    QVERIFY(text.contains(
        QRegularExpression(R"(\n  axis\.model\.encoder_layers_with_a_long_name {2,}18\n)")));
    QVERIFY(text.contains(QRegularExpression(
        R"(\n  checkpoint_best {2,}run-1/best\.g1\.pt \(update 200\)  \[missing\]\n)")));
    QVERIFY(text.contains(QStringLiteral("\nfinal metrics\n")));
    // One column: every value starts at the same place.
    const qsizetype at = text.indexOf(QStringLiteral("5.986")) -
                         text.lastIndexOf('\n', text.indexOf(QStringLiteral("5.986")));
    const qsizetype at_ppl = text.indexOf(QStringLiteral("3.5\n")) -
                             text.lastIndexOf('\n', text.indexOf(QStringLiteral("3.5\n")));
    QCOMPARE(at, at_ppl);
  }

  void notesLogSamplesAndConfigDiff() {
    QTemporaryDir dir;
    auto store = Store::open(dir.filePath("runs.db").toStdString());
    auto make = [&](const std::string& name, const std::string& config) {
      NewRun r;
      r.name = name;
      r.sweep = "s";
      r.config_json = config;
      return store.create_run(r);
    };
    const int64_t a = make("s/a", R"({"model":{"norm":"pre","d_model":64},"train":{"lr":0.001}})");
    const int64_t b = make("s/b", R"({"model":{"norm":"post","d_model":64},"train":{}})");
    const QString run_dir = dir.filePath("run-1");
    QDir().mkpath(run_dir);
    {
      QFile log(run_dir + "/worker.log");
      QVERIFY(log.open(QIODevice::WriteOnly));
      log.write("worker: run 1 on host\nworker: run 1 finished after 10 updates\n");
      QFile hyp(run_dir + "/test.hyp");  // a run's files are in its folder
      QVERIFY(hyp.open(QIODevice::WriteOnly));
      hyp.write("ein Hund\nzwei Katzen\n");
    }
    store.add_artifact(a, "hypotheses", (run_dir + "/test.hyp").toStdString(), 10);
    // Validation samples at updates 5 and 10 (the trainer's tags), shown newest first; the
    // tags themselves stay out of the overview.
    store.set_tag(a, "samples.u5",
                  R"([{"source": "a dog", "reference": "ein Hund", "hypothesis": "ein"}])");
    store.set_tag(a, "samples.u10",
                  R"([{"source": "a dog", "reference": "ein Hund", "hypothesis": "ein Hund"}])");
    const auto runs = store.list_runs();
    fathom::gui::RunPage dialog(store, *store.find_run(std::to_string(a)), runs,
                                run_dir.toStdString());
    auto text = [&](const char* name) {
      return dialog.findChild<QPlainTextEdit*>(QString::fromLatin1(name))->toPlainText();
    };
    QVERIFY(text("log").contains("finished after 10 updates"));
    QCOMPARE(text("samples"),
             QStringLiteral("validation at update 10\n  src  a dog\n  ref  ein Hund\n  hyp  ein "
                            "Hund\n\nvalidation at update 5\n  src  a dog\n  ref  ein Hund\n  "
                            "hyp  ein\n\ntest set (first 20 hypotheses)\nein Hund\nzwei Katzen"));
    QVERIFY(!text("overview").contains(QStringLiteral("samples.u")));
    QVERIFY2(text("overview").contains(QRegularExpression(R"(test\.hyp \(update 10\)  \[21 B\])")),
             qPrintable(text("overview")));
    // Against b (the same sweep): norm and lr differ, d_model does not.
    QCOMPARE(text("diff"), QStringLiteral("model.norm: pre -> post\ntrain.lr: 0.001 -> (none)\n"));
    QCOMPARE(fathom::gui::config_diff(R"({"a":1})", R"({"a":1})"), std::string());

    auto* notes = dialog.findChild<QPlainTextEdit*>(QStringLiteral("notes"));
    notes->setPlainText(QStringLiteral("lr too high?"));
    QVERIFY(dialog.saveNotes());
    QCOMPARE(store.tags(a).at("note"), std::string("lr too high?"));
    fathom::gui::RunPage again(store, *store.find_run(std::to_string(a)), runs, "");
    QCOMPARE(again.findChild<QPlainTextEdit*>(QStringLiteral("notes"))->toPlainText(),
             QStringLiteral("lr too high?"));
    QVERIFY(again.findChild<QPlainTextEdit*>(QStringLiteral("log"))
                ->toPlainText()
                .startsWith("no worker log"));
    (void)b;
  }

  // The window opens its store read-only (gui/store_session.cpp), and the page saves the note
  // anyway (issue 58 item 1: every Save said "set_tag on a store opened read-only" and wrote
  // that into the note itself, so the next Save stored the error).
  void notesSaveFromAReadOnlyWindow() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("runs.db").toStdString();
    int64_t id = 0;
    {
      auto writer = Store::open(path);
      NewRun r;
      r.name = "noted";
      id = writer.create_run(r);
    }
    auto reader = Store::open(path, fathom::db::OpenMode::ReadOnly);
    fathom::gui::RunPage dialog(reader, *reader.find_run(std::to_string(id)));
    auto* notes = dialog.findChild<QPlainTextEdit*>(QStringLiteral("notes"));
    notes->setPlainText(QStringLiteral("diverged at 8e-3: try warmup 8000"));
    QVERIFY(dialog.saveNotes());
    QCOMPARE(notes->toPlainText(), QStringLiteral("diverged at 8e-3: try warmup 8000"));
    QCOMPARE(dialog.findChild<QLabel*>(QStringLiteral("note_status"))->text(),
             QStringLiteral("saved"));
    QCOMPARE(Store::open(path, fathom::db::OpenMode::ReadOnly).tags(id).at("note"),
             std::string("diverged at 8e-3: try warmup 8000"));
  }
};

FATHOM_GUI_TEST(RunPageTest);

}  // namespace test_run_page

#include "test_run_page.moc"
