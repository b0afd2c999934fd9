#pragma once
// One stored analysis result drawn: the figures of plot/analysis_figures.h (the ones
// `fathom export plot analysis` writes) on embedded plots, and, for results that are tables
// (linearize, ln-scale), the numbers as a table beside them. Plots and tables export from
// their right-click menu and File > Export....
#include <QWidget>

#include "db/store.h"

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
  void clear();

  const QList<QCustomPlot*>& plots() const { return plots_; }
  QTableWidget* table() const { return table_; }  // nullptr when the result has no table
  QString caption() const;                         // what the result says in words

 private:
  void addTable(const QStringList& header, const QList<QStringList>& rows);

  QLabel* caption_;
  QGridLayout* grid_;
  QList<QCustomPlot*> plots_;
  QTableWidget* table_ = nullptr;
};

}  // namespace fathom::gui
