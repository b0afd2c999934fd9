#pragma once
// The sweep editor: the form and the YAML side by side, kept in sync both ways; the sweep is
// checked as you type (errors marked at the field and the YAML line) and its expanded run
// count shown. Dry run and Start go through the `fathom sweep` command line, so the sweep runs
// in the same scheduler and worker processes as from a terminal, and outlives the window.
#include <memory>

#include <QString>
#include <QWidget>

#include "gui/sweep_check.h"
#include "gui/workbench_view.h"

class QLabel;
class QPlainTextEdit;
class QProcess;
class QSpinBox;
class QTemporaryFile;
class QTimer;

namespace fathom::gui {

class SweepFormWidget;

class SweepEditor : public QWidget, public WorkbenchView {
  Q_OBJECT
 public:
  explicit SweepEditor(QWidget* parent = nullptr);
  ~SweepEditor() override;

  // WorkbenchView: started sweeps go to the window's store.
  void setStore(StoreSession*, const QString& location) override { setDatabasePath(location); }

  // The store sweeps start into: a file path or URL (it may hold a password; the `fathom`
  // child gets it as $FATHOM_DB and messages show it redacted).
  void setDatabasePath(const QString& location) { db_location_ = location; }
  // Loads a sweep file; false (and a message box unless quiet) if it cannot be read.
  bool openFile(const QString& path, bool quiet = false);
  bool saveFile(const QString& path);
  const QString& filePath() const { return file_; }

  QString yaml() const;
  void setYaml(const QString& text);  // as if typed into the YAML pane
  // Runs the check now instead of after the typing pause.
  void checkNow();
  const SweepCheck& lastCheck() const { return check_; }
  // Before the edits would be lost (File > Open of another sweep, closing the window): with
  // unsaved edits, asks whether to save them (Save, Discard, Cancel); true when nothing is
  // lost or the user chose so, false on Cancel or a save that did not happen.
  bool keepOrDiscardEdits();
  bool hasUnsavedEdits() const { return dirty_; }
  // Start without the confirmation question; false when it did not start. A sweep whose name
  // has runs in the store already is resumed (`--resume`: ended runs kept, queued and
  // interrupted ones continued, the file's runs not yet stored added -- a second grid of the
  // same sweep, `fathom sweep extend`'s file), which the question says first.
  bool startSweep();

  SweepFormWidget* form() const { return form_; }
  QPlainTextEdit* yamlEdit() const { return yaml_; }
  QLabel* statusLabel() const { return status_; }
  QPlainTextEdit* outputView() const { return output_; }
  // Whether the sweep was edited after the dry run whose output is shown (the output is then
  // greyed and the note above it says so); false when no dry run was made.
  bool dryRunOutOfDate() const;
  QLabel* outputNote() const { return output_note_; }
  // Whether a dry run is in flight.
  bool dryRunning() const { return dry_run_ != nullptr; }

 public slots:
  void open();
  void save();
  void saveAs();
  // `fathom sweep FILE --dry-run` on the sweep as it stands: the file when it is saved and
  // unedited, else a temporary copy beside it (relative paths resolve the same): a dry run
  // never writes the user's file and needs no save.
  void dryRun();
  // Asks first (a sweep can occupy the machine for days); a sweep never saved is explained
  // and saved first (its workers read the file), and unsaved edits are saved only after the
  // question said so.
  void start();

 signals:
  void sweepStarted(const QString& name);

 private:
  void formEdited();
  void yamlEdited();
  void showCheck();
  // Marks the error's value (or key) in YAML line `line` (1-based); 0 clears the mark.
  void highlightYamlLine(int line);
  void showOutputState();
  // Where the dry run reads the sweep: the saved file, or a temporary copy; "" with the
  // reason in the output when no copy could be written.
  QString dryRunSource();
  QString origin() const;   // the name errors use for the sweep
  QString baseDir() const;  // where relative paths in it are resolved
  // Saves unsaved edits (asking for a path when there is none); false if the user declined.
  bool ensureSaved();
  QString fathomOrComplain();
  // The runs the store holds of sweep `name` (0 when it cannot be read: the start then says why).
  size_t storedRuns(const std::string& name) const;

  SweepFormWidget* form_;
  QPlainTextEdit* yaml_;
  QPlainTextEdit* output_;
  QLabel* status_;
  QLabel* output_note_;  // "out of date" over an old dry run's output
  QSpinBox* jobs_;
  QTimer* check_timer_;
  QProcess* dry_run_ = nullptr;
  std::unique_ptr<QTemporaryFile> dry_copy_;  // the unsaved text a dry run reads
  QString dry_run_text_;                      // the YAML the shown dry run checked
  bool dry_run_made_ = false;
  QString file_, db_location_;
  SweepCheck check_;
  bool syncing_ = false;
  bool dirty_ = false;
};

}  // namespace fathom::gui
