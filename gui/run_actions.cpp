#include "gui/run_actions.h"

#include <optional>

#include <QDir>
#include <QFileInfo>
#include <QProcess>

#include "base/util/error.h"
#include "db/run_paths.h"
#include "db/run_status.h"
#include "experiments/run_control.h"
#include "gui/fathom_binary.h"

namespace fathom::gui {
namespace {

// The store's file directories, or nullopt and *why (a server store with neither
// fathom-gui --artifacts nor $FATHOM_ARTIFACTS).
std::optional<db::StorePaths> store_paths_or(const QString& db_location, QString* why) {
  try {
    return db::store_paths(db_location.toStdString(), "");
  } catch (const InputError& e) {
    if (why)  // e.message() says what to pass (--artifacts DIR, which fathom-gui takes too)
      *why = QStringLiteral("no artifacts directory is configured for %1: %2")
                 .arg(QString::fromStdString(db::redact_url(db_location.toStdString())),
                      QString::fromStdString(e.message()));
    return std::nullopt;
  }
}

// `fathom ARGS` detached, working on the store at db_location (passed in its environment,
// never argv), output appended to `log` when given.
bool start_detached(const QStringList& args, const QString& db_location, const QString& log,
                    QString* message) {
  QProcess process;
  if (!set_up_fathom_process(process, args, db_location, message)) return false;
  if (!log.isEmpty()) {
    QDir().mkpath(QFileInfo(log).absolutePath());
    process.setStandardOutputFile(log, QIODevice::Append);
    process.setStandardErrorFile(log, QIODevice::Append);
  }
  qint64 pid = 0;
  if (!process.startDetached(&pid)) {
    *message = QStringLiteral("could not start %1").arg(process.program());
    return false;
  }
  *message = QStringLiteral("started `fathom %1` (pid %2)%3")
                 .arg(args.join(' '))
                 .arg(pid)
                 .arg(log.isEmpty() ? QString() : QStringLiteral(", log: ") + log);
  return true;
}

}  // namespace

QString run_artifacts_dir(const QString& db_location, int64_t run) {
  const auto paths = store_paths_or(db_location, nullptr);
  return paths ? QString::fromStdString(paths->run_dir(run)) : QString();
}

int cancel_runs(const QString& db_location, const std::vector<db::RunRecord>& runs,
                QStringList* problems) {
  auto store = db::Store::open(db_location.toStdString());
  // The one cancel of the CLI and the app: stops workers wherever their launcher runs them.
  const experiments::CancelReport report =
      experiments::cancel_runs(store, runs, "cancelled in fathom-gui");
  if (problems)
    for (const auto& p : report.problems) problems->append(QString::fromStdString(p));
  return report.cancelled;
}

bool remove_run_artifacts(const QString& db_location, int64_t run) {
  const QString path = run_artifacts_dir(db_location, run);
  if (path.isEmpty()) return false;  // no directory configured (never QDir(""): the cwd)
  QDir dir(path);
  return !dir.exists() || dir.removeRecursively();
}

int delete_runs(const QString& db_location, const std::vector<db::RunRecord>& runs,
                QStringList* errors) {
  auto store = db::Store::open(db_location.toStdString());
  QString no_paths;
  const auto paths = store_paths_or(db_location, &no_paths);
  int deleted = 0;
  for (const auto& run : runs) {
    try {
      store.delete_run(run.id);  // refuses a running run, reading its status under the lock
    } catch (const std::exception& e) {
      errors->append(QStringLiteral("run %1: %2").arg(run.id).arg(QString::fromUtf8(e.what())));
      continue;
    }
    ++deleted;
    if (!paths) continue;  // said once below
    // After the rows: a failure here leaves stray files, never a run without its checkpoints.
    const QString dir = QString::fromStdString(paths->run_dir(run.id));
    if (QDir d(dir); d.exists() && !d.removeRecursively())
      errors->append(
          QStringLiteral("run %1 deleted, but %2 could not be removed").arg(run.id).arg(dir));
  }
  if (!paths && deleted > 0)
    errors->append(QStringLiteral("%1 run(s) deleted from the store, but their files were left: %2")
                       .arg(deleted)
                       .arg(no_paths));
  return deleted;
}

bool cancel_sweep(const QString& db_location, const QString& sweep, QString* message) {
  return start_detached({QStringLiteral("sweep"), QStringLiteral("cancel"), sweep}, db_location, {},
                        message);
}

bool resume_run(const QString& db_location, int64_t run, QString* message) {
  // The worker keeps its checkpoints and log in the run's directory: without one it cannot run.
  const auto paths = store_paths_or(db_location, message);
  if (!paths) return false;
  return start_detached({QStringLiteral("train"), QStringLiteral("--resume"), QString::number(run),
                         QStringLiteral("--no-progress")},
                        db_location,
                        QString::fromStdString(paths->run_dir(run)) + QStringLiteral("/worker.log"),
                        message);
}

bool can_reproduce(const db::RunRecord& run) {
  return !db::status::is_active(run.status) && run.updates > 0;
}

bool reproduce_run(const QString& db_location, int64_t run, QString* message) {
  const auto paths = store_paths_or(db_location, message);
  if (!paths) return false;
  return start_detached(
      {QStringLiteral("train"), QStringLiteral("--reproduce"), QString::number(run),
       QStringLiteral("--no-progress")},
      db_location,
      QString::fromStdString(paths->run_dir(run)) + QStringLiteral("/reproductions.log"), message);
}

}  // namespace fathom::gui
