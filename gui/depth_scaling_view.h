#pragma once
// The Scaling tab: which depth is best at equal compute, and how that grows with compute --
// `fathom export plot budgets --scaling-out`'s two figures side by side. Pick a sweep, its
// numeric axis (a depth), the axis whose values are the lines (a method) and the budgets; left,
// the metric against depth at each budget with each line's best depth (the vertex of the
// parabola in ln depth, dashed); right, the best depths against the budget on log-log axes with
// each line's fitted power law; under them what each optimum and exponent says. With no budgets
// named it reads the sweep at a quarter, a half and the whole of its cheapest finished run's
// compute (compute=least), which a sweep trained at equal compute reaches in every run.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <QWidget>

#include "db/store.h"
#include "gui/store_worker.h"
#include "gui/workbench_view.h"
#include "plot/budgets_figure.h"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QPushButton;

namespace fathom::gui {

class DrawWhenShown;

class DepthScalingView : public QWidget, public WorkbenchView {
  Q_OBJECT
 public:
  explicit DepthScalingView(QWidget* parent = nullptr);

  void setStore(StoreSession* session, const QString& location) override;
  void showRuns(const std::vector<db::RunRecord>& all, const std::vector<db::RunRecord>&) override;
  void reload() override { redraw(); }
  // Read in a worker thread (gui/store_worker.h): a sweep of thousands of runs at three budgets
  // takes about a second.
  bool reading() const override;
  // Its choices, kept across sessions ("scaling/..."): a sweep, axis or lines' axis the next
  // store lacks is left to the first it has.
  void saveSettings(QSettings& settings) const override;
  void restoreSettings(const QSettings& settings) override;

  // Chooses the sweep, x axis, lines' axis ("" for one line), metric and budgets ("compute=1e15,
  // compute=2e15"; "" for the default) by name, and waits for the figures (screenshots, tests);
  // false when one is absent or nothing is drawn.
  bool choose(const QString& sweep, const QString& x, const QString& rows, const QString& metric,
              const QString& budgets = {});
  // Returns once what was last asked for is drawn (or why not is said).
  void waitForResults() const;
  // What was drawn: the budgets figure with its optima and exponents; none where nothing was.
  const std::optional<plot::BudgetsFigure>& shown() const { return shown_; }
  QCustomPlot* budgetsPlot() const { return budgets_plot_; }
  QCustomPlot* scalingPlot() const { return scaling_plot_; }
  QCheckBox* bestVariant() const { return best_variant_; }
  // The axis the lines run along: by default a depth (a key ending in "layers") before any other
  // numeric axis, then the sweep file's order.
  QString depthAxis() const;
  // "Where": part of the sweep (the exports' --where), e.g. model.norm=post.
  QLineEdit* where() const { return where_; }
  // The optima, exponents and notes under the plots, or why there is nothing to show.
  QString noteText() const;
  // "Extend depths...": enabled while a line's best depth is at an end of its grid at the
  // largest budget shown, where the extension is read.
  QPushButton* extendButton() const { return extend_; }
  // The button's work once the sweep file is chosen: `fathom sweep extend FILE --axis X` at the
  // largest budget shown, the lines and best variant as chosen (experiments/axis_extension.h),
  // written beside the file when the user says so; its path, or "".
  QString extendDepthsFrom(const QString& sweep_file);

 signals:
  void error(const QString& message);

 private:
  void buildChoices();
  void extendDepths();  // asks for the sweep file, then extendDepthsFrom
  void sweepChanged();  // refills the x and rows choices from the sweep's axes
  // Reads these runs' axes in the worker, then sweepChanged() again.
  void readRunAxes(std::vector<int64_t> runs);
  void redraw();
  void drawFigures();  // the shown figures, laid out for the plots' sizes
  // The best depths against the budget; none without a bracketed one.
  std::optional<plot::LineFigure> scalingFigure() const;
  void showText(const plot::BudgetsFigure& made);
  // What a read in the worker thread found: the figures, or the note that says why there are
  // none (a store error also emits error()).
  struct Drawn {
    std::optional<plot::BudgetsFigure> made;
    std::vector<experiments::Budget> budgets;  // as read (a least one found)
    QString note;
    bool store_error = false;
  };
  void showDrawn(const Drawn& drawn);

 public:
  // One run's axes (axis.* tags, the seed left out) and its sweep file's layout.
  struct RunAxes {
    std::map<std::string, std::string> axes;
    std::vector<std::string> layout;
  };

 private:
  StoreSession* session_ = nullptr;
  StoreWorker* worker_;
  DrawWhenShown* when_shown_;  // showRuns' work, while the tab is out of sight
  uint64_t asked_ = 0;         // the choices' generation: a read of older ones is not drawn
  std::map<int64_t, RunAxes> run_axes_;  // read once per run of the store
  bool axes_pending_ = false;            // the chosen sweep's runs' axes are being read
  uint64_t axes_asked_ = 0;              // their reads' generation: an older one is not taken
  // Restored choices, taken when a store offers them.
  QString wanted_sweep_, wanted_x_, wanted_rows_;
  std::vector<db::RunRecord> runs_;
  std::string signature_;  // of the runs last drawn: ids, statuses, updates
  QComboBox *sweep_, *x_, *rows_, *metric_;
  QLineEdit* budgets_;
  QLineEdit* where_;  // a runs filter (experiments/sweep_runs.h), e.g. one method
  QCheckBox* best_variant_;
  QPushButton* extend_;
  std::vector<experiments::Budget> shown_budgets_;  // the budgets of shown_
  QCustomPlot *budgets_plot_, *scaling_plot_;
  QLabel* note_;
  // The chosen sweep's depth keys with fewer than three values (a best depth needs three): said
  // first while the axis shown names no depth, lest a rate axis pass for one.
  QString few_depths_;
  QString withDepthNote(const QString& note) const;
  std::optional<plot::BudgetsFigure> shown_;
};

}  // namespace fathom::gui
