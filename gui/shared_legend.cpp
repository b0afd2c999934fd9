#include "gui/shared_legend.h"

#include <qcustomplot.h>

#include <QPixmap>
#include <QScrollBar>
#include <QStyle>

#include "gui/legend_label_fit.h"
#include "plot/style.h"

namespace fathom::gui {
namespace {

// The entry's icon: a short stretch of the curve's line with its marker in the middle, as
// the charts draw it (plot/style.h), so an entry is found by its look; no marker where the
// charts draw none.
QIcon curve_icon(int style_index, int height, bool marked) {
  const int width = 2 * height;
  QPixmap pixmap(width * 2, height * 2);  // drawn at 2x, shown scaled: crisp on any screen
  pixmap.setDevicePixelRatio(2);
  pixmap.fill(Qt::transparent);
  QCPPainter painter(&pixmap);
  painter.setRenderHint(QPainter::Antialiasing);
  plot::Style style;
  style.line_width_pt = 1.3;
  QPen pen = plot::series_pen(style_index, style_index, style);
  pen.setCapStyle(Qt::FlatCap);
  painter.setPen(pen);
  painter.drawLine(QPointF(1, height / 2.0), QPointF(width - 1, height / 2.0));
  if (!marked) return QIcon(pixmap);
  // The marker with its own solid pen and fill: drawn with the line's dashed pen and no fill
  // it read as a glyph ("2", ":") at this size (issue 58 item 6).
  const QCPScatterStyle marker = plot::series_scatter(style_index, style_index, style);
  marker.applyTo(&painter, pen);
  marker.drawShape(&painter, width / 2.0, height / 2.0);
  return QIcon(pixmap);
}

// `state` in at most `width` pixels: whole, else from its last comma-separated parts
// ("120/300 (40%), ETA 2:10" -> "ETA 2:10"), else cut at the right.
QString fitted_state(const QString& state, const QFontMetrics& metrics, int width) {
  if (metrics.horizontalAdvance(state) <= width) return state;
  const QStringList parts = state.split(QStringLiteral(", "));
  for (qsizetype first = 1; first < parts.size(); ++first) {
    const QString tail = parts.mid(first).join(QStringLiteral(", "));
    if (metrics.horizontalAdvance(tail) <= width) return tail;
  }
  return metrics.elidedText(parts.back(), Qt::ElideRight, width);
}

}  // namespace

SharedLegend::SharedLegend(QWidget* parent) : QListWidget(parent) {
  setMouseTracking(true);
  setTextElideMode(Qt::ElideRight);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // fitTexts cuts each line instead
  setSelectionMode(QAbstractItemView::NoSelection);
  setToolTip(QStringLiteral("tick to show a curve in every chart; hover to highlight it"));
  connect(this, &QListWidget::itemEntered, this,
          [this](QListWidgetItem* item) { setHovered(item->data(Qt::UserRole).toString()); });
  connect(this, &QListWidget::itemChanged, this, [this](QListWidgetItem* item) {
    if (filling_) return;
    const QString label = item->data(Qt::UserRole).toString();
    if (item->checkState() == Qt::Checked)
      hidden_.erase(label);
    else
      hidden_.insert(label);
    emit visibilityChanged();
  });
}

void SharedLegend::setEntries(const std::vector<Entry>& entries) {
  filling_ = true;
  const int icon_height = fontMetrics().height();
  setIconSize(QSize(2 * icon_height, icon_height));
  // Rebuilt only when the curves changed: a poll that changes a state or a detail updates
  // the entries in place, leaving the list (and the user's scroll position and hover) alone.
  // Markers only while each entry can have a look of its own (the charts follow: plot/style.h);
  // they change with the count, and so does the list.
  const bool marked = plot::lines_marked(entries.size());
  bool same = count() == static_cast<int>(entries.size());
  for (int i = 0; same && i < count(); ++i) {
    const QListWidgetItem* it = item(i);
    same = it->data(Qt::UserRole).toString() == entries[i].label &&
           it->data(Qt::UserRole + 1).toInt() == entries[i].style;
  }
  if (!same) {
    clear();
    for (const Entry& e : entries) {
      auto* it = new QListWidgetItem(curve_icon(e.style, icon_height, marked), QString(), this);
      it->setData(Qt::UserRole, e.label);
      it->setData(Qt::UserRole + 1, e.style);
      it->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
      it->setCheckState(isHidden(e.label) ? Qt::Unchecked : Qt::Checked);
    }
  }
  entries_ = entries;
  if (!same) fitted_labels_.clear();  // other labels: fitted anew
  fitTexts();
  for (int i = 0; i < count(); ++i) {
    const Entry& e = entries[i];
    QListWidgetItem* it = item(i);
    // The whole label (the entry may cut it) and what the entry does not show; never the
    // state, which the entry shows and which a tooltip taken at one poll would keep stale.
    const QString tip = e.detail.isEmpty() ? e.label : e.label + "\n" + e.detail;
    if (it->toolTip() != tip) it->setToolTip(tip);
  }
  filling_ = false;
}

void SharedLegend::fitTexts() {
  // The room right of the tick box and the icon (style metrics, with a little slack).
  const int room = viewport()->width() - iconSize().width() -
                   style()->pixelMetric(QStyle::PM_IndicatorWidth) -
                   4 * style()->pixelMetric(QStyle::PM_FocusFrameHMargin) - 12;
  const QFontMetrics metrics(font());
  // The labels are fitted once for their width and font: a poll of a live sweep changes a
  // few states, and fitting thousands of labels again was a tenth of its time on the UI thread.
  const int fit_width = std::max(room, 20);
  if (fitted_labels_.size() != entries_.size() || fitted_room_ != fit_width ||
      fitted_font_ != font()) {
    QStringList labels;
    for (const Entry& e : entries_) labels << e.label;
    const LegendLabelFit fit(labels);
    fitted_labels_.clear();
    for (const Entry& e : entries_) fitted_labels_.push_back(fit.fit(e.label, metrics, fit_width));
    fitted_room_ = fit_width, fitted_font_ = font();
  }
  const bool old = filling_;
  filling_ = true;
  for (int i = 0; i < count() && i < static_cast<int>(entries_.size()); ++i) {
    const Entry& e = entries_[i];
    QString text = fitted_labels_[i];
    if (!e.status.isEmpty()) text += "\n" + fitted_state(e.status, metrics, fit_width);
    if (item(i)->text() != text) item(i)->setText(text);
  }
  filling_ = old;
}

void SharedLegend::resizeEvent(QResizeEvent* event) {
  QListWidget::resizeEvent(event);
  fitTexts();
}

void SharedLegend::setHidden(const QString& label, bool hidden) {
  for (int i = 0; i < count(); ++i)
    if (item(i)->data(Qt::UserRole).toString() == label) {
      item(i)->setCheckState(hidden ? Qt::Unchecked : Qt::Checked);  // emits through itemChanged
      return;
    }
  if (hidden ? hidden_.insert(label).second : hidden_.erase(label) > 0) emit visibilityChanged();
}

void SharedLegend::leaveEvent(QEvent* event) {
  setHovered(QString());
  QListWidget::leaveEvent(event);
}

void SharedLegend::setHovered(const QString& label) {
  if (label == hovered_) return;
  hovered_ = label;
  emit hoverChanged(label);
}

}  // namespace fathom::gui

#include "moc_shared_legend.cpp"  // moc output for shared_legend.h: compiled in this unit
