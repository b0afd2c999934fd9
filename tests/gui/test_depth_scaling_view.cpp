// The Scaling tab over a store built here: depths 2, 4, 8, 16, two norms, three seeds, each run
// validated at updates 100, 200, 400 (1e9 FLOPs an update). post's means put its vertex in
// ln(depth) at ln 4 + d ln 2, d = -0.3, 0, 0.3 at 1e11, 2e11, 4e11 FLOPs -- the best depth grows
// as compute^0.3 (0.3 ln 2 per doubling); pre is best at the deepest everywhere. With no budgets
// named the tab reads a quarter, a half and all of the cheapest run's compute: the same three.
#include <qcustomplot.h>
#include <QApplication>
#include <QByteArray>
#include <QCheckBox>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <fstream>

#include "db/metric_names.h"
#include "db/store.h"
#include "experiments/sweep_spec.h"
#include "gui/depth_scaling_view.h"
#include "gui/store_session.h"
#include "tests/gui/gui_test_registry.h"
#include "tests/gui/message_boxes.h"
#include "tests/support/fathom_cli.h"

using fathom::db::NewRun;
using fathom::db::Store;

namespace test_depth_scaling_view {

const int kDepths[] = {2, 4, 8, 16};
const int kUpdates[] = {100, 200, 400};

double mean_of(const std::string& norm, int i, int k) {
  const double d = -0.3 + 0.3 * k;
  const double post[4] = {2 + (1 + 2 * d) / 2, 2, 2 + (1 - 2 * d) / 2, 4};
  const double pre[4] = {3.0, 2.8, 2.6, 2.4};
  return (norm == "post" ? post[i] : pre[i]) - 0.1 * k;
}

class DepthScalingViewTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString db_;

  // The view on `session`, a store at `db` (the shared one by default).
  void show(fathom::gui::DepthScalingView& view, fathom::gui::StoreSession& session,
            const QString& db = {}) {
    view.setStore(&session, db.isEmpty() ? db_ : db);
    view.showRuns(session.store.list_runs(), {});
  }

 private slots:
  void initTestCase() {
    db_ = dir_.filePath("runs.db");
    auto store = Store::open(db_.toStdString());
    for (const std::string norm : {"post", "pre"})
      for (int i = 0; i < 4; ++i)
        for (int seed = -1; seed <= 1; ++seed) {
          NewRun n;
          n.name = "d/" + norm + std::to_string(kDepths[i]) + "-" + std::to_string(seed);
          n.sweep = "d";
          n.config_json = "{\"model\": {\"norm\": \"" + norm + "\"}}";  // what Where reads
          const int64_t id = store.create_run(n);
          store.set_tag(id, "axis.model.encoder_layers", std::to_string(kDepths[i]));
          store.set_tag(id, "axis.model.norm", norm);
          store.set_tag(id, "axis.train.seed", std::to_string(seed + 2));
          std::vector<fathom::db::MetricRow> rows;
          for (int k = 0; k < 3; ++k) {
            rows.emplace_back(kUpdates[k], "valid_loss", mean_of(norm, i, k) + 0.02 * seed, 0.0);
            rows.emplace_back(kUpdates[k], fathom::db::metric::kTrainFlops, 1e9 * kUpdates[k], 0.0);
          }
          store.write_metrics(id, rows);
          store.finish_run(id, "finished");
        }
  }

  void eachNormsBestDepthAndItsExponent() {
    auto session = fathom::gui::StoreSession::open(db_, nullptr);
    QVERIFY(session);
    fathom::gui::DepthScalingView view;
    show(view, *session);
    // No budgets named: 1/4, 1/2 and all of the least run's 4e11 FLOPs.
    QVERIFY2(view.choose("d", "model.encoder_layers", "model.norm", "valid_loss"),
             qPrintable(view.noteText()));
    QCOMPARE(view.shown()->scalings.size(), size_t(2));
    const auto& post = view.shown()->scalings[0];
    QCOMPARE(post.line, std::string("post"));
    QVERIFY(std::abs(post.exponent - 0.3) < 1e-9);
    QCOMPARE(post.budgets, 3);
    QVERIFY(std::abs(post.budget_lo - 1e11) < 1 && std::abs(post.budget_hi - 4e11) < 1);
    const QString note = view.noteText();
    QVERIFY2(note.contains(QStringLiteral(
                 "Exponent, post: best encoder_layers grows as compute^0.3 (95 % CI ")),
             qPrintable(note));
    QVERIFY2(note.contains(QStringLiteral("Exponent, pre: no exponent: 0 of 3 budgets")),
             qPrintable(note));
    // Both plots drawn: lines over depth at each budget; post's optima against compute with the
    // fitted line.
    QVERIFY(view.budgetsPlot()->graphCount() >= 6);
    QCOMPARE(view.scalingPlot()->graphCount(), 2);
    QCOMPARE(view.scalingPlot()->xAxis->scaleType(), QCPAxis::stLogarithmic);
    if (const QByteArray out = qgetenv("FATHOM_SCREENSHOTS"); !out.isEmpty()) {
      view.resize(1100, 700);
      view.show();
      QVERIFY(QTest::qWaitForWindowExposed(&view));
      view.grab().save(QString::fromUtf8(out) + "/scaling.png");
    }

    // Two budgets named: no exponent, said so; the right plot empty.
    QVERIFY(view.choose("d", "model.encoder_layers", "model.norm", "valid_loss",
                        "compute=2e11,compute=4e11"));
    QVERIFY(view.shown()->scalings.empty());
    QCOMPARE(view.scalingPlot()->graphCount(), 0);
    QVERIFY2(view.noteText().contains(QStringLiteral("needs three budgets or more")),
             qPrintable(view.noteText()));
    // A bad budget: the note says what is wrong, nothing is drawn.
    QVERIFY(!view.choose("d", "model.encoder_layers", "model.norm", "valid_loss", "flops=1e11"));
    QVERIFY2(view.noteText().startsWith(QStringLiteral("at: ")), qPrintable(view.noteText()));
  }

  // The tab first laid out while its left plot asks for most of the width (in the app: the
  // budgets' legend laid out for a narrow first size; here a minimum width), then at a
  // laptop's width once it no longer does: the right plot gets its share back (2 of 5). With a
  // splitter's stretch alone it kept its first width plus a share of the widening weighted by
  // that width -- 240 px of 1100 in the app, its legend cut, its tick labels run together.
  void theScalingPlotGetsItsShareBackWhateverTheFirstLayoutGaveIt() {
    auto session = fathom::gui::StoreSession::open(db_, nullptr);
    QVERIFY(session);
    fathom::gui::DepthScalingView view;
    show(view, *session);
    QVERIFY(view.choose("d", "model.encoder_layers", "model.norm", "valid_loss"));
    view.budgetsPlot()->axisRect()->setMinimumSize(700, 0);  // its size hint
    view.resize(1000, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.scalingPlot()->width() < 250);
    view.budgetsPlot()->axisRect()->setMinimumSize(0, 0);
    view.resize(1100, 700);
    QApplication::processEvents();
    const int budgets = view.budgetsPlot()->width(), scaling = view.scalingPlot()->width();
    QVERIFY2(std::abs(scaling - 0.4 * (budgets + scaling)) < 10,
             qPrintable(QStringLiteral("the scaling plot %1 px wide, the budgets plot %2 px")
                            .arg(scaling)
                            .arg(budgets)));
    // Once the user drags the handle, the sizes are the user's: a resize keeps them.
    auto* split = qobject_cast<QSplitter*>(view.scalingPlot()->parentWidget());
    QVERIFY(split);
    split->setSizes({budgets + scaling - 200, 200});
    emit split->splitterMoved(budgets + scaling - 200, 1);
    view.resize(1000, 700);
    QApplication::processEvents();
    QVERIFY2(view.scalingPlot()->width() < 250,
             qPrintable(QString::number(view.scalingPlot()->width())));
  }

  // Lines are offered by every axis but the depth and its zip partners; the seed is no axis here.
  void theDepthAxisIsNumericAndTheLinesAreTheOtherAxes() {
    auto session = fathom::gui::StoreSession::open(db_, nullptr);
    QVERIFY(session);
    fathom::gui::DepthScalingView view;
    show(view, *session);
    QVERIFY(!view.choose("d", "model.norm", "", "valid_loss"));  // not a number
    QVERIFY(!view.choose("d", "model.encoder_layers", "train.seed", "valid_loss"));
    QVERIFY(view.choose("d", "model.encoder_layers", "", "valid_loss"));
    QCOMPARE(view.shown()->scalings.size(), size_t(1));  // one line: every run pooled
    // Where: post's runs only -- its exponent, 0.3, on the one line. Read in the worker thread:
    // the edit returns before the figures are drawn.
    view.where()->setText(QStringLiteral("model.norm=post"));
    QMetaObject::invokeMethod(view.where(), "editingFinished");
    QVERIFY(view.reading());
    QVERIFY(!view.shown());
    view.waitForResults();
    QVERIFY2(view.shown(), qPrintable(view.noteText()));
    QVERIFY(std::abs(view.shown()->scalings[0].exponent - 0.3) < 1e-9);
    // Changed again before the read ends: what is drawn is the last choice (pre, best at the
    // deepest at every budget: no exponent), never the one before.
    view.where()->setText(QStringLiteral("model.norm=post or model.norm=pre"));
    QMetaObject::invokeMethod(view.where(), "editingFinished");
    view.where()->setText(QStringLiteral("model.norm=pre"));
    QMetaObject::invokeMethod(view.where(), "editingFinished");
    view.waitForResults();
    QVERIFY2(view.shown(), qPrintable(view.noteText()));
    QCOMPARE(view.shown()->scalings[0].budgets, 0);
    // A filter being typed: the note says what is wrong with it.
    view.where()->setText(QStringLiteral("model.norm=="));
    QMetaObject::invokeMethod(view.where(), "editingFinished");
    view.waitForResults();
    QVERIFY(!view.shown());
    QVERIFY2(view.noteText().contains(QStringLiteral("filter")), qPrintable(view.noteText()));
  }

  // Pre-LN is best at the deepest, 16, at every budget: "Extend depths..." is offered, and with
  // the sweep file writes 32 layers for Pre-LN alone (Post-LN's best is inside), seeds 1-3.
  void extendDepthsWritesTheNextDepthOfTheLinesAtTheEnd() {
    auto session = fathom::gui::StoreSession::open(db_, nullptr);
    QVERIFY(session);
    fathom::gui::DepthScalingView view;
    show(view, *session);
    QVERIFY(view.choose("d", "model.encoder_layers", "model.norm", "valid_loss"));
    QVERIFY(view.extendButton()->isEnabled());
    std::ofstream(dir_.filePath("base.yaml").toStdString())
        << fathom::testing::tiny_config_yaml("base", "{max_updates: 50}");
    const QString sweep_file = dir_.filePath("d.yaml");
    std::ofstream(sweep_file.toStdString()) << "name: d\nbase: base.yaml\ngrid:\n"
                                               "  model.norm: [post, pre]\n"
                                               "  model.encoder_layers: [2, 4, 8, 16]\n"
                                               "seeds: [1, 2, 3]\n";
    int seen = 0;
    fathom::testing::answer_boxes(QMessageBox::Yes, 2, &seen);
    const QString written = view.extendDepthsFrom(sweep_file);
    QCOMPARE(seen, 2);  // the question, then where it was written
    QCOMPARE(written, dir_.filePath("d-edge.yaml"));
    const auto runs = fathom::experiments::expand_sweep(
        fathom::experiments::load_sweep_file(written.toStdString()));
    QCOMPARE(runs.size(), size_t{3});
    for (const auto& run : runs) {
      QCOMPARE(run.config.model.norm, std::string("pre"));
      QCOMPARE(run.config.model.encoder_layers, 32);
    }
    // Post-LN's runs alone: its best depth is inside the grid, nothing to extend.
    view.where()->setText(QStringLiteral("model.norm=post"));
    QMetaObject::invokeMethod(view.where(), "editingFinished");
    view.waitForResults();
    QVERIFY(!view.extendButton()->isEnabled());
  }

  // The extension is read at the largest budget shown, so the button is offered only where a
  // line's best depth is at an end there: deepest early (update 100: 3.0, 2.5, 2.0) but inside
  // by the end (update 200: 2.5, 1.5, 2.0) is no reason to go deeper.
  void extendDepthsIsOfferedOnlyForAnEndAtTheLargestBudget() {
    QTemporaryDir dir;
    const QString db = dir.filePath("late.db");
    {
      auto store = Store::open(db.toStdString());
      const double early[3] = {3.0, 2.5, 2.0}, late[3] = {2.5, 1.5, 2.0};
      for (int i = 0; i < 3; ++i)
        for (int seed = 1; seed <= 3; ++seed) {
          NewRun n;
          n.name = "e/" + std::to_string(kDepths[i]) + "-" + std::to_string(seed);
          n.sweep = "e";
          const int64_t id = store.create_run(n);
          store.set_tag(id, "axis.model.encoder_layers", std::to_string(kDepths[i]));
          store.set_tag(id, "axis.train.seed", std::to_string(seed));
          const double noise = 0.01 * (seed - 2);
          store.write_metrics(id, {{100, "valid_loss", early[i] + noise, 0.0},
                                   {200, "valid_loss", late[i] + noise, 0.0}});
          store.finish_run(id, "finished");
        }
    }
    auto session = fathom::gui::StoreSession::open(db, nullptr);
    QVERIFY(session);
    fathom::gui::DepthScalingView view;
    show(view, *session, db);
    QVERIFY(view.choose("e", "model.encoder_layers", "", "valid_loss", "update=100,update=200"));
    QVERIFY2(view.noteText().contains(QStringLiteral("grid's end")), qPrintable(view.noteText()));
    QVERIFY(!view.extendButton()->isEnabled());
    QVERIFY(view.choose("e", "model.encoder_layers", "", "valid_loss", "update=100"));
    QVERIFY(view.extendButton()->isEnabled());
  }

  // The choices are kept across sessions: a new tab restored from them draws the same figures
  // once a store offers the sweep and axes.
  // A sweep file that varies the rate first and the depth second, its runs stored before Fathom
  // logged train_flops or target tokens: the tab opens on the depth, not the rate, and reads a
  // quarter, a half and all of the least run's updates instead of compute, saying so.
  void aDepthFirstAndUpdatesWhereNoRunLoggedItsCompute() {
    const QString db = dir_.filePath("no-flops.db");
    {
      auto store = Store::open(db.toStdString());
      for (const char* lr : {"0.001", "0.002", "0.004"})
        for (int i = 0; i < 3; ++i)
          for (int seed = 1; seed <= 2; ++seed) {
            NewRun n;
            n.name = "r/" + std::string(lr) + "/" + std::to_string(kDepths[i]) + "/" +
                     std::to_string(seed);
            n.sweep = "r";
            const int64_t id = store.create_run(n);
            store.set_tag(id, "sweep.axes", "train.lr,model.decoder_layers,train.seed");
            store.set_tag(id, "axis.train.lr", lr);
            store.set_tag(id, "axis.model.decoder_layers", std::to_string(kDepths[i]));
            store.set_tag(id, "axis.train.seed", std::to_string(seed));
            std::vector<fathom::db::MetricRow> rows;
            for (int k = 0; k < 3; ++k)
              rows.emplace_back(kUpdates[k], "valid_loss",
                                3 - 0.1 * k + 0.1 * (i - 1) * (i - 1) + 0.01 * seed, 0.0);
            store.write_metrics(id, rows);
            store.finish_run(id, "finished");
          }
    }
    auto session = fathom::gui::StoreSession::open(db, nullptr);
    QVERIFY(session);
    fathom::gui::DepthScalingView view;
    show(view, *session, db);
    view.waitForResults();
    QCOMPARE(view.depthAxis(), QStringLiteral("model.decoder_layers"));
    QVERIFY2(view.shown(), qPrintable(view.noteText()));
    QCOMPARE(view.shown()->scalings.size(), size_t(1));
    QCOMPARE(view.shown()->scalings[0].budget_axis, std::string("update"));
    QCOMPARE(view.shown()->scalings[0].budget_lo, 100.0);  // a quarter of the least, 400
    QVERIFY2(view.noteText().contains(
                 QStringLiteral("No finished run logged train_flops: the budgets are updates")),
             qPrintable(view.noteText()));
  }

  // A sweep over two depths and three rates: the rate is the only axis a best can be found
  // along, and the notes say first why the depth is not offered, lest the rate pass for it.
  void aDepthOfTwoValuesIsNamedWhereTheAxisShownIsNoDepth() {
    const QString db = dir_.filePath("two-depths.db");
    {
      auto store = Store::open(db.toStdString());
      for (const char* lr : {"0.001", "0.002", "0.004"})
        for (const int depth : {kDepths[3], kDepths[0]}) {
          NewRun n;
          n.name = "t/" + std::string(lr) + "/" + std::to_string(depth);
          n.sweep = "t";
          const int64_t id = store.create_run(n);
          store.set_tag(id, "sweep.axes", "train.lr,model.decoder_layers");
          store.set_tag(id, "axis.train.lr", lr);
          store.set_tag(id, "axis.model.decoder_layers", std::to_string(depth));
          store.write_metrics(id, {{kUpdates[0], "valid_loss", 3.0, 0.0}});
          store.finish_run(id, "finished");
        }
    }
    auto session = fathom::gui::StoreSession::open(db, nullptr);
    QVERIFY(session);
    fathom::gui::DepthScalingView view;
    show(view, *session, db);
    view.waitForResults();
    QCOMPARE(view.depthAxis(), QStringLiteral("train.lr"));
    QVERIFY2(view.noteText().startsWith(
                 QStringLiteral("model.decoder_layers takes 2 values in sweep t (2, 16): a best "
                                "depth needs three or more.\n")),
             qPrintable(view.noteText()));
  }

  void itsChoicesAreKeptAcrossSessions() {
    auto session = fathom::gui::StoreSession::open(db_, nullptr);
    QVERIFY(session);
    QSettings settings(dir_.filePath("settings.ini"), QSettings::IniFormat);
    {
      fathom::gui::DepthScalingView view;
      show(view, *session);
      QVERIFY(view.choose("d", "model.encoder_layers", "model.norm", "valid_loss",
                          "compute=1e11,compute=2e11,compute=4e11"));
      view.where()->setText(QStringLiteral("model.norm=post or model.norm=pre"));
      view.saveSettings(settings);
    }
    fathom::gui::DepthScalingView again;
    again.restoreSettings(settings);
    show(again, *session);
    again.waitForResults();
    QVERIFY2(again.shown(), qPrintable(again.noteText()));
    QCOMPARE(again.where()->text(), QStringLiteral("model.norm=post or model.norm=pre"));
    QCOMPARE(again.shown()->scalings.size(), size_t(2));  // a line per norm, as chosen
    QCOMPARE(again.shown()->scalings[0].line, std::string("post"));
    QVERIFY(std::abs(again.shown()->scalings[0].exponent - 0.3) < 1e-9);
    QVERIFY(std::abs(again.shown()->scalings[0].budget_lo - 1e11) < 1);
  }
};

FATHOM_GUI_TEST(DepthScalingViewTest);

}  // namespace test_depth_scaling_view

#include "test_depth_scaling_view.moc"
