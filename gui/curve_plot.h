#pragma once
// One live, interactive chart of the dashboard: plot/'s curve renderer (decimated, debiased
// EMA smoothing, colour-blind-safe styles) on an embedded QCustomPlot, plus what a screen
// needs and a printed figure does not: zoom (wheel), pan (drag), a zoom that survives the
// next data update, double-click to fit, and a read-out of the point under the mouse.
#include <QWidget>

#include "plot/figure.h"

class QCustomPlot;
class QLabel;
class QMouseEvent;

namespace fathom::gui {

class CurvePlot : public QWidget {
  Q_OBJECT
 public:
  explicit CurvePlot(QWidget* parent = nullptr);

  // Redraws with new data; keeps the user's zoom when they have zoomed or panned. The figure
  // is kept for export (the zoomed range, if any, becomes its axis range).
  void setFigure(plot::CurveFigure figure);
  void resetZoom();
  // Legends of many runs cover the curves; the hover read-out names them too.
  void setLegendVisible(bool visible);
  QCustomPlot* plot() const { return plot_; }
  int graphCount() const;
  QString readoutText() const;  // what the hover read-out shows now

 private:
  void showReadout(QMouseEvent* event);

  QCustomPlot* plot_;
  QLabel* readout_;
  plot::CurveFigure figure_;
  bool user_zoomed_ = false;
  bool legend_ = true;
};

}  // namespace fathom::gui
