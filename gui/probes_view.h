#pragma once
// The Probes tab (issue 38; docs/probes.md): the training probes of the runs selected in the
// runs table -- per probe a depth x update heatmap per run, side by side (four to a row, then
// the next row) on one colour range, log where the values span two decades
// (plot/probe_figures.h), or one line per sub-layer over training; per-head probes with their
// heads reduced by max or mean, or every head a row. The hover read-out names the run, stack,
// layer, sub-layer, head, update and value (probe_hover.h). Points are read in a worker thread
// (probe_reader.h), a live run's new points only, each poll.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <QWidget>

#include "gui/probe_reader.h"
#include "gui/workbench_view.h"
#include "plot/figure.h"
#include "plot/probe_figures.h"

class QComboBox;
class QCustomPlot;
class QGridLayout;
class QLabel;
class QRadioButton;

namespace fathom::gui {

class ProbesView : public QWidget, public WorkbenchView {
  Q_OBJECT
 public:
  explicit ProbesView(QWidget* parent = nullptr);

  void setStore(StoreSession* session, const QString& location) override;
  void showRuns(const std::vector<db::RunRecord>& all,
                const std::vector<db::RunRecord>& selected) override;
  void poll() override;
  void reload() override;  // forgets every point read and reads them again
  bool reading() const override;
  void saveSettings(QSettings& settings) const override;
  void restoreSettings(const QSettings& settings) override;
  void extraScreenshots(const std::function<void(const QString& file)>& shoot) override;

  // Chooses what is drawn (tests, screenshots); false when no selected run has `probe`.
  bool choose(const QString& probe, plot::HeadReduction heads, bool lines);
  QStringList probeChoices() const;  // the union of the selected runs' probes
  // What is drawn: one figure per run that has the probe, in the runs table's order.
  const std::vector<plot::Heatmap>& heatmaps() const { return heatmaps_; }
  const std::vector<plot::LineFigure>& lineFigures() const { return lines_; }
  const std::vector<QCustomPlot*>& plots() const { return plots_; }
  // What File > Export... writes: each plot's figure as drawn, suffixed "run<ID>".
  std::vector<std::pair<std::string, plot::Figure>> figuresShown() const;
  // The read-out of plot `index` at (row, column) of its heatmap, or in lines mode of line
  // `row` at point `column`; "" outside.
  QString cellText(size_t index, size_t row, size_t column) const;
  QString hoverText() const;
  QString noteText() const;

 signals:
  void error(const QString& message);

 private:
  using SeriesKey = std::pair<int64_t, std::string>;  // run, probe

  ProbeQuery nextQuery();
  void apply(const ProbeAnswer& answer);
  void forget();  // every cached point; reads under way become stale
  void updateProbeChoices();
  void redraw();
  void drawHeatmaps(const std::vector<std::pair<std::string, db::ProbeSeries>>& runs);
  void drawLines(const std::vector<std::pair<std::string, db::ProbeSeries>>& runs);
  void keepPlots(size_t count);
  // Puts the plots in the grid, as many to a row as the width holds well (at most four).
  void placePlots();
  int plotsPerRow() const;
  void resizeEvent(QResizeEvent* event) override;
  void fitColumnLabels(size_t index);
  // Elides plot `index`'s title at the right to its width (the hover names the run in full).
  void fitTitle(size_t index);
  void hover(size_t index, const QPoint& pixel);
  QString hintWithoutSelection() const;
  std::string currentProbe() const;
  plot::HeadReduction currentHeads() const;
  bool linesMode() const;
  bool eventFilter(QObject* watched, QEvent* event) override;

  StoreSession* session_ = nullptr;
  ProbeReader* reader_;
  // Every run's id and status (a whole record holds its config: 72 MB a poll of 16,000 runs
  // copied), and the selected runs.
  std::vector<std::pair<int64_t, std::string>> all_;
  std::vector<db::RunRecord> selected_;
  std::string runs_signature_;  // ids and statuses of every run: names of all runs re-read
  bool names_of_all_wanted_ = false;
  std::map<int64_t, std::vector<std::string>> names_;  // per run whose probes were read
  std::map<int64_t, int64_t> leases_;  // per run, the claim its cached points came from
  std::map<SeriesKey, db::ProbeSeries> cache_;
  uint64_t generation_ = 1;

  QComboBox* probe_;
  QString wanted_probe_;  // the probe last chosen, kept while another run set lacks it
  QComboBox* heads_;
  QRadioButton* heatmap_mode_;
  QRadioButton* line_mode_;
  QLabel* note_;
  QGridLayout* grid_;
  int columns_ = 0;  // plots to a row as placed
  QLabel* hover_;
  std::vector<QCustomPlot*> plots_;
  std::vector<int64_t> plot_runs_;  // the run of each plot
  std::vector<plot::Heatmap> heatmaps_;
  std::vector<plot::LineFigure> lines_;
};

}  // namespace fathom::gui
