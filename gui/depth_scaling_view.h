#pragma once
// The Scaling tab: which depth is best at equal compute, and how that grows with compute --
// `fathom export plot budgets --scaling-out`'s two figures side by side. Pick a sweep, its
// numeric axis (a depth), the axis whose values are the lines (a method) and the budgets; left,
// the metric against depth at each budget with each line's best depth (the vertex of the
// parabola in ln depth, dashed); right, the best depths against the budget on log-log axes with
// each line's fitted power law; under them what each optimum and exponent says. With no budgets
// named it reads the sweep at a quarter, a half and the whole of its cheapest finished run's
// compute (compute=least), which a sweep trained at equal compute reaches in every run.
#include <optional>
#include <string>
#include <vector>

#include <QWidget>

#include "db/store.h"
#include "gui/workbench_view.h"
#include "plot/budgets_figure.h"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;

namespace fathom::gui {

class DepthScalingView : public QWidget, public WorkbenchView {
  Q_OBJECT
 public:
  explicit DepthScalingView(QWidget* parent = nullptr);

  void setStore(StoreSession* session, const QString&) override;
  void showRuns(const std::vector<db::RunRecord>& all, const std::vector<db::RunRecord>&) override;
  void reload() override { redraw(); }

  // Chooses the sweep, x axis, lines' axis ("" for one line), metric and budgets ("compute=1e15,
  // compute=2e15"; "" for the default) by name (screenshots, tests); false when one is absent.
  bool choose(const QString& sweep, const QString& x, const QString& rows, const QString& metric,
              const QString& budgets = {});
  // What was drawn: the budgets figure with its optima and exponents; none where nothing was.
  const std::optional<plot::BudgetsFigure>& shown() const { return shown_; }
  QCustomPlot* budgetsPlot() const { return budgets_plot_; }
  QCustomPlot* scalingPlot() const { return scaling_plot_; }
  QCheckBox* bestVariant() const { return best_variant_; }
  // "Where": part of the sweep (the exports' --where), e.g. model.norm=post.
  QLineEdit* where() const { return where_; }
  // The optima, exponents and notes under the plots, or why there is nothing to show.
  QString noteText() const;

 signals:
  void error(const QString& message);

 private:
  void buildChoices();
  void sweepChanged();  // refills the x and rows choices from the sweep's axes
  void redraw();
  // The budgets asked for, or the default ones over the sweep's finished runs; InputError
  // (--at) for a bad one.
  std::vector<experiments::Budget> budgets() const;
  void drawFigures();  // the shown figures, laid out for the plots' sizes
  // The best depths against the budget; none without a bracketed one.
  std::optional<plot::LineFigure> scalingFigure() const;
  void showText(const plot::BudgetsFigure& made);

  StoreSession* session_ = nullptr;
  std::vector<db::RunRecord> runs_;
  std::string signature_;  // of the runs last drawn: ids, statuses, updates
  QComboBox *sweep_, *x_, *rows_, *metric_;
  QLineEdit* budgets_;
  QLineEdit* where_;  // a runs filter (experiments/sweep_runs.h), e.g. one method
  QCheckBox* best_variant_;
  QCustomPlot *budgets_plot_, *scaling_plot_;
  QLabel* note_;
  std::optional<plot::BudgetsFigure> shown_;
};

}  // namespace fathom::gui
