#pragma once
// One live, interactive chart of the dashboard: plot/'s curve renderer (decimated, debiased
// EMA smoothing, colour-blind-safe styles) on an embedded QCustomPlot, plus what a screen
// needs and a printed figure does not: zoom (wheel), pan (drag), a zoom that survives the
// next data update, double-click to fit, and a hover read-out: a crosshair at the step under
// the mouse and a tooltip listing every drawn curve's value there, highest first (issue 58
// item 5; gui/curve_readout.cpp).
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <qcustomplot.h>
#include <QPen>
#include <QWidget>

#include "db/store.h"
#include "gui/chart_marks.h"
#include "plot/curve_x.h"
#include "plot/decimate.h"
#include "plot/figure.h"
#include "plot/render.h"
#include "plot/smoothing.h"

class QCustomPlot;
class QAction;
class QMouseEvent;

namespace fathom::gui {

class CurvePlot : public QWidget {
  Q_OBJECT
 public:
  explicit CurvePlot(QWidget* parent = nullptr);

  // Redraws with new data; keeps the user's zoom when they have zoomed or panned. The figure
  // is kept for export (the zoomed range, if any, becomes its axis range). Curves that only
  // grew since the last call cost only their new points. With `rewritten` (seed groups: a
  // group's mean changes where a late member arrives) each curve is compared point by point
  // with the one drawn, and smoothed and decimated again from its start where it differs
  // (the plot's graphs are kept unless the curves themselves changed).
  void setFigure(plot::CurveFigure figure, bool rewritten = false);
  // The live dashboard's way in: the figure's curves carry no points (labels, styles,
  // divergence only); curve i's points are series[i], read in place. A curve whose points
  // only grew since the last call costs only its new points (the EMA and the min/max
  // decimation continue where they stopped); the plot is set up again only when the curves,
  // smoothing, scales or chart width change. full_figure builds the figure with every point
  // (what Export... draws); the series must stay valid until the next call.
  // x[i] places series[i]'s points on the figure's x axis (plot/curve_x.h).
  void setCurves(plot::CurveFigure skeleton,
                 std::vector<const std::vector<db::MetricPoint>*> series, std::vector<plot::RunX> x,
                 std::function<plot::CurveFigure()> full_figure);
  // Marks over the curves (chart_marks.h): spikes and fork points. Cheap to call on every
  // redraw: the same marks again change nothing. A mark whose curve is not drawn is left out.
  void setMarks(std::vector<ChartMark> marks);
  // The marks as drawn now, placed (a fork mark's y is its curve's there).
  const std::vector<ChartMark>& marks() const { return placed_; }
  std::vector<std::pair<double, double>> drawnMarks(ChartMark::Kind kind) const {
    return mark_graphs_.drawn(kind);
  }
  void resetZoom();
  // Legends of many runs cover the curves; the hover read-out names them too.
  void setLegendVisible(bool visible);
  // false: lines without markers, however few (a shared legend of too many entries for
  // markers to tell apart decides for its charts; plot/style.h lines_marked).
  void setMarkers(bool markers);
  // Draws the curve named `label` bold and the others faint (the shared legend's hover);
  // empty: every curve as drawn.
  void setHighlight(const QString& label);
  // Its context menu's "Enlarge" ("Back to all charts" once enlarged) asks the dashboard to
  // let this chart fill the area; the dashboard says which it is with setEnlarged.
  void setEnlarged(bool enlarged);
  bool enlarged() const { return enlarged_; }

 signals:
  void enlargeToggled();

 public:
  QCustomPlot* plot() const { return plot_; }
  int graphCount() const;
  QString readoutText() const { return readout_.trimmed(); }  // what the read-out shows now
  // What the read-out says for the mouse at `pixel`, as plain text: the step there, then each
  // drawn curve's value at its point nearest that step, highest first, one a line (the curve
  // nearest the mouse, within 40 px, also names a group's members there), and any mark under
  // the mouse; " " when the mouse is outside the axes or no curve is near that step.
  QString readoutAt(const QPoint& pixel) const;
  // The crosshair's pixel column in the plot; -1 while hidden.
  int crosshairX() const;

 private:
  // The read-out's content for the mouse at `pixel` (readoutAt's plain text, the tooltip's
  // rich text, the crosshair's column and points).
  struct HoverRow {
    QString name, extra;  // extra: a group's members there
    double x = 0, value = 0;
    QColor colour;
    bool nearest = false;
  };
  struct Hover {
    double x = 0;
    QString head, mark;  // "step 1200"; a spike or fork mark under the mouse
    std::vector<HoverRow> rows;
    size_t left_out = 0;  // rows beyond kMaxHoverRows
    bool empty() const { return rows.empty() && mark.isEmpty(); }
  };
  Hover hoverAt(const QPoint& pixel) const;
  static QString plainText(const Hover& hover);
  static QString richText(const Hover& hover);
  static QWidget* makeCrosshair(QWidget* plot);
  void showReadout(QMouseEvent* event);
  void hideReadout();
  bool eventFilter(QObject* watched, QEvent* event) override;  // the mouse leaving the chart
  void applyHighlight();
  // One curve's smoothed and decimated points, extended as points arrive.
  struct Live {
    Live(int buckets, double x0, double width, double smoothing)
        : ema(smoothing),
          ema_lo(smoothing),
          ema_hi(smoothing),
          raw(buckets, x0, width),
          shown(buckets, x0, width),
          lo(buckets, x0, width),
          hi(buckets, x0, width) {}
    plot::DebiasedEma ema, ema_lo, ema_hi;
    plot::MinMaxDecimator raw, shown, lo, hi;  // lo, hi: a group's band edges
    double last_x = 0, last_y = 0;             // the last point fed, to tell growth from a rewrite
    double diverged_y;                         // last finite smoothed value at or before divergence
    bool changed = true;
  };
  template <class Points>
  // rewritten[i]: curve i is smoothed and decimated again from its first point.
  void update(const plot::CurveFigure& skeleton, const std::vector<Points>& series,
              const std::vector<bool>& rewritten);
  // The steps of update(). Whether the width moved the decimation buckets (a new setup).
  bool rebucket();
  // Smooths and decimates the points each curve gained (from the first where it was
  // rewritten); sets `setup` when a divergence mark appeared or went. Returns the last x.
  template <class Points>
  double feed(const plot::CurveFigure& f, const std::vector<Points>& series,
              const std::vector<bool>& rewritten, bool& setup);
  // Draws the figure anew from the live curves.
  void rebuild(const plot::CurveFigure& f, const std::string& signature, double x_end);
  // Gives the existing graphs their curves' new points, marking each curve that grew in
  // *grew; false when none did.
  bool extendGraphs(const plot::CurveFigure& f, bool keep_zoom, std::vector<bool>* grew);
  // The curves that grew onto the growing layer, and those that stopped back once they are
  // most of it; true when a graph changed layer (its old line is in the other layer's buffer).
  bool layerGrowing(const std::vector<bool>& grew);
  // Places the marks on the curves as drawn now and draws them.
  void drawMarks();
  void makeRoomForMarks();  // the axes widened so that no mark is cut off
  // Fits the axes to the curves; the marks never widen them.
  void fitToCurves();
  // The hover read-out's words for curve `index` near x: a group's members present there.
  QString groupText(size_t index, double x) const;
  QString xText(double x) const;  // "step 1200", "3.2e6 tokens", "1:02:03 since start"
  std::string signature(const plot::CurveFigure& f) const;
  static plot::XY bandEdge(const Live& l, bool lower);
  void screenPens();

  QCustomPlot* plot_;
  QString readout_;                         // the read-out's plain text now
  QWidget* crosshair_;                      // drawn over the plot, transparent for the mouse
  plot::CurveFigure figure_;                // setFigure's, with the points
  std::string x_kind_ = "update";           // the shown figure's x axis, for the read-out
  plot::Axis x_spec_, y_spec_;              // its axes' scales and limits, for fitting
  std::optional<plot::BudgetLine> budget_;  // its budget line, which the x axis reaches
  std::function<plot::CurveFigure()> full_figure_;  // setCurves'
  std::vector<Live> live_;
  std::vector<plot::CurveGraphs> graphs_;
  std::string signature_;
  int buckets_ = 0;
  double x_end_at_setup_ = 0;  // the legend's corner is chosen again when the data outgrow it
  bool user_zoomed_ = false;
  bool legend_ = true;
  bool markers_ = true;
  QString highlight_;
  bool enlarged_ = false;
  QAction* enlarge_ = nullptr;
  // Each graph's pen and markers as the screen draws them, before any highlight.
  std::map<QCPGraph*, std::pair<QPen, QCPScatterStyle>> base_look_;
  std::vector<ChartMark> marks_, placed_;  // as given, and as drawn
  ChartMarkGraphs mark_graphs_;
};

}  // namespace fathom::gui
