#pragma once
// One stored analysis result drawn as its kind (plot/analysis_kinds.h) says: the figures
// `fathom export plot analysis` writes, on embedded plots, the kind's tables under them and
// its words in the caption. Plots and tables export from
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
  QTableWidget* table() const { return table_; }  // the first table; nullptr when none
  QString caption() const;                        // what the result says in words

 private:
  void addTable(const QStringList& header, const QList<QStringList>& rows);

  QLabel* caption_;
  QGridLayout* grid_;
  QList<QCustomPlot*> plots_;
  QList<QTableWidget*> tables_;  // from the analysis kind's tables(), in order
  QTableWidget* table_ = nullptr;
};

}  // namespace fathom::gui
