#include "gui/prune_dialog.h"

#include <algorithm>

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>

#include "base/util/strings.h"
#include "gui/fathom_call.h"

namespace fathom::gui {
namespace {

QString bytes_text(std::uintmax_t bytes) { return QString::fromStdString(format_bytes(bytes)); }

// What the pruning chosen frees, added up over the plans.
struct Totals {
  size_t removed = 0, pruned_runs = 0, previous = 0, to_slim = 0;
  std::uintmax_t removed_bytes = 0, previous_bytes = 0, to_slim_bytes = 0;
  QStringList left;
};

Totals add_up(const std::vector<experiments::PrunePlan>& plans) {
  Totals t;
  for (const auto& p : plans) {
    if (!p.skipped.empty()) {
      t.left << QStringLiteral("#%1 %2: %3")
                    .arg(p.run.id)
                    .arg(QString::fromStdString(p.run.name), QString::fromStdString(p.skipped));
      continue;
    }
    t.removed += p.removed.size();
    t.removed_bytes += p.bytes;
    if (!p.removed.empty()) ++t.pruned_runs;
    if (p.removes_previous()) ++t.previous;
    t.previous_bytes += p.previous_bytes;
    t.to_slim += p.to_slim.size();
    t.to_slim_bytes += p.to_slim_bytes;
  }
  return t;
}

}  // namespace

PruneDialog::PruneDialog(db::Store& store, const QString& db_location,
                         std::vector<db::RunRecord> runs, QWidget* parent)
    : QDialog(parent),
      store_(store),
      db_location_(db_location),
      paths_(db::store_paths(db_location.toStdString())),
      runs_(std::move(runs)) {
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
  model_only_ =
      new QCheckBox(QStringLiteral("Rewrite those that stay without the optimizer state"));
  model_only_->setToolTip(QStringLiteral(
      "as `fathom prune --model-only`: a third of the bytes under Adam; analyses, averaging and "
      "translation need no more, but no fork can start from them"));
  previous_ = new QCheckBox(QStringLiteral("Remove finished runs' fallback resume point"));
  previous_->setToolTip(QStringLiteral(
      "as `fathom prune --previous`: checkpoint_previous, kept in case checkpoint_last turns out "
      "unreadable; removed only after checkpoint_last is seen to load"));
  summary_ = new QLabel;
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
  prune_ = buttons->addButton(QStringLiteral("&Prune"), QDialogButtonBox::AcceptRole);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(keep_, &QSpinBox::valueChanged, this, &PruneDialog::replan);
  connect(model_only_, &QCheckBox::toggled, this, &PruneDialog::replan);
  connect(previous_, &QCheckBox::toggled, this, &PruneDialog::replan);
  auto* form = new QFormLayout;
  form->addRow(QStringLiteral("Keep the newest"), keep_);
  form->addRow(QString(), model_only_);
  form->addRow(QString(), previous_);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(intro);
  layout->addLayout(form);
  layout->addWidget(summary_);
  layout->addStretch(1);
  layout->addWidget(buttons);
  resize(560, 360);
  replan();
}

void PruneDialog::replan() {
  plans_.clear();
  const experiments::PruneChoice choice{keep_->value(), model_only_->isChecked(),
                                        previous_->isChecked()};
  for (const auto& run : runs_)
    plans_.push_back(experiments::plan_prune(store_, paths_, run, choice));
  Totals t = add_up(plans_);
  QStringList said;
  if (t.removed > 0)
    said << QStringLiteral("Removes %1 kept checkpoint(s) of %2 run(s): %3.")
                .arg(t.removed)
                .arg(t.pruned_runs)
                .arg(bytes_text(t.removed_bytes));
  if (t.previous > 0)
    said << QStringLiteral("Removes the fallback resume point of %1 run(s): %2.")
                .arg(t.previous)
                .arg(bytes_text(t.previous_bytes));
  if (t.to_slim > 0)
    said << QStringLiteral(
                "Rewrites %1 kept checkpoint(s) without the optimizer state: about two thirds of "
                "%2 freed.")
                .arg(t.to_slim)
                .arg(bytes_text(t.to_slim_bytes));
  QString text = said.isEmpty() ? QStringLiteral("Nothing to remove.") : said.join(' ');
  if (!t.left.isEmpty()) {
    if (t.left.size() > 6) t.left = t.left.mid(0, 6) << QStringLiteral("...");
    text += QStringLiteral("\n\nLeft as they are:\n") + t.left.join('\n');
  }
  summary_->setText(text);
  prune_->setEnabled(!said.isEmpty());
}

QStringList PruneDialog::commandArguments() const {
  QStringList args{QStringLiteral("prune")};
  for (const auto& run : runs_) args << QString::number(run.id);
  args << QStringLiteral("--keep") << QString::number(keep_->value());
  if (model_only_->isChecked()) args << QStringLiteral("--model-only");
  if (previous_->isChecked()) args << QStringLiteral("--previous");
  return args << QStringLiteral("--yes") << QStringLiteral("--json");
}

QString PruneDialog::prune(QStringList* errors) {
  if (model_only_->isChecked() || previous_->isChecked()) return pruneByCommandLine(errors);
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
  return QStringLiteral("freed %1: %2 kept checkpoint(s)").arg(bytes_text(bytes)).arg(files);
}

// Reading checkpoints needs LibTorch: `fathom prune ... --json` does it all, and its report is
// read back. Each run's problems (a checkpoint_last that does not load, a file that could not be
// removed) go to *errors.
QString PruneDialog::pruneByCommandLine(QStringList* errors) {
  const FathomCall call = call_fathom(parentWidget(), db_location_, commandArguments(),
                                      QStringLiteral("Pruning checkpoints..."));
  if (!call.problem.isEmpty() || call.exit_code != 0) {
    errors->append(call.problem.isEmpty() ? call.err : call.problem);
    return {};
  }
  const auto report = nlohmann::json::parse(call.out.toStdString(), nullptr, false);
  if (report.is_discarded() || !report.contains("runs")) {
    errors->append(QStringLiteral("unexpected report from `fathom prune`: ") + call.out.left(200));
    return {};
  }
  std::uintmax_t freed = report.value("bytes", std::uintmax_t{0});
  size_t removed = 0, previous = 0, slimmed = 0;
  for (const auto& run : report.at("runs")) {
    const QString head = QStringLiteral("run %1: ").arg(run.value("id", 0));
    removed += run.value("removed", nlohmann::json::array()).size();
    if (run.contains("previous")) ++previous;
    for (const char* key : {"warning", "previous_kept"})
      if (run.contains(key)) errors->append(head + QString::fromStdString(run.at(key)));
    if (!run.contains("model_only")) continue;
    const auto& slim = run.at("model_only");
    slimmed += slim.value("files", size_t{0});
    freed += slim.value("bytes_before", std::uintmax_t{0}) -
             std::min(slim.value("bytes_before", std::uintmax_t{0}),
                      slim.value("bytes_after", std::uintmax_t{0}));
    if (slim.contains("warning")) errors->append(head + QString::fromStdString(slim.at("warning")));
  }
  return QStringLiteral(
             "freed %1: %2 kept checkpoint(s) removed, %3 rewritten without the optimizer state, "
             "%4 fallback resume point(s) removed")
      .arg(bytes_text(freed))
      .arg(removed)
      .arg(slimmed)
      .arg(previous);
}

void prune_with_dialog(QWidget* parent, const QString& db_location,
                       const std::vector<db::RunRecord>& runs, QString* done, QStringList* errors) {
  done->clear();
  try {
    auto store = db::Store::open(db_location.toStdString());
    PruneDialog dialog(store, db_location, runs, parent);
    if (dialog.exec() == QDialog::Accepted) *done = dialog.prune(errors);
  } catch (const std::exception& e) {
    errors->append(QString::fromUtf8(e.what()));
  }
}

}  // namespace fathom::gui

#include "moc_prune_dialog.cpp"  // moc output for prune_dialog.h: compiled in this unit
