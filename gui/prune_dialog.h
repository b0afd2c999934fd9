#pragma once
// "Prune checkpoints..." of the runs view: how many kept checkpoints to leave per run, whether
// those that stay lose their optimizer state and finished runs their fallback resume point, what
// that frees (and which runs are left as they are) shown as the choice changes, then the same
// pruning as `fathom prune --yes` (experiments/checkpoint_prune.h): done here when it only
// removes, by `fathom prune` itself (gui/fathom_call.h) when it must read checkpoints.
#include <cstdint>
#include <vector>

#include <QDialog>
#include <QString>
#include <QStringList>

#include "db/run_paths.h"
#include "db/store.h"
#include "experiments/checkpoint_prune.h"

class QCheckBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace fathom::gui {

class PruneDialog : public QDialog {
  Q_OBJECT
 public:
  // `store` (opened from db_location) stays open for the dialog's life. Throws InputError when
  // the store has no folder for its runs' files here.
  PruneDialog(db::Store& store, const QString& db_location, std::vector<db::RunRecord> runs,
              QWidget* parent = nullptr);

  QSpinBox* keepBox() const { return keep_; }
  QCheckBox* modelOnlyBox() const { return model_only_; }
  QCheckBox* previousBox() const { return previous_; }
  QLabel* summary() const { return summary_; }
  QPushButton* pruneButton() const { return prune_; }
  // The plans for the number in the box, as last shown.
  const std::vector<experiments::PrunePlan>& plans() const { return plans_; }

  // The `fathom` arguments of the pruning chosen: prune IDS --keep N [--model-only]
  // [--previous] --yes --json.
  QStringList commandArguments() const;

  // After the dialog was accepted: prunes, and returns what happened in a sentence ("freed
  // 3.4 GiB: 12 kept checkpoint(s)"); problems are added to *errors.
  QString prune(QStringList* errors);

 private:
  void replan();
  QString pruneByCommandLine(QStringList* errors);

  db::Store& store_;
  QString db_location_;
  db::StorePaths paths_;
  std::vector<db::RunRecord> runs_;
  std::vector<experiments::PrunePlan> plans_;
  QSpinBox* keep_;
  QCheckBox* model_only_;
  QCheckBox* previous_;
  QLabel* summary_;
  QPushButton* prune_;
};

// Opens the dialog for `runs` of the store at `db_location` and, when accepted, prunes: what
// happened goes to *done ("" when cancelled), problems to *errors (a store that cannot be
// opened, or a server store with no artifacts directory, among them).
void prune_with_dialog(QWidget* parent, const QString& db_location,
                       const std::vector<db::RunRecord>& runs, QString* done, QStringList* errors);

}  // namespace fathom::gui
