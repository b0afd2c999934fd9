#include "gui/fathom_call.h"

#include <QEventLoop>
#include <QProcess>
#include <QProgressDialog>
#include <QRegularExpression>

#include "gui/fathom_binary.h"

namespace fathom::gui {

std::optional<ProgressLine> progress_of(const QString& line) {
  static const QRegularExpression bar(QStringLiteral(R"(^\S+ (\d+)/(\d+) \(\d+%\))"));
  static const QRegularExpression count(QStringLiteral(R"(^\[(\d+)/(\d+)\] )"));
  QRegularExpressionMatch m = bar.match(line);
  if (!m.hasMatch()) m = count.match(line);
  if (!m.hasMatch()) return std::nullopt;
  const ProgressLine p{m.captured(1).toLongLong(), m.captured(2).toLongLong()};
  if (p.total <= 0 || p.done > p.total) return std::nullopt;
  return p;
}

namespace {

// Reads the child's standard error as it comes: progress lines move the dialog, the others
// are kept for FathomCall::err.
class ErrorReader {
 public:
  ErrorReader(QProcess& process, QProgressDialog& dialog) : process_(process), dialog_(dialog) {}

  void read() {
    pending_ += process_.readAllStandardError();
    // A modal dialog's setValue() runs the event loop, which may call read() again: that call
    // only gathers, and this one goes on with what it brought.
    if (reading_) return;
    reading_ = true;
    for (qsizetype end; (end = pending_.indexOf('\n')) >= 0;) {
      const QString line = QString::fromUtf8(pending_.left(end));
      pending_.remove(0, end + 1);
      take(line);
    }
    reading_ = false;
  }
  QString rest() {
    read();
    if (!pending_.isEmpty()) take(QString::fromUtf8(pending_));
    pending_.clear();
    return kept_.trimmed();
  }

 private:
  void take(const QString& line) {
    if (const auto p = progress_of(line)) {
      dialog_.setMaximum(static_cast<int>(p->total));
      dialog_.setValue(static_cast<int>(p->done));
      return;
    }
    kept_ += line + "\n";
  }

  QProcess& process_;
  QProgressDialog& dialog_;
  QByteArray pending_;
  QString kept_;
  bool reading_ = false;
};

}  // namespace

FathomCall call_fathom(QWidget* parent, const QString& db_location, const QStringList& args,
                       const QString& label, const QByteArray& input) {
  FathomCall call;
  QProcess process;
  if (!set_up_fathom_process(process, args, db_location, &call.problem)) return call;
  QProcessEnvironment env = process.processEnvironment();
  env.insert(QStringLiteral("FATHOM_PROGRESS_INTERVAL_S"), QStringLiteral("0.2"));
  process.setProcessEnvironment(env);
  QProgressDialog progress(label, QStringLiteral("Cancel"), 0, 0, parent);  // 0, 0: busy
  progress.setWindowModality(Qt::WindowModal);
  progress.setMinimumDuration(500);
  progress.setAutoReset(false);  // the last count stays until the command has ended
  ErrorReader errors(process, progress);
  bool cancelled = false;
  QEventLoop loop;
  QObject::connect(&process, &QProcess::finished, &loop, &QEventLoop::quit);
  QObject::connect(&process, &QProcess::errorOccurred, &loop, [&loop](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart) loop.quit();
  });
  QObject::connect(&process, &QProcess::readyReadStandardError, &loop, [&] { errors.read(); });
  QObject::connect(&progress, &QProgressDialog::canceled, &loop, [&] {
    cancelled = true;
    process.kill();
  });
  process.start();
  if (process.state() != QProcess::NotRunning) {
    process.write(input);  // buffered by Qt, written as the child reads
    process.closeWriteChannel();
    loop.exec();
  }
  progress.reset();
  call.out = QString::fromUtf8(process.readAllStandardOutput());
  call.err = errors.rest();
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
