#pragma once
// Marks on a dashboard chart's curves (issue 38 item 5): a red pointer above each spike of a
// run's raw points, and a tick with a diamond where a fork left its parent -- or, on the run
// page, where the model the final evaluation used was kept and where early stopping ended
// training. They are a few
// scatter graphs laid over the curves, never in the legend and never part of the axes' range,
// and the hover read-out names what a mark stands for.
#include <optional>
#include <utility>
#include <vector>

#include <QColor>
#include <QPoint>
#include <QString>

class QCustomPlot;
class QCPGraph;

namespace fathom::gui {

struct ChartMark {
  enum class Kind { Spike, Fork, Milestone };  // a milestone: drawn as a fork is
  Kind kind = Kind::Spike;
  QString curve;  // the label of the curve it marks
  double x = 0;
  // NaN: on the curve as drawn at x (a fork mark sits on the smoothed line, not a raw point).
  double y = 0;
  QString text;  // the read-out's words, e.g. "spike: 9, z = 70.3, mean of the 20 before: 3.01"
  bool operator==(const ChartMark& o) const;
};

// The graphs that draw one chart's marks. The plot's set-up removes every graph: forget()
// then, and draw() makes them again.
class ChartMarkGraphs {
 public:
  void forget() { graphs_.clear(); }
  bool empty() const { return graphs_.empty(); }
  // Draws `marks` on `plot` (placed already: y finite); a fork mark takes its curve's colour.
  void draw(QCustomPlot& plot, const std::vector<ChartMark>& marks,
            const std::vector<QColor>& colours);
  // Shown or hidden, e.g. while the axes are fitted to the curves alone.
  void setVisible(bool visible);
  // The marks' positions as drawn, for tests.
  std::vector<std::pair<double, double>> drawn(ChartMark::Kind kind) const;

 private:
  struct Drawn {
    QCPGraph* graph;
    ChartMark::Kind kind;
  };
  std::vector<Drawn> graphs_;
};

// The mark drawn under `pixel` (within a few pixels of its shape), if any.
std::optional<size_t> mark_at(const QCustomPlot& plot, const std::vector<ChartMark>& placed,
                              const QPoint& pixel);

}  // namespace fathom::gui
