// "Prune checkpoints..." of the runs view (gui/prune_dialog.h): the dialog says what the number
// removes -- the kept checkpoints beyond the newest N, their size from the files -- and which
// runs it leaves (a running one), as the number changes; Prune removes those rows and files
// and nothing else; the action reaches the dialog from the runs view's selection.
#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "db/store.h"
#include "gui/prune_dialog.h"
#include "gui/run_actions.h"
#include "gui/runs_model.h"
#include "gui/runs_view.h"
#include "gui/store_session.h"
#include "tests/gui/gui_test_registry.h"

using fathom::db::NewRun;
using fathom::db::Store;
using namespace fathom::gui;

namespace test_run_prune {

// A run with kept checkpoints at updates 10..40 of 1,000 bytes each and a best checkpoint.
int64_t add_run(Store& store, const QString& db, const std::string& name, bool finished) {
  NewRun r;
  r.name = name;
  const int64_t id = store.create_run(r);
  QDir().mkpath(run_artifacts_dir(db, id));
  for (const char* kind :
       {"checkpoint_10", "checkpoint_20", "checkpoint_30", "checkpoint_40", "checkpoint_best"}) {
    const QString path = run_artifacts_dir(db, id) + "/" + kind + ".g1.pt";
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return -1;
    f.write(QByteArray(1000, 'x'));
    store.add_artifact(id, kind, path.toStdString(), 0);
  }
  store.mark_running(id, "host", "cpu");
  if (finished) store.finish_run(id, "finished");
  return id;
}

std::vector<std::string> kinds(const QString& db, int64_t run) {
  std::vector<std::string> out;
  for (const auto& a : Store::open(db.toStdString()).artifacts(run)) out.push_back(a.kind);
  return out;
}

class RunPruneTest : public QObject {
  Q_OBJECT
 private slots:
  void theDialogSaysWhatGoesAndPrunesOnlyThat() {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    auto store = Store::open(db.toStdString());
    const int64_t done = add_run(store, db, "done", true);
    const int64_t live = add_run(store, db, "live", false);
    QVERIFY(done > 0 && live > 0);
    PruneDialog dialog(
        store, fathom::db::store_paths(db.toStdString()),
        {*store.find_run(std::to_string(done)), *store.find_run(std::to_string(live))});
    dialog.keepBox()->setValue(1);
    const QString text = dialog.summary()->text();
    QVERIFY2(text.contains("Removes 3 kept checkpoint(s) of 1 run(s): 2.9 KiB"), qPrintable(text));
    QVERIFY2(text.contains("#2 live: it is running"), qPrintable(text));
    QVERIFY(dialog.pruneButton()->isEnabled());
    dialog.keepBox()->setValue(4);
    QVERIFY2(dialog.summary()->text().startsWith("Nothing to remove."),
             qPrintable(dialog.summary()->text()));
    QVERIFY(!dialog.pruneButton()->isEnabled());

    dialog.keepBox()->setValue(2);
    QStringList errors;
    const QString said = dialog.prune(&errors);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
    QCOMPARE(said, QStringLiteral("freed 2.0 KiB: 2 kept checkpoint(s)"));  // 2,000 bytes
    QCOMPARE(kinds(db, done),
             (std::vector<std::string>{"checkpoint_30", "checkpoint_40", "checkpoint_best"}));
    QVERIFY(!QFile::exists(run_artifacts_dir(db, done) + "/checkpoint_10.g1.pt"));
    QVERIFY(QFile::exists(run_artifacts_dir(db, done) + "/checkpoint_30.g1.pt"));
    QVERIFY(QFile::exists(run_artifacts_dir(db, done) + "/checkpoint_best.g1.pt"));
    QCOMPARE(kinds(db, live).size(), size_t(5));  // the running run is untouched
  }

  void theRunsViewOpensItForTheSelection() {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    int64_t done = 0;
    {
      auto store = Store::open(db.toStdString());
      done = add_run(store, db, "done", true);
    }
    QString error;
    auto session = StoreSession::open(db, &error);
    QVERIFY2(session, qPrintable(error));
    RunsView view;
    view.setSession(session.get(), db);
    QAction* prune = nullptr;
    for (QAction* a : view.runActions())
      if (a->text().contains("Prune")) prune = a;
    QVERIFY(prune);
    QVERIFY(!prune->isEnabled());  // nothing selected
    view.table()->selectRow(0);
    QVERIFY(prune->isEnabled());
    bool seen = false;
    QTimer::singleShot(0, [&seen] {  // Prune with the default: the newest one stays
      auto* d = qobject_cast<PruneDialog*>(QApplication::activeModalWidget());
      if (!d) return;
      seen = true;
      d->pruneButton()->click();
    });
    prune->trigger();
    QVERIFY(seen);
    QCOMPARE(kinds(db, done), (std::vector<std::string>{"checkpoint_40", "checkpoint_best"}));
  }
};

FATHOM_GUI_TEST(RunPruneTest);

}  // namespace test_run_prune

#include "test_run_prune.moc"
