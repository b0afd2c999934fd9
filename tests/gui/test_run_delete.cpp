// Deleting runs from the runs view: after the confirmation dialog is accepted the run leaves
// the table, the store (every row about it) and the disk (its artifact directory); the other
// runs stay. Cancelling the dialog deletes nothing; a running run cannot be deleted.
#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QMessageBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "db/store.h"
#include "gui/run_actions.h"
#include "gui/runs_filter.h"
#include "gui/runs_model.h"
#include "gui/runs_view.h"
#include "gui/store_session.h"
#include "tests/gui/answer_message_box.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::NewRun;
using fathom::db::Store;
using namespace fathom::gui;

namespace test_run_delete {

void select_run(RunsView& view, int64_t id) {
  for (int row = 0; row < view.table()->model()->rowCount(); ++row)
    if (view.table()->model()->index(row, 0).data().toLongLong() == id)
      view.table()->selectRow(row);
}

bool has_run(const RunsView& view, int64_t id) {
  for (const auto& r : view.model()->runs())
    if (r.id == id) return true;
  return false;
}

class RunDeleteTest : public QObject {
  Q_OBJECT
 private slots:
  void deleteAfterConfirmationRemovesRowsAndFiles() {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    int64_t keep = 0, gone = 0;
    {
      auto store = Store::open(db.toStdString());
      NewRun r;
      r.name = "keep";
      keep = store.create_run(r);
      r.name = "gone";
      gone = store.create_run(r);
      for (int64_t id : {keep, gone}) {
        store.mark_running(id, "host", "cpu");
        store.write_metrics(id, {{10, "train_loss", 3.0, 0.0}});
        store.finish_run(id, "finished");
        QDir().mkpath(run_artifacts_dir(db, id));
        QFile f(run_artifacts_dir(db, id) + "/checkpoint_best.pt");
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("weights");
      }
    }
    QString error;
    auto session = StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    RunsView view;
    view.setSession(session.get(), db);
    QCOMPARE(view.model()->rowCount(), 2);

    // Cancel in the dialog: nothing happens.
    select_run(view, gone);
    QCOMPARE(view.selectedRuns().size(), size_t(1));
    bool seen = false;
    fathom::testing::answer_next_message_box(QMessageBox::Cancel, &seen);
    view.deleteSelected();
    QVERIFY(seen);
    QCOMPARE(view.model()->rowCount(), 2);
    QVERIFY(QDir(run_artifacts_dir(db, gone)).exists());

    // Yes: the run goes from the table, the store and the disk.
    select_run(view, gone);
    seen = false;
    fathom::testing::answer_next_message_box(QMessageBox::Yes, &seen);
    view.deleteSelected();
    QVERIFY(seen);
    QCOMPARE(view.model()->rowCount(), 1);
    QVERIFY(!has_run(view, gone));
    QVERIFY(has_run(view, keep));
    auto store = Store::open(db.toStdString(), fathom::db::OpenMode::ReadOnly);
    QVERIFY(!store.find_run(std::to_string(gone)));
    QVERIFY(store.metric_series(gone, "train_loss").empty());
    QCOMPARE(store.metric_series(keep, "train_loss").size(), size_t(1));
    QVERIFY(!QDir(run_artifacts_dir(db, gone)).exists());
    QVERIFY(QFile::exists(run_artifacts_dir(db, keep) + "/checkpoint_best.pt"));
  }

  void aRunningRunIsNotDeleted() {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    int64_t live = 0;
    {
      auto store = Store::open(db.toStdString());
      NewRun r;
      r.name = "live";
      live = store.create_run(r);
      store.mark_running(live, "host", "cpu");
    }
    QString error;
    auto session = StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    RunsView view;
    view.setSession(session.get(), db);
    select_run(view, live);
    QAction* del = nullptr;
    for (QAction* a : view.runActions())
      if (a->shortcut() == QKeySequence(QKeySequence::Delete)) del = a;
    QVERIFY(del);
    QVERIFY(!del->isEnabled());  // the Delete key does nothing on a running run

    QStringList errors;  // and the store refuses it even if asked
    QCOMPARE(delete_runs(db, view.selectedRuns(), &errors), 0);
    QCOMPARE(errors.size(), 1);
    QVERIFY2(errors[0].contains("running"), qPrintable(errors[0]));
    QCOMPARE(Store::open(db.toStdString()).list_runs().size(), size_t(1));
  }
};

FATHOM_GUI_TEST(RunDeleteTest);

}  // namespace test_run_delete

#include "test_run_delete.moc"
