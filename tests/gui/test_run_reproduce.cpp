// Run > Reproduce in the runs view: `fathom train --reproduce ID`, detached, trains the run's
// stored config again as a new run whose tag `reproduction` says whether its curves equal the
// original's -- identical on one machine. Enabled only for runs that trained and no longer do
// (skipped when fathom is not built).
#include <QAction>
#include <QFile>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "base/config/config_io.h"
#include "db/store.h"
#include "gui/fathom_binary.h"
#include "gui/run_actions.h"
#include "gui/runs_view.h"
#include "gui/store_session.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::NewRun;
using fathom::db::Store;
using fathom::gui::RunsView;
using fathom::gui::StoreSession;

namespace test_run_reproduce {

const char* kTiny =
    "name: tiny\nmodel: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1, decoder_layers: 1}\n"
    "data:\n  task: synthetic\n  synthetic: {vocab: 8, train_size: 64, valid_size: 8, test_size: "
    "8}\ntrain: {max_updates: 4, warmup: 0, valid_every: 2, log_every: 1, threads: 1}\neval: "
    "{beam: 1}\n";

QAction* reproduce_action(const RunsView& view) {
  for (QAction* a : view.runActions())
    if (a->text() == QStringLiteral("Re&produce")) return a;
  return nullptr;
}

void select_run(RunsView& view, int64_t id) {
  view.table()->clearSelection();
  for (int row = 0; row < view.table()->model()->rowCount(); ++row)
    if (view.table()->model()->index(row, 0).data().toLongLong() == id)
      view.table()->selectRow(row);
}

class RunReproduceTest : public QObject {
  Q_OBJECT
 private slots:
  void reproduceTrainsTheRunAgainAndRecordsItsVerdict() {
    if (fathom::gui::find_fathom_binary().isEmpty()) QSKIP("fathom binary not built");
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    const auto config = fathom::load_config_string(kTiny, "tiny", dir.path().toStdString());
    int64_t trained = 0, queued = 0;
    {
      auto store = Store::open(db.toStdString());
      NewRun r;
      r.name = "tiny";
      r.config_yaml = fathom::config_to_yaml(config);
      r.config_json = fathom::config_to_json(config).dump();
      trained = store.create_run(r);
      store.finish_run(trained, "cancelled", "test");  // trained below by a resume
      queued = store.create_run(r);
    }
    QString message;
    QVERIFY2(fathom::gui::resume_run(db, trained, &message), qPrintable(message));
    const auto run_of = [&](int64_t id) {
      return Store::open(db.toStdString(), fathom::db::OpenMode::ReadOnly)
          .find_run(std::to_string(id));
    };
    QTRY_COMPARE_WITH_TIMEOUT(run_of(trained)->status, std::string("finished"), 60000);

    QString error;
    auto session = StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    RunsView view;
    view.setSession(session.get(), db);
    QAction* reproduce = reproduce_action(view);
    QVERIFY(reproduce);
    select_run(view, queued);  // never trained: nothing to reproduce
    QVERIFY(!reproduce->isEnabled());
    select_run(view, trained);
    QVERIFY(reproduce->isEnabled());
    QString said;
    connect(&view, &RunsView::message, this, [&](const QString& text) { said = text; });
    reproduce->trigger();
    QVERIFY2(said.contains("train --reproduce " + QString::number(trained)), qPrintable(said));

    // The new run (after the queued one) ends with its verdict; on one machine, identical.
    const int64_t again = queued + 1;
    const auto verdict = [&] {
      const auto store = Store::open(db.toStdString(), fathom::db::OpenMode::ReadOnly);
      if (!store.find_run(std::to_string(again))) return std::string();
      const auto tags = store.tags(again);
      return tags.count("reproduction") ? tags.at("reproduction") : std::string();
    };
    QTRY_VERIFY_WITH_TIMEOUT(!verdict().empty(), 60000);
    QVERIFY2(verdict().rfind("agrees: identical", 0) == 0, verdict().c_str());
    QCOMPARE(run_of(again)->name, std::string("tiny (reproduces #1)"));
    QVERIFY(QFile::exists(fathom::gui::run_artifacts_dir(db, trained) + "/reproductions.log"));
  }
};

FATHOM_GUI_TEST(RunReproduceTest);

}  // namespace test_run_reproduce

#include "test_run_reproduce.moc"
