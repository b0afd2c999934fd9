#include "gui/parallel_view.h"

#include <set>

#include <qcustomplot.h>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>

#include "gui/export_menu.h"
#include "gui/screen_style.h"
#include "gui/store_session.h"
#include "gui/where_box.h"
#include "plot/plot_widget.h"

namespace fathom::gui {

ParallelView::ParallelView(QWidget* parent) : QWidget(parent) {
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

  plot_ = new plot::PlotWidget;
  plot_->setMinimumHeight(220);
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
}

void ParallelView::setStore(StoreSession* session, const QString&) {
  session_ = session;
  signature_.clear();
  if (!session) {
    sweep_->clear();
    shown_.reset();
  }
}

void ParallelView::showRuns(const std::vector<db::RunRecord>& all,
                            const std::vector<db::RunRecord>&) {
  std::string signature;
  for (const auto& r : all) signature += std::to_string(r.id) + r.status + ";";
  if (signature == signature_) return;  // final metrics come with a status change
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
  return shown_.has_value();
}

QString ParallelView::noteText() const { return note_->text(); }

void ParallelView::redraw() {
  shown_.reset();
  plot::clear_plottables(*plot_);
  plot_->clearItems();
  if (!session_ || sweep_->currentText().isEmpty()) {
    plot_->replot();
    return;
  }
  std::vector<std::string> metrics;
  for (const QString& m : metrics_->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
    metrics.push_back(m.trimmed().toStdString());
  try {
    shown_ = plot::parallel_from_store(session_->store, sweep_->currentText().toStdString(),
                                       metrics, where_->text().toStdString());
  } catch (const std::exception& e) {
    plot_->replot();
    note_->setText(where_error(e).value_or(describe_store_error(e)));
    return;
  }
  plot::setup_parallel_coordinates(*plot_, *shown_, screen_style(font()));
  plot_->replot();
  QString note = QStringLiteral("%1 runs").arg(shown_->lines.size());
  if (shown_->where_note)
    note += QStringLiteral("; ") + QString::fromStdString(*shown_->where_note);
  if (shown_->not_ended > 0)
    note += QStringLiteral(" (%1 more not ended yet, queued or running: left out)")
                .arg(shown_->not_ended);
  note_->setText(note +
                 QStringLiteral("; a run without a metric (diverged) stops before its axis"));
}

}  // namespace fathom::gui

#include "moc_parallel_view.cpp"  // moc output for parallel_view.h: compiled in this unit
