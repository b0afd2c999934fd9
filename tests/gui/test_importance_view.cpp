// The Importance tab (gui/importance_view.h): a sweep's 2 x 2 grid decomposed as worked by hand
// in tests/base/test_hparam_importance.cpp (shares 2.25, 1 and 0.25 of V = 3.5; seeds 0.25),
// drawn and tabulated once its last setting finishes; the metric choices are the sweep's final
// metrics and "diverged"; a sweep with one value per axis says so.
#include <qcustomplot.h>
#include <QHeaderView>
#include <QSettings>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <tuple>

#include "db/store.h"
#include "gui/importance_view.h"
#include "gui/store_session.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::NewRun;
using fathom::db::Store;

namespace test_importance_view {

// Cells m(norm, lr) 0, 2, 1, 5, two seeds each at m -+ 0.5; (pre, 2e-3) still running.
std::vector<int64_t> make_grid(Store& store) {
  const std::vector<std::tuple<std::string, std::string, double>> cells = {
      {"post", "1e-3", 0}, {"pre", "1e-3", 2}, {"post", "2e-3", 1}, {"pre", "2e-3", 5}};
  std::vector<int64_t> running;
  for (const auto& [norm, lr, m] : cells)
    for (int seed : {1, 2}) {
      NewRun r;
      r.name = "g/" + norm + lr + "-" + std::to_string(seed);
      r.sweep = "g";
      // Written without raw strings: moc reads this file, and its parser loses track of
      // namespaces inside a raw string's braces.
      r.config_json = "{\"model\": {\"norm\": \"" + norm + "\"}, \"train\": {\"lr\": " + lr +
                      ", \"seed\": " + std::to_string(seed) + "}}";
      const int64_t id = store.create_run(r);
      store.set_tag(id, "axis.model.norm", norm);
      store.set_tag(id, "axis.train.lr", lr);
      store.set_tag(id, "axis.train.seed", std::to_string(seed));
      const double value = m + (seed == 1 ? -0.5 : 0.5);
      if (norm == "pre" && lr == "2e-3") {
        running.push_back(id);
        continue;
      }
      store.set_final_metric(id, "valid_loss", value);
      store.set_final_metric(id, "test_bleu", 20 + value);
      store.finish_run(id, "finished");
    }
  // A sweep whose every axis has one value: nothing to decompose.
  for (int seed : {1, 2}) {
    NewRun r;
    r.name = "flat/" + std::to_string(seed);
    r.sweep = "flat";
    const int64_t id = store.create_run(r);
    store.set_tag(id, "axis.train.lr", "1e-3");
    store.set_tag(id, "axis.train.seed", std::to_string(seed));
    store.set_final_metric(id, "valid_loss", seed);
    store.finish_run(id, "finished");
  }
  return running;
}

// An Importance tab on the store at `db`, its runs shown.
struct ViewOnStore {
  explicit ViewOnStore(const QString& db) : session(fathom::gui::StoreSession::open(db, &error)) {
    if (!session) return;
    view.setStore(session.get(), db);
    view.showRuns(session->store.list_runs(), {});
  }
  QString error;
  std::unique_ptr<fathom::gui::StoreSession> session;
  fathom::gui::ImportanceView view;
};

class ImportanceViewTest : public QObject {
  Q_OBJECT
 private slots:
  void aGridIsDecomposedOnceItsLastSettingFinishes() {
    QTemporaryDir dir;
    const QString db = dir.filePath("i.db");
    auto store = Store::open(db.toStdString());
    const auto running = make_grid(store);
    ViewOnStore on(db);
    QVERIFY2(on.session, qPrintable(on.error));
    auto& [error, session, view] = on;

    // One setting has no finished run yet: filled by the fit to the other three (cells 0, 2, 1
    // additively give 3 for pre / 2e-3: V = 1 + 0.25), named in the note, drawn.
    QVERIFY(view.choose("g", "valid_loss"));
    QVERIFY2(view.noteText().contains("1 of 4 settings have no run with a value of valid_loss"),
             qPrintable(view.noteText()));
    QVERIFY2(view.noteText().contains("model.norm=pre, train.lr=2e-3"),
             qPrintable(view.noteText()));
    QVERIFY(view.shown().has_value());
    QCOMPARE(view.shown()->filled, 1);
    QVERIFY(std::abs(view.shown()->total_variance - 1.25) < 1e-7);
    QVERIFY(view.plot()->plottableCount() > 0);
    QCOMPARE(view.metricChoices(), (QStringList{"valid_loss", "test_bleu", "diverged"}));

    // Its runs finish; the next listing brings them, and the view draws again by itself.
    for (const int64_t id : running) {
      store.set_final_metric(id, "valid_loss", id == running[0] ? 4.5 : 5.5);
      store.finish_run(id, "finished");
    }
    view.showRuns(session->store.list_runs(), {});
    view.waitForResults();  // read in the view's worker thread
    QVERIFY(view.shown().has_value());
    const auto& h = *view.shown();
    QCOMPARE(h.cells, 4);
    QCOMPARE(h.runs, 8);
    QCOMPARE(h.filled, 0);
    QVERIFY2(!view.noteText().contains("settings have no run"), qPrintable(view.noteText()));
    QVERIFY(std::abs(h.total_variance - 3.5) < 1e-12);
    // Bars: norm, lr, norm x lr, seeds -- values in percent of V; each term's interval (two
    // seeds a setting to resample) an error bar on it, none on the seeds' bar.
    QList<QCPBars*> bars;
    int intervals = 0;
    for (int i = 0; i < view.plot()->plottableCount(); ++i) {
      if (auto* b = qobject_cast<QCPBars*>(view.plot()->plottable(i))) bars << b;
      if (qobject_cast<QCPErrorBars*>(view.plot()->plottable(i))) ++intervals;
    }
    QCOMPARE(bars.size(), 4);
    QCOMPARE(intervals, 3);
    QVERIFY(std::abs(bars[0]->data()->at(0)->value - 100 * 2.25 / 3.5) < 1e-9);
    QVERIFY(std::abs(bars[3]->data()->at(0)->value - 100 * 0.25 / 3.5) < 1e-9);
    // The table beside it: the terms by share, then V and the seeds.
    QTableWidget* t = view.table();
    QCOMPARE(t->item(0, 0)->text(), QStringLiteral("norm"));  // as on its bar
    QCOMPARE(t->item(0, 0)->toolTip(), QStringLiteral("model.norm"));
    // Each share with its interval, as the decomposition has it.
    const auto with_interval = [](const char* share, const fathom::experiments::ImportanceTerm& t) {
      return QStringLiteral("%1 [%2, %3]")
          .arg(QLatin1String(share))
          .arg(100 * t.share_lo, 0, 'f', 1)
          .arg(100 * t.share_hi, 0, 'f', 1);
    };
    QVERIFY(h.interval_draws > 0);
    QCOMPARE(t->item(0, 2)->text(), with_interval("64.3 %", h.terms[0]));
    QCOMPARE(t->item(2, 0)->text(), QStringLiteral("norm x lr"));
    QCOMPARE(t->item(2, 2)->text(), with_interval("7.1 %", h.terms[2]));
    QCOMPARE(t->horizontalHeader()->visualIndex(2), 1);  // the share beside the name
    QVERIFY2(view.noteText().contains("4 settings of 2 axes, 8 runs"), qPrintable(view.noteText()));

    // Divergence decomposes too: no run diverged, so there is no variance to explain.
    QVERIFY(view.choose("g", "diverged"));
    QVERIFY2(view.noteText().contains("no variance to explain"), qPrintable(view.noteText()));

    QVERIFY(!view.choose("flat", "valid_loss"));
    QVERIFY2(view.noteText().contains("has two values"), qPrintable(view.noteText()));
    QCOMPARE(view.plot()->plottableCount(), 0);
    QCOMPARE(view.table()->rowCount(), 0);
  }

  // A label too wide for a narrow chart is cut to fit it; once the chart is wide, whole again
  // (the wrapping was measured only when drawn).
  void theLabelsFitTheChartAfterAResize() {
    QTemporaryDir dir;
    const QString db = dir.filePath("w.db");
    {
      auto store = Store::open(db.toStdString());
      for (const char* a : {"1", "2"})
        for (const char* b : {"1", "2"})
          for (int seed : {1, 2}) {
            NewRun r;
            r.name = std::string("w/") + a + b + std::to_string(seed);
            r.sweep = "w";
            const int64_t id = store.create_run(r);
            store.set_tag(id, "axis.model.attention_gate_temperature_schedule", a);
            store.set_tag(id, "axis.train.warmup_fraction_of_the_whole_run", b);
            store.set_tag(id, "axis.train.seed", std::to_string(seed));
            store.set_final_metric(id, "valid_loss", std::atoi(a) + 2 * std::atoi(b) + 0.1 * seed);
            store.finish_run(id, "finished");
          }
    }
    ViewOnStore on(db);
    QVERIFY2(on.session, qPrintable(on.error));
    auto& [error, session, view] = on;
    view.resize(420, 420);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.choose("w", "valid_loss"));
    const auto labels = [&view] {
      QStringList out;
      auto ticker = view.plot()->yAxis->ticker().dynamicCast<QCPAxisTickerText>();
      for (const QString& label : ticker->ticks()) out << label;
      return out.join('|');
    };
    const QString interaction =
        QStringLiteral("attention_gate_temperature_schedule x warmup_fraction_of_the_whole_run");
    const QChar cut(0x2026);
    QTRY_VERIFY2(labels().contains(cut), qPrintable(labels()));
    view.resize(1800, 900);
    QTRY_VERIFY2(!labels().contains(cut), qPrintable(labels()));
    QVERIFY2(QString(labels()).replace('\n', ' ').contains(interaction), qPrintable(labels()));
  }

  // The choices come back in the next session, and the sweep and metric are chosen once the
  // store offers them.
  void theChoicesAreKeptAcrossSessions() {
    QTemporaryDir dir;
    const QString db = dir.filePath("i.db");
    auto store = Store::open(db.toStdString());
    for (const int64_t id : make_grid(store)) {
      store.set_final_metric(id, "valid_loss", 5);
      store.finish_run(id, "finished");
    }
    QString error;
    auto session = fathom::gui::StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    QSettings settings(dir.filePath("settings.ini"), QSettings::IniFormat);
    {
      fathom::gui::ImportanceView view;
      view.setStore(session.get(), db);
      view.showRuns(session->store.list_runs(), {});
      QVERIFY(view.choose("g", "test_bleu", "norm=post"));
      view.saveSettings(settings);
    }
    fathom::gui::ImportanceView view;
    view.restoreSettings(settings);
    view.setStore(session.get(), db);
    view.showRuns(session->store.list_runs(), {});
    view.waitForResults();
    QVERIFY(view.shown().has_value());
    QCOMPARE(view.shown()->metric, std::string("test_bleu"));
    QCOMPARE(view.shown()->axes, std::vector<std::string>{"train.lr"});  // norm=post only
  }
};

FATHOM_GUI_TEST(ImportanceViewTest);

}  // namespace test_importance_view

#include "test_importance_view.moc"
