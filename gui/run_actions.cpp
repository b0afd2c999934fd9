#include "gui/run_actions.h"

#include <csignal>
#include <unistd.h>

#include <QDir>
#include <QFileInfo>
#include <QProcess>

#include "db/run_paths.h"
#include "gui/fathom_binary.h"

namespace fathom::gui {
namespace {

bool start_detached(const QStringList& args, const QString& log, QString* message) {
  const QString binary = find_fathom_binary();
  if (binary.isEmpty()) {
    *message = QStringLiteral("the fathom command line was not found beside fathom-gui or in PATH "
                              "(set $FATHOM_BIN)");
    return false;
  }
  QProcess process;
  process.setProgram(binary);
  process.setArguments(args);
  if (!log.isEmpty()) {
    QDir().mkpath(QFileInfo(log).absolutePath());
    process.setStandardOutputFile(log, QIODevice::Append);
    process.setStandardErrorFile(log, QIODevice::Append);
  }
  qint64 pid = 0;
  if (!process.startDetached(&pid)) {
    *message = QStringLiteral("could not start %1").arg(binary);
    return false;
  }
  *message = QStringLiteral("started `fathom %1` (pid %2)%3")
                 .arg(args.join(' '))
                 .arg(pid)
                 .arg(log.isEmpty() ? QString() : QStringLiteral(", log: ") + log);
  return true;
}

}  // namespace

QString run_artifacts_dir(const QString& db_path, int64_t run) {
  return QString::fromStdString(db::artifacts_dir(db_path.toStdString(), run));
}

int cancel_runs(const QString& db_path, const std::vector<db::RunRecord>& runs) {
  auto store = db::Store::open(db_path.toStdString());
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  int cancelled = 0;
  for (const auto& run : runs) {
    if (run.status != "queued" && run.status != "running") continue;
    store.finish_run(run.id, "cancelled", "cancelled in fathom-gui");
    ++cancelled;
    const auto tags = store.tags(run.id);
    auto pid = tags.find("worker.pid");
    if (run.status == "running" && pid != tags.end() && run.host == host)
      kill(static_cast<pid_t>(std::stoll(pid->second)), SIGTERM);
  }
  return cancelled;
}

bool remove_run_artifacts(const QString& db_path, int64_t run) {
  QDir dir(run_artifacts_dir(db_path, run));
  return !dir.exists() || dir.removeRecursively();
}

int delete_runs(const QString& db_path, const std::vector<db::RunRecord>& runs, QStringList* errors) {
  auto store = db::Store::open(db_path.toStdString());
  int deleted = 0;
  for (const auto& run : runs) {
    try {
      store.delete_run(run.id);  // refuses a running run, reading its status under the lock
    } catch (const std::exception& e) {
      errors->append(QStringLiteral("run %1: %2").arg(run.id).arg(QString::fromUtf8(e.what())));
      continue;
    }
    ++deleted;
    // After the rows: a failure here leaves stray files, never a run without its checkpoints.
    if (!remove_run_artifacts(db_path, run.id))
      errors->append(QStringLiteral("run %1 deleted, but %2 could not be removed")
                         .arg(run.id)
                         .arg(run_artifacts_dir(db_path, run.id)));
  }
  return deleted;
}

bool cancel_sweep(const QString& db_path, const QString& sweep, QString* message) {
  return start_detached({QStringLiteral("sweep"), QStringLiteral("cancel"), sweep,
                         QStringLiteral("--db"), db_path},
                        {}, message);
}

bool resume_run(const QString& db_path, int64_t run, QString* message) {
  return start_detached({QStringLiteral("train"), QStringLiteral("--resume"), QString::number(run),
                         QStringLiteral("--db"), db_path, QStringLiteral("--no-progress")},
                        run_artifacts_dir(db_path, run) + QStringLiteral("/worker.log"), message);
}

}  // namespace fathom::gui
