#pragma once
// "At: the end | update | tokens | compute [number]": where a view reads each run's value of a
// metric -- at its end, or at an equal budget (`--at`, experiments/value_at_budget.h), so that
// models of unequal cost are compared at equal compute. Emits changed() when the choice or a
// finished edit of the number changes what budget() says.
#include <QString>
#include <QWidget>
#include <optional>

#include "experiments/comparison_table.h"

class QComboBox;
class QLineEdit;
class QSettings;

namespace fathom::gui {

class BudgetChoice : public QWidget {
  Q_OBJECT

 public:
  explicit BudgetChoice(QWidget* parent = nullptr);

  // nullopt at "the end", and while the number is not one > 0 (problem() says so).
  std::optional<experiments::Budget> budget() const;
  // "" when budget() is what the user asked for; otherwise why the number is not taken.
  QString problem() const;
  // How a view reads each run's value: `at_end` where no budget is chosen, else at budget().
  experiments::RunReading reading(experiments::RunValue at_end) const;
  // Sets axis ("update", "tokens", "compute"; "" for the end) and number, as a user would.
  void choose(const QString& axis, double x);
  // Kept across sessions under `key` ("compare/at"): the axis and the number as typed ("least"
  // too). Restoring announces nothing: the view reads it when it next draws.
  void save(QSettings& settings, const QString& key) const;
  void restore(const QSettings& settings, const QString& key);

  QComboBox* axis() const { return axis_; }
  QLineEdit* number() const { return number_; }

 signals:
  void changed();

 private:
  void axisChanged();
  void showAxis();  // the number enabled, and its example, for the axis chosen
  void numberEdited();

  QComboBox* axis_ = nullptr;
  QLineEdit* number_ = nullptr;
  // What the last changed() announced.
  std::optional<experiments::Budget> shown_;
  QString shown_problem_;
};

}  // namespace fathom::gui
