#include "gui/parallel_view.h"

#include <cmath>
#include <set>

#include <qcustomplot.h>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include "gui/draw_when_shown.h"
#include "gui/export_menu.h"
#include "gui/run_brush.h"
#include "gui/runs_signature.h"
#include "gui/screen_style.h"
#include "gui/store_session.h"
#include "gui/store_worker.h"
#include "gui/where_box.h"
#include "plot/plot_widget.h"

namespace fathom::gui {
namespace {

constexpr double kNearPx = 8;  // how close to an axis a drag starts, to a line a hover names

// The distance in pixels from p to the segment a-b.
double segment_distance(const QPointF& p, const QPointF& a, const QPointF& b) {
  const QPointF d = b - a;
  const double length2 = QPointF::dotProduct(d, d);
  const double t =
      length2 > 0 ? std::clamp(QPointF::dotProduct(p - a, d) / length2, 0.0, 1.0) : 0.0;
  const QPointF nearest = a + t * d;
  return std::hypot(p.x() - nearest.x(), p.y() - nearest.y());
}

}  // namespace

ParallelView::ParallelView(QWidget* parent)
    : QWidget(parent), worker_(new StoreWorker(this)), when_shown_(new DrawWhenShown(this)) {
  connect(worker_, &StoreWorker::failed, this, &ParallelView::error);
  sweep_ = new QComboBox;
  sweep_->setMinimumContentsLength(16);
  metrics_ = new QLineEdit(QStringLiteral("valid_ppl"));
  metrics_->setToolTip(QStringLiteral(
      "final metrics, comma-separated; the last one colours the lines (e.g. valid_ppl,test_bleu)"));
  auto* bar = new QHBoxLayout;
  auto* sweep_label = new QLabel(QStringLiteral("S&weep"));
  sweep_label->setBuddy(sweep_);
  auto* metric_label = new QLabel(QStringLiteral("&Metrics"));
  metric_label->setBuddy(metrics_);
  bar->addWidget(sweep_label);
  bar->addWidget(sweep_);
  bar->addWidget(metric_label);
  bar->addWidget(metrics_, 1);
  where_ = add_where_box(*bar);  // hundreds of lines: one depth or method reads better
  clear_ = new QToolButton;
  clear_->setText(QStringLiteral("Clear &brush"));
  clear_->setToolTip(
      QStringLiteral("drop every axis range dragged out, so the runs table shows every run "
                     "again (Escape; a click on one axis drops its range)"));
  clear_->setShortcut(QKeySequence(Qt::Key_Escape));
  clear_->setEnabled(false);
  bar->addWidget(clear_);

  plot_ = new plot::PlotWidget;
  plot_->setMinimumHeight(220);
  // Thousands of lines: drawn without antialiasing on screen, as the dashboard's curves (an
  // export draws them antialiased, plot/save.cpp).
  plot_->setNotAntialiasedElements(QCP::aePlottables);
  // The lines of runs that finished since a full draw: a buffered layer of their own above the
  // others, so a poll that adds some repaints them alone (16,384 lines: ~110 ms a repaint).
  plot_->addLayer(kAddedLayer, plot_->layer(QStringLiteral("main")), QCustomPlot::limAbove);
  plot_->layer(kAddedLayer)->setMode(QCPLayer::lmBuffered);
  add_export_menu(plot_);  // drawn as shown (no figure JSON behind it)
  note_ = new QLabel(QStringLiteral("Open a store with a sweep."));
  note_->setWordWrap(true);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(plot_, 1);
  layout->addWidget(note_);
  connect(sweep_, &QComboBox::currentTextChanged, this, [this] { redraw(); });
  connect(metrics_, &QLineEdit::editingFinished, this, [this] { redraw(); });
  connect(where_, &QLineEdit::editingFinished, this, [this] { redraw(); });
  connect(clear_, &QToolButton::clicked, this, &ParallelView::clearBrush);
  plot_->setMouseTracking(true);  // hover without a button held
  connect(plot_, &QCustomPlot::mousePress, this, &ParallelView::onPress);
  connect(plot_, &QCustomPlot::mouseMove, this, &ParallelView::onMove);
  connect(plot_, &QCustomPlot::mouseRelease, this, &ParallelView::onRelease);
}

void ParallelView::setBrush(RunBrush* brush) {
  brush_ = brush;
  if (brush_)
    connect(brush_, &RunBrush::cleared, this, [this] {  // cleared elsewhere (the runs table)
      ranges_.clear();
      applyBrush();
    });
}

void ParallelView::setStore(StoreSession* session, const QString& location) {
  when_shown_->cancel();  // runs of the last store
  session_ = session;
  worker_->setDatabase(session ? location : QString());
  ++asked_;  // a read of the last store is not shown
  signature_.clear();
  ranges_.clear();  // another store's runs
  if (!session) {
    sweep_->clear();
    shown_.reset();
  }
}

void ParallelView::showRuns(const std::vector<db::RunRecord>& all,
                            const std::vector<db::RunRecord>&) {
  const std::string signature = runs_status_signature(all);
  if (signature == signature_) return;  // final metrics come with a status change
  // A line for each run, drawn on the UI thread: not while the tab is out of sight.
  if (when_shown_->defer(signature, [&] { return [this, all] { showRuns(all, {}); }; })) return;
  signature_ = signature;
  std::set<QString> sweeps;
  for (const auto& r : all)
    if (!r.sweep.empty()) sweeps.insert(QString::fromStdString(r.sweep));
  const QString current = sweep_->currentText();
  {
    const QSignalBlocker block(sweep_);
    sweep_->clear();
    for (const auto& s : sweeps) sweep_->addItem(s);
    if (sweeps.count(current)) sweep_->setCurrentText(current);
  }
  redraw();
}

bool ParallelView::choose(const QString& sweep, const QString& metrics, const QString& where) {
  if (sweep_->findText(sweep) < 0) return false;
  metrics_->setText(metrics);
  where_->setText(where);
  sweep_->setCurrentText(sweep);
  redraw();
  waitForResults();
  return shown_.has_value();
}

bool ParallelView::reading() const { return worker_->busy(); }

void ParallelView::waitForResults() const { worker_->waitIdle(); }

QString ParallelView::noteText() const { return note_->text(); }

void ParallelView::clearLines() {
  shown_.reset();
  plot::clear_plottables(*plot_);
  plot_->clearItems();
  range_items_.clear();
  pens_.clear();
  plot_->replot();
}

void ParallelView::redraw() {
  ++asked_;  // a read of older choices is not shown
  if (!session_ || sweep_->currentText().isEmpty()) {
    clearLines();
    return;
  }
  // The lines drawn stay until the read is shown: a poll that brings a finished run does not
  // blank the plot meanwhile.
  note_->setText(QStringLiteral("Reading sweep %1 ...").arg(sweep_->currentText()));
  // The choices are taken when the read is sent: a later change replaces a read not yet sent.
  worker_->request([this]() -> StoreWorker::Job {
    std::vector<std::string> metrics;
    for (const QString& m : metrics_->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
      metrics.push_back(m.trimmed().toStdString());
    return read_then_show<plot::ParallelFigure>(
        [sweep = sweep_->currentText().toStdString(), metrics = std::move(metrics),
         where = where_->text().toStdString()](const db::Store& store) {
          return plot::parallel_from_store(store, sweep, metrics, where);
        },
        [this, asked = asked_](const auto& get) {
          if (asked == asked_) showRead(get);
        });
  });
}

void ParallelView::showRead(const std::function<plot::ParallelFigure&()>& get) {
  plot::ParallelFigure read;
  try {
    read = std::move(get());
  } catch (const std::exception& e) {
    clearLines();
    note_->setText(where_error(e).value_or(describe_store_error(e)));
    return;
  }
  bool added = false;  // lines added, with no brush, to a figure drawn in full before
  if (shown_ && plot::parallel_extends(*shown_, &read)) {
    // Runs that finished inside the drawn axes: their lines alone are added.
    const size_t drawn = shown_->lines.size();
    shown_ = std::move(read);
    added = ranges_.empty();  // else a brush decides their pens and layers
    if (added) plot_->setCurrentLayer(kAddedLayer);
    plot::add_parallel_lines(*plot_, *shown_, drawn);
    plot_->setCurrentLayer(QStringLiteral("main"));
  } else {
    clearLines();
    shown_ = std::move(read);
    plot::setup_parallel_coordinates(*plot_, *shown_, screen_style(font()));
    pens_.clear();
    range_items_.clear();  // setup removed them with every item
  }
  for (int i = static_cast<int>(pens_.size()); i < plot_->plottableCount(); ++i)
    pens_.push_back(plot_->plottable(i)->pen());
  if (added)
    showAdded();
  else
    applyBrush();  // the ranges of axes still shown hold; replots
  QString note = QStringLiteral("%1 runs").arg(shown_->lines.size());
  if (shown_->where_note)
    note += QStringLiteral("; ") + QString::fromStdString(*shown_->where_note);
  if (shown_->not_ended > 0)
    note += QStringLiteral(" (%1 more not ended yet, queued or running: left out)")
                .arg(shown_->not_ended);
  note_->setText(note +
                 QStringLiteral("; a run without a metric (diverged) stops before its axis. Drag "
                                "along an axis to keep a range of it (the runs table follows), "
                                "hover over a line to name its run"));
}

namespace {
// A layer's paint buffer, which QCustomPlot marks stale when a layerable joins the layer and
// then answers the layer's own repaint with a full one. Repainting the layer redraws its whole
// buffer, so it is not stale after: a member pointer named through a subclass reaches it.
struct LayerBuffer : QCPLayer {
  static void repaint(QCPLayer* layer) {
    if (auto buffer = (layer->*(&LayerBuffer::mPaintBuffer)).toStrongRef())
      buffer->setInvalidated(false);
    layer->replot();
  }
};
}  // namespace

void ParallelView::showAdded() {
  QCPLayer* added = plot_->layer(kAddedLayer);
  // Past some hundreds the layer's repaint is most of a full one: they join the others.
  if (added->children().size() > kAddedLinesKept) {
    for (int i = 0; i < plot_->plottableCount(); ++i)
      if (plot_->plottable(i)->layer() == added)
        plot_->plottable(i)->setLayer(QStringLiteral("main"));
    plot_->replot();
    return;
  }
  LayerBuffer::repaint(added);
}

void ParallelView::brushAxis(int axis, double from, double to) {
  if (!shown_ || axis < 0 || axis >= static_cast<int>(shown_->axes.size())) return;
  const std::string& name = shown_->axes[axis].name;
  const double low = std::clamp(std::min(from, to), 0.0, 1.0);
  const double high = std::clamp(std::max(from, to), 0.0, 1.0);
  if (high - low < 1e-3)
    ranges_.erase(name);  // a click: this axis's range goes
  else
    ranges_[name] = {low, high};
  applyBrush();
}

void ParallelView::extraScreenshots(const std::function<void(const QString& file)>& shoot) {
  if (!shown_ || shown_->axes.empty()) return;
  const AxisRanges before = ranges_;
  brushAxis(static_cast<int>(shown_->axes.size()) - 1, 0, 1.0 / 3);
  shoot(QStringLiteral("parallel-brushed.png"));
  ranges_ = before;
  applyBrush();
}

void ParallelView::clearBrush() {
  ranges_.clear();
  applyBrush();
}

std::vector<size_t> ParallelView::brushedLines() const {
  std::vector<size_t> lines;
  for (size_t i = 0; shown_ && i < shown_->lines.size(); ++i)
    if (line_in_ranges(*shown_, i, ranges_)) lines.push_back(i);
  return lines;
}

void ParallelView::applyBrush() {
  for (QCPAbstractItem* item : range_items_) plot_->removeItem(item);
  range_items_.clear();
  clear_->setEnabled(!ranges_.empty());
  if (!shown_) {
    if (brush_ && ranges_.empty()) brush_->clear();
    plot_->replot();
    return;
  }
  const std::vector<size_t> kept = brushedLines();
  const std::set<size_t> keep(kept.begin(), kept.end());
  const QPen faded(QColor(200, 200, 200, 90), pens_.empty() ? 1.0 : pens_.front().widthF());
  for (int i = 0; i < plot_->plottableCount() && i < static_cast<int>(pens_.size()); ++i) {
    plot_->plottable(i)->setPen(keep.count(i) ? pens_[i] : faded);
    // Brushed lines over the faded ones: the faded go to the layer below.
    const QString layer = keep.count(i) ? QStringLiteral("main") : QStringLiteral("grid");
    if (plot_->plottable(i)->layer()->name() != layer) plot_->plottable(i)->setLayer(layer);
  }
  for (size_t a = 0; a < shown_->axes.size(); ++a) {
    const auto range = ranges_.find(shown_->axes[a].name);
    if (range == ranges_.end()) continue;
    auto* box = new QCPItemRect(plot_);
    box->topLeft->setCoords(a - 0.05, range->second.high);
    box->bottomRight->setCoords(a + 0.05, range->second.low);
    box->setPen(QPen(QColor(25, 118, 210), 1.5));
    box->setBrush(QColor(25, 118, 210, 50));
    box->setLayer(QStringLiteral("axes"));
    range_items_.push_back(box);
  }
  if (brush_) {
    if (ranges_.empty()) {
      brush_->clear();
    } else {
      std::set<int64_t> runs;
      for (size_t i : kept) runs.insert(shown_->lines[i].run_id);
      brush_->set(std::move(runs),
                  QStringLiteral("%1 (Parallel, sweep %2)")
                      .arg(describe_ranges(*shown_, ranges_), sweep_->currentText()));
    }
  }
  plot_->replot();
}

int ParallelView::axisAt(double x_pixel) const {
  if (!shown_ || shown_->axes.empty()) return -1;
  const int a = static_cast<int>(std::lround(plot_->xAxis->pixelToCoord(x_pixel)));
  if (a < 0 || a >= static_cast<int>(shown_->axes.size())) return -1;
  return std::abs(plot_->xAxis->coordToPixel(a) - x_pixel) <= kNearPx ? a : -1;
}

void ParallelView::onPress(QMouseEvent* event) {
  drag_axis_ = event->button() == Qt::LeftButton ? axisAt(event->position().x()) : -1;
  if (drag_axis_ >= 0) drag_from_ = plot_->yAxis->pixelToCoord(event->position().y());
}

void ParallelView::onMove(QMouseEvent* event) {
  if (drag_axis_ < 0) {
    const QString text = hoverText(event->position().toPoint());
    if (text.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(event->globalPosition().toPoint(), text, plot_);
    return;
  }
  const double to = plot_->yAxis->pixelToCoord(event->position().y());
  if (std::abs(to - drag_from_) >= 1e-3) brushAxis(drag_axis_, drag_from_, to);
}

void ParallelView::onRelease(QMouseEvent* event) {
  if (drag_axis_ < 0) return;
  brushAxis(drag_axis_, drag_from_, plot_->yAxis->pixelToCoord(event->position().y()));
  drag_axis_ = -1;
}

QString ParallelView::hoverText(const QPoint& pixel) const {
  if (!shown_) return {};
  double best = kNearPx;
  const plot::ParallelLine* nearest = nullptr;
  for (const auto& line : shown_->lines) {
    for (size_t a = 0; a + 1 < shown_->axes.size(); ++a) {
      const double p0 = plot::axis_position(shown_->axes[a], line.values[a]);
      const double p1 = plot::axis_position(shown_->axes[a + 1], line.values[a + 1]);
      if (std::isnan(p0) || std::isnan(p1)) continue;
      const QPointF from(plot_->xAxis->coordToPixel(a), plot_->yAxis->coordToPixel(p0));
      const QPointF to(plot_->xAxis->coordToPixel(a + 1), plot_->yAxis->coordToPixel(p1));
      const double d = segment_distance(QPointF(pixel), from, to);
      if (d < best) {
        best = d;
        nearest = &line;
      }
    }
  }
  if (!nearest) return {};
  QStringList rows{QString::fromStdString(nearest->label)};
  for (size_t a = 0; a < shown_->axes.size(); ++a) {
    const auto& axis = shown_->axes[a];
    const double v = nearest->values[a];
    const QString value = std::isnan(v)  ? QStringLiteral("-")
                          : axis.numeric ? QString::number(v, 'g', 5)
                                         : QString::fromStdString(axis.categories[size_t(v)]);
    rows << QString::fromStdString(axis.name) + QStringLiteral(": ") + value;
  }
  return rows.join(QLatin1Char('\n'));
}

}  // namespace fathom::gui

#include "moc_parallel_view.cpp"  // moc output for parallel_view.h: compiled in this unit
