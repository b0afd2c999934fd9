#pragma once
// "Prune checkpoints..." of the runs view: how many kept checkpoints to leave per run, what
// that removes (and which runs are left as they are) shown as the number changes, then the
// same pruning as `fathom prune --yes` (experiments/checkpoint_prune.h).
#include <cstdint>
#include <vector>

#include <QDialog>
#include <QString>
#include <QStringList>

#include "db/run_paths.h"
#include "db/store.h"
#include "experiments/checkpoint_prune.h"

class QLabel;
class QPushButton;
class QSpinBox;

namespace fathom::gui {

class PruneDialog : public QDialog {
  Q_OBJECT
 public:
  // `store` stays open for the dialog's life; `paths` where its runs' files are.
  PruneDialog(db::Store& store, db::StorePaths paths, std::vector<db::RunRecord> runs,
              QWidget* parent = nullptr);

  QSpinBox* keepBox() const { return keep_; }
  QLabel* summary() const { return summary_; }
  QPushButton* pruneButton() const { return prune_; }
  // The plans for the number in the box, as last shown.
  const std::vector<experiments::PrunePlan>& plans() const { return plans_; }

  // After the dialog was accepted: prunes, and returns what happened in a sentence ("freed
  // 3.4 GiB: 12 kept checkpoints of 3 runs"); problems are added to *errors.
  QString prune(QStringList* errors);

 private:
  void replan();

  db::Store& store_;
  db::StorePaths paths_;
  std::vector<db::RunRecord> runs_;
  std::vector<experiments::PrunePlan> plans_;
  QSpinBox* keep_;
  QLabel* summary_;
  QPushButton* prune_;
};

// Opens the dialog for `runs` of the store at `db_location` and, when accepted, prunes: what
// happened goes to *done ("" when cancelled), problems to *errors (a store that cannot be
// opened, or a server store with no artifacts directory, among them).
void prune_with_dialog(QWidget* parent, const QString& db_location,
                       const std::vector<db::RunRecord>& runs, QString* done, QStringList* errors);

}  // namespace fathom::gui
