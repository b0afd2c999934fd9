#pragma once
// One stored analysis result drawn as its kind (plot/analysis_kinds.h) says: the figures
// `fathom export plot analysis` writes, on embedded plots, the kind's tables under them and
// its words in the caption. Plots and tables export from
// their right-click menu and File > Export.... The figures take the panel's size: side by
// side while each gets a readable width, else one under the other; a heatmap's cell names
// its row, column and value under the mouse (a tooltip).
#include <vector>

#include <QWidget>

#include "db/store.h"
#include "plot/figure.h"

class QCustomPlot;
class QGridLayout;
class QLabel;
class QTableWidget;

namespace fathom::gui {

class AnalysisPanel : public QWidget {
  Q_OBJECT
 public:
  explicit AnalysisPanel(QWidget* parent = nullptr);

  void showRecord(const db::AnalysisRecord& record);
  // No result drawn; `why` says what to do instead (select a run, tick All runs, Compute).
  void clear(const QString& why = {});

  const QList<QCustomPlot*>& plots() const { return plots_; }
  QTableWidget* table() const { return table_; }  // the first table; nullptr when none
  QString caption() const;                        // what the result says in words
  // Figures to a row at the panel's width now.
  int columns() const { return columns_; }
  // What the mouse at `pixel` over plot `index` reads: a heatmap cell's row, column and
  // value; "" elsewhere (a masked cell, outside the cells, another kind of figure).
  QString hoverText(int index, const QPoint& pixel) const;
  const QString& lastHover() const { return last_hover_; }

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void addTable(const QStringList& header, const QList<QStringList>& rows);
  void placePlots();
  void hover(int index, const QPoint& pixel);

  QLabel* caption_;
  QGridLayout* grid_;
  QList<QCustomPlot*> plots_;
  std::vector<plot::Figure> figures_;  // what plots_[i] draws
  int columns_ = 0;
  QString last_hover_;
  QList<QTableWidget*> tables_;  // from the analysis kind's tables(), in order
  QTableWidget* table_ = nullptr;
};

}  // namespace fathom::gui
