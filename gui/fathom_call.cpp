#include "gui/fathom_call.h"

#include <QEventLoop>
#include <QProcess>
#include <QProgressDialog>

#include "gui/fathom_binary.h"

namespace fathom::gui {

FathomCall call_fathom(QWidget* parent, const QString& db_location, const QStringList& args,
                       const QString& label) {
  FathomCall call;
  QProcess process;
  if (!set_up_fathom_process(process, args, db_location, &call.problem)) return call;
  QProgressDialog progress(label, QStringLiteral("Cancel"), 0, 0, parent);  // 0, 0: busy
  progress.setWindowModality(Qt::WindowModal);
  progress.setMinimumDuration(500);
  bool cancelled = false;
  QEventLoop loop;
  QObject::connect(&process, &QProcess::finished, &loop, &QEventLoop::quit);
  QObject::connect(&process, &QProcess::errorOccurred, &loop, [&loop](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart) loop.quit();
  });
  QObject::connect(&progress, &QProgressDialog::canceled, &loop, [&] {
    cancelled = true;
    process.kill();
  });
  process.start();
  if (process.state() != QProcess::NotRunning) loop.exec();
  progress.reset();
  call.out = QString::fromUtf8(process.readAllStandardOutput());
  call.err = QString::fromUtf8(process.readAllStandardError()).trimmed();
  if (process.error() == QProcess::FailedToStart)
    call.problem = QStringLiteral("could not start %1").arg(process.program());
  else if (cancelled)
    call.problem = QStringLiteral("cancelled: `fathom %1` was stopped").arg(args.join(' '));
  else if (process.exitStatus() == QProcess::CrashExit)
    call.problem = QStringLiteral("`fathom %1` crashed").arg(args.join(' '));
  else
    call.exit_code = process.exitCode();
  return call;
}

}  // namespace fathom::gui
