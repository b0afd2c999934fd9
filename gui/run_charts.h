#pragma once
// The run page's first tab (issue 58 item 2): the curves one run recorded, a chart each, drawn
// with the dashboard's chart (gui/curve_plot.h) and read again from the store while the run
// trains. The charts lead with what tells whether training goes well -- loss (train and valid
// together), perplexity, learning rate, gradient norm -- then the run's other curves in the
// order of db/metric_presentation.h (BLEU, bits per byte, throughput, the loss scale), then
// curves that table does not know (system metrics such as a GPU's memory, whatever their
// names), then the training probes' scalars and the per-layer gradient norms in one chart.
// A fork's charts draw its parent's curves beside its own ("valid_loss (parent #3)"), the
// diamond where they part: past it the parent is what the fork is judged against.
#include <map>
#include <string>
#include <vector>

#include <QScrollArea>
#include <QString>

#include "db/store.h"

class QGridLayout;
class QLabel;

namespace fathom::gui {

class CurvePlot;

struct RunChartSpec {
  QString title;
  std::vector<std::string> metrics;  // drawn together, each in its own colour
  bool log_y = false;
  bool smoothed = true;  // a noisy per-update series (db::metric::MetricPresentation::smoothed)
  bool whole_y = false;  // counts only (MetricPresentation::whole_numbers): ticks at whole numbers
  QString y_label;       // "": a lone metric's name, several metrics' names joined
};

// The charts of a run that recorded these curves, in the order above; none for a name it lacks
// (target_tokens, the x axis of token plots, is no chart of its own).
std::vector<RunChartSpec> run_chart_specs(const std::vector<std::string>& metric_names);

class RunCharts : public QScrollArea {
  Q_OBJECT
 public:
  explicit RunCharts(QWidget* parent = nullptr);
  // Reads the run's curves again and redraws what grew (a chart keeps the user's zoom); its
  // tags and artifact rows, which the page has read, place the milestone marks (run_marks.h).
  void refresh(const db::Store& store, const db::RunRecord& run,
               const std::map<std::string, std::string>& tags,
               const std::vector<db::Artifact>& artifacts);
  QStringList titles() const;
  CurvePlot* chart(const QString& title) const;  // nullptr if none has that title

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void layOut();  // the charts in as many columns as the width allows

  QWidget* grid_widget_;
  QGridLayout* grid_;
  QLabel* empty_;
  std::vector<RunChartSpec> specs_;
  std::vector<CurvePlot*> plots_;  // one per spec
  int columns_ = 0;
};

}  // namespace fathom::gui
