#pragma once
// "Open run": the run page (issue 36). Tabs:
//  - Overview: status and error, progress and ETA of a live run, times, final metrics, tags,
//    artifacts with their sizes (or "missing"), the full config;
//  - Notes: the user's notes on the run, stored with it (tag "note");
//  - Log: the end of the worker's log (run-<id>/worker.log under the artifacts root);
//  - Samples: the first test translations of the run's hypotheses file;
//  - Config diff: the config keys in which another run (its sweep's first) differs.
#include <map>
#include <string>
#include <vector>

#include <QDialog>

#include "db/store.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;

namespace fathom::gui {

class RunDetailsDialog : public QDialog {
  Q_OBJECT
 public:
  // `others`: runs to diff the config against; `run_dir`: the run's artifact directory
  // (db::StorePaths::run_dir), "" where unknown.
  RunDetailsDialog(db::Store& store, const db::RunRecord& run,
                   const std::vector<db::RunRecord>& others = {}, const std::string& run_dir = "",
                   QWidget* parent = nullptr);

  // Stores the notes tab's text as the run's "note" tag (the Save button).
  bool saveNotes();

 private:
  // The constructor's tabs that hold widgets of the dialog's own.
  QWidget* buildNotesPage(const std::map<std::string, std::string>& tags);
  QWidget* buildDiffPage(const std::vector<db::RunRecord>& others);
  void showDiff();

  db::Store& store_;
  db::RunRecord run_;
  std::vector<db::RunRecord> others_;
  QPlainTextEdit* notes_;
  QLabel* note_status_;
  QPlainTextEdit* diff_;
  QComboBox* diff_with_;
};

// "key: mine -> theirs" for every config key whose value differs, in key order (a key one
// side lacks shows "(none)"); "" when the configs agree. Both are config JSON texts.
std::string config_diff(const std::string& mine, const std::string& theirs);

}  // namespace fathom::gui
