#include "gui/analysis_runner.h"

#include <QProcess>
#include <QRegularExpression>

#include "gui/fathom_binary.h"

namespace fathom::gui {

int progress_percent(const QString& line) {
  // base/util/progress.cpp without a terminal: "label done/total (pct%) status timing".
  static const QRegularExpression re(QStringLiteral("\\b\\d+/\\d+ \\((\\d+)%\\)"));
  const auto m = re.match(line);
  return m.hasMatch() ? m.captured(1).toInt() : -1;
}

qint64 recorded_analysis_id(const QString& line) {
  static const QRegularExpression re(QStringLiteral("^analysis (\\d+) \\([^)]*\\) recorded"));
  const auto m = re.match(line);
  return m.hasMatch() ? m.captured(1).toLongLong() : -1;
}

AnalysisRunner::AnalysisRunner(QObject* parent) : QObject(parent) {}

AnalysisRunner::~AnalysisRunner() {
  if (running()) {
    process_->disconnect(this);
    process_->kill();
    process_->waitForFinished(2000);
  }
}

bool AnalysisRunner::running() const {
  return process_ && process_->state() != QProcess::NotRunning;
}

bool AnalysisRunner::start(const QString& db_location, const QStringList& args, QString* error) {
  if (running()) {
    *error = QStringLiteral("an analysis is already running");
    return false;
  }
  const QString binary = find_fathom_binary();
  if (binary.isEmpty()) {
    *error = QStringLiteral(
        "the fathom command line was not found beside fathom-gui or in PATH (set $FATHOM_BIN)");
    return false;
  }
  if (process_) process_->deleteLater();
  process_ = new QProcess(this);
  command_ = QStringList{QStringLiteral("analyze")} + args;
  lines_.clear();
  partial_.clear();
  recorded_id_ = -1;
  cancelled_ = false;
  connect(process_, &QProcess::readyReadStandardError, this, &AnalysisRunner::readOutput);
  connect(process_, &QProcess::finished, this, [this](int code) { ended(code); });
  connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart) ended(-1);
  });
  process_->setProgram(binary);
  process_->setArguments(command_);
  process_->setProcessEnvironment(fathom_environment(db_location));  // the store: not in argv
  process_->setStandardOutputFile(
      QProcess::nullDevice());  // the printed table; the store has the result
  clock_.start();
  process_->start();
  emit progress(-1, QStringLiteral("fathom %1").arg(command_.join(' ')));
  return true;
}

void AnalysisRunner::cancel() {
  if (!running()) return;
  cancelled_ = true;
  process_->kill();  // the CLI writes the store once, at the end: nothing half-written stays
}

void AnalysisRunner::readOutput() {
  partial_ += QString::fromUtf8(process_->readAllStandardError());
  partial_.replace('\r', '\n');  // a terminal-style bar redraws with \r
  const qsizetype end = partial_.lastIndexOf('\n');
  if (end < 0) return;
  const QStringList fresh = partial_.left(end).split('\n', Qt::SkipEmptyParts);
  partial_ = partial_.mid(end + 1);
  for (const QString& raw : fresh) {
    const QString line = raw.trimmed();
    if (line.isEmpty()) continue;
    lines_ << line;
    if (lines_.size() > 50) lines_.removeFirst();
    if (const qint64 id = recorded_analysis_id(line); id >= 0) recorded_id_ = id;
    emit progress(progress_percent(line), line);
  }
}

void AnalysisRunner::ended(int exit_code) {
  readOutput();
  if (!partial_.trimmed().isEmpty()) lines_ << partial_.trimmed();
  const double seconds = clock_.elapsed() / 1000.0;
  if (cancelled_) {
    emit finished(false, QStringLiteral("cancelled after %1 s").arg(seconds, 0, 'f', 1), -1);
  } else if (exit_code == 0 && recorded_id_ >= 0) {
    emit finished(
        true, QStringLiteral("analysis %1 done in %2 s").arg(recorded_id_).arg(seconds, 0, 'f', 1),
        recorded_id_);
  } else {
    const QString last = lines_.isEmpty()
                             ? QStringLiteral("(no output)")
                             : lines_.mid(std::max<qsizetype>(0, lines_.size() - 3)).join('\n');
    emit finished(false,
                  exit_code < 0 ? QStringLiteral("could not start fathom")
                                : QStringLiteral("fathom analyze failed (exit status %1):\n%2")
                                      .arg(exit_code)
                                      .arg(last),
                  -1);
  }
}

}  // namespace fathom::gui

#include "moc_analysis_runner.cpp"  // moc output for analysis_runner.h: compiled in this unit
