#pragma once
// Runs `fathom analyze KIND ...` as a child process (never inside the GUI: an analysis loads
// LibTorch and may take minutes) on the store named by $FATHOM_DB in its environment (never
// `--db` in argv, which `ps` shows: a store URL may hold a password), follows its progress
// from what it prints on stderr, and can kill it. The result lands in the store's `analyses`
// table; `finished` says which id (the CLI's "analysis N (KIND) recorded" line).
#include <QElapsedTimer>
#include <QObject>
#include <QStringList>

class QProcess;

namespace fathom::gui {

class AnalysisRunner : public QObject {
  Q_OBJECT
 public:
  explicit AnalysisRunner(QObject* parent = nullptr);
  ~AnalysisRunner() override;  // kills a running analysis

  // `fathom analyze <args>` with FATHOM_DB=db_location; false and *error when `fathom` is not
  // found or an analysis is already running.
  bool start(const QString& db_location, const QStringList& args, QString* error);
  void cancel();  // kills the process; finished(false, "cancelled", -1) follows
  bool running() const;
  qint64 elapsedMs() const { return running() ? clock_.elapsed() : 0; }
  QStringList command() const { return command_; }

 signals:
  // percent: 0..100 from the CLI's progress lines, -1 while unknown; line: its latest line.
  void progress(int percent, const QString& line);
  // ok: exit status 0 and a recorded id; message: the CLI's last words (its error on failure).
  void finished(bool ok, const QString& message, qint64 analysis_id);

 private:
  void readOutput();
  void ended(int exit_code);

  QProcess* process_ = nullptr;
  QElapsedTimer clock_;
  QStringList command_, lines_;
  QString partial_;
  qint64 recorded_id_ = -1;
  bool cancelled_ = false;
};

// Parses one stderr line of `fathom analyze`: the percent of a progress line ("... 3/10
// (30%) ..."), else -1.
int progress_percent(const QString& line);
// The id in "analysis 12 (beta) recorded in ...", else -1.
qint64 recorded_analysis_id(const QString& line);

}  // namespace fathom::gui
