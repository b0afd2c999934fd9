#include "gui/prune_dialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "base/util/strings.h"

namespace fathom::gui {

PruneDialog::PruneDialog(db::Store& store, db::StorePaths paths, std::vector<db::RunRecord> runs,
                         QWidget* parent)
    : QDialog(parent), store_(store), paths_(std::move(paths)), runs_(std::move(runs)) {
  setWindowTitle(QStringLiteral("Prune checkpoints"));
  auto* intro = new QLabel(QStringLiteral(
      "Remove the checkpoints kept along training (train.keep_checkpoint_every) beyond the newest "
      "of each selected run, to free disk. The best, last and averaged checkpoints, the test "
      "translations and every metric stay. Runs that may still train are left as they are."));
  intro->setWordWrap(true);
  keep_ = new QSpinBox;
  keep_->setRange(0, 100000);
  keep_->setValue(1);
  keep_->setSuffix(QStringLiteral(" per run"));
  keep_->setMaximumWidth(160);
  keep_->setToolTip(QStringLiteral("as `fathom prune --keep N`; 0 removes every kept checkpoint"));
  summary_ = new QLabel;
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
  prune_ = buttons->addButton(QStringLiteral("&Prune"), QDialogButtonBox::AcceptRole);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(keep_, &QSpinBox::valueChanged, this, &PruneDialog::replan);
  auto* form = new QFormLayout;
  form->addRow(QStringLiteral("Keep the newest"), keep_);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(intro);
  layout->addLayout(form);
  layout->addWidget(summary_);
  layout->addStretch(1);
  layout->addWidget(buttons);
  resize(520, 300);
  replan();
}

void PruneDialog::replan() {
  plans_.clear();
  size_t files = 0, pruned_runs = 0;
  std::uintmax_t bytes = 0;
  QStringList left;
  for (const auto& run : runs_) {
    plans_.push_back(experiments::plan_prune(store_, paths_, run, keep_->value()));
    const auto& p = plans_.back();
    const QString name = QStringLiteral("#%1 %2").arg(run.id).arg(QString::fromStdString(run.name));
    if (!p.skipped.empty()) {
      left << name + ": " + QString::fromStdString(p.skipped);
    } else if (!p.removed.empty()) {
      files += p.removed.size();
      bytes += p.bytes;
      ++pruned_runs;
    }
  }
  QString text = files == 0 ? QStringLiteral("Nothing to remove.")
                            : QStringLiteral("Removes %1 kept checkpoint(s) of %2 run(s): %3.")
                                  .arg(files)
                                  .arg(pruned_runs)
                                  .arg(QString::fromStdString(format_bytes(bytes)));
  if (!left.isEmpty()) {
    if (left.size() > 6) left = left.mid(0, 6) << QStringLiteral("...");
    text += QStringLiteral("\n\nLeft as they are:\n") + left.join('\n');
  }
  summary_->setText(text);
  prune_->setEnabled(files > 0);
}

QString PruneDialog::prune(QStringList* errors) {
  size_t files = 0;
  std::uintmax_t bytes = 0;
  for (const auto& p : plans_) {
    if (!p.skipped.empty() || p.removed.empty()) continue;
    try {
      const std::string failed = experiments::apply_prune(store_, p);
      if (!failed.empty()) errors->append(QString::fromStdString(failed));
      files += p.removed.size();
      bytes += p.bytes;
    } catch (const std::exception& e) {  // a run that started since: the store refused it
      errors->append(QStringLiteral("run %1: %2").arg(p.run.id).arg(QString::fromUtf8(e.what())));
    }
  }
  return QStringLiteral("freed %1: %2 kept checkpoint(s)")
      .arg(QString::fromStdString(format_bytes(bytes)))
      .arg(files);
}

void prune_with_dialog(QWidget* parent, const QString& db_location,
                       const std::vector<db::RunRecord>& runs, QString* done, QStringList* errors) {
  done->clear();
  try {
    auto store = db::Store::open(db_location.toStdString());
    PruneDialog dialog(store, db::store_paths(db_location.toStdString()), runs, parent);
    if (dialog.exec() == QDialog::Accepted) *done = dialog.prune(errors);
  } catch (const std::exception& e) {
    errors->append(QString::fromUtf8(e.what()));
  }
}

}  // namespace fathom::gui

#include "moc_prune_dialog.cpp"  // moc output for prune_dialog.h: compiled in this unit
