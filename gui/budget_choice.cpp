#include "gui/budget_choice.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <cmath>

#include "experiments/value_at_budget.h"

namespace fathom::gui {
namespace {

// The axes as `--at` names them, with what the number is on each.
struct AxisItem {
  const char* label;
  const char* axis;
  const char* example;
};
constexpr AxisItem kAxes[] = {{"the end", "", ""},
                              {"update", "update", "e.g. 4000, or least"},
                              {"tokens", "tokens", "target tokens, e.g. 5e7, or least"},
                              {"compute", "compute", "training FLOPs, e.g. 2e15, or least"}};

bool same(const std::optional<experiments::Budget>& a,
          const std::optional<experiments::Budget>& b) {
  if (!a || !b) return !a && !b;
  return a->axis == b->axis && a->x == b->x && a->least == b->least;
}

}  // namespace

BudgetChoice::BudgetChoice(QWidget* parent) : QWidget(parent) {
  axis_ = new QComboBox;
  for (const AxisItem& a : kAxes)
    axis_->addItem(QString::fromUtf8(a.label), QString::fromUtf8(a.axis));
  axis_->setToolTip(
      QStringLiteral("where each run's value is read: at its end, or at an equal budget -- its "
                     "last point at or before so many updates, target tokens or training FLOPs "
                     "(models of unequal cost compared at equal compute); runs short of it are "
                     "left out and named. 'least': the least any finished run reached, the "
                     "cheapest run's whole training"));
  number_ = new QLineEdit;
  number_->setMaximumWidth(110);
  number_->setEnabled(false);
  auto* label = new QLabel(QStringLiteral("&At"));
  label->setBuddy(axis_);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  // Never wider than its parts: a wide window's spare room went to the label, leaving "At" an
  // inch from its box.
  setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Fixed);
  layout->addWidget(label);
  layout->addWidget(axis_);
  layout->addWidget(number_);
  connect(axis_, &QComboBox::currentIndexChanged, this, &BudgetChoice::axisChanged);
  connect(number_, &QLineEdit::editingFinished, this, &BudgetChoice::numberEdited);
}

std::optional<experiments::Budget> BudgetChoice::budget() const {
  const QString axis = axis_->currentData().toString();
  if (axis.isEmpty()) return std::nullopt;
  // "least": the least any finished run reached (resolved by whoever reads the runs).
  if (number_->text().trimmed() == QStringLiteral("least"))
    return experiments::parse_budget(axis.toStdString() + "=least", "the At choice");
  bool ok = false;
  const double x = number_->text().trimmed().toDouble(&ok);
  if (!ok || !std::isfinite(x) || x <= 0) return std::nullopt;
  return experiments::Budget{axis.toStdString(), x};
}

QString BudgetChoice::problem() const {
  if (axis_->currentData().toString().isEmpty() || budget()) return {};
  if (number_->text().trimmed().isEmpty())
    return QStringLiteral("At %1: type the budget (%2)")
        .arg(axis_->currentText(), number_->placeholderText());
  return QStringLiteral("At %1: '%2' is not a number > 0 (or least)")
      .arg(axis_->currentText(), number_->text());
}

experiments::RunReading BudgetChoice::reading(experiments::RunValue at_end) const {
  experiments::RunReading r(at_end);
  r.at = budget();
  return r;
}

void BudgetChoice::choose(const QString& axis, double x) {
  const int i = axis_->findData(axis);
  number_->setText(x > 0 ? QString::number(x, 'g', 12) : QString());
  axis_->setCurrentIndex(std::max(0, i));
  numberEdited();
}

void BudgetChoice::save(QSettings& settings, const QString& key) const {
  settings.setValue(key + QStringLiteral("/axis"), axis_->currentData().toString());
  settings.setValue(key + QStringLiteral("/number"), number_->text());
}

void BudgetChoice::restore(const QSettings& settings, const QString& key) {
  const QSignalBlocker block_axis(axis_), block_number(number_);
  number_->setText(settings.value(key + QStringLiteral("/number")).toString());
  axis_->setCurrentIndex(
      std::max(0, axis_->findData(settings.value(key + QStringLiteral("/axis")).toString())));
  showAxis();
  shown_ = budget();
  shown_problem_ = problem();
}

void BudgetChoice::showAxis() {
  const int i = std::max(0, axis_->currentIndex());
  number_->setEnabled(i > 0);
  number_->setPlaceholderText(QString::fromUtf8(kAxes[i].example));
}

void BudgetChoice::axisChanged() {
  showAxis();
  if (axis_->currentIndex() > 0 && !budget()) number_->setFocus();
  numberEdited();
}

void BudgetChoice::numberEdited() {
  // Announce what changes the reading, or what is wrong with it (so the view can say so, and
  // redraw once it is put right).
  const auto now = budget();
  const QString wrong = problem();
  if (same(now, shown_) && wrong == shown_problem_) return;
  shown_ = now;
  shown_problem_ = wrong;
  emit changed();
}

}  // namespace fathom::gui

#include "moc_budget_choice.cpp"  // moc output for budget_choice.h: compiled in this unit
