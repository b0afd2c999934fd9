#include "gui/fathom_call.h"

#include <QEventLoop>
#include <QProcess>
#include <QProgressDialog>

#include "gui/fathom_binary.h"

namespace fathom::gui {

FathomCall call_fathom(QWidget* parent, const QString& db_location, const QStringList& args,
                       const QString& label) {
  FathomCall call;
  const QString binary = find_fathom_binary();
  if (binary.isEmpty()) {
    call.problem = QStringLiteral(
        "the fathom command line was not found beside fathom-gui or in PATH (set $FATHOM_BIN)");
    return call;
  }
  QProcess process;
  process.setProgram(binary);
  process.setArguments(args);
  process.setProcessEnvironment(fathom_environment(db_location));
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
    call.problem = QStringLiteral("could not start %1").arg(binary);
  else if (cancelled)
    call.problem = QStringLiteral("cancelled: `fathom %1` was stopped").arg(args.join(' '));
  else if (process.exitStatus() == QProcess::CrashExit)
    call.problem = QStringLiteral("`fathom %1` crashed").arg(args.join(' '));
  else
    call.exit_code = process.exitCode();
  return call;
}

}  // namespace fathom::gui
