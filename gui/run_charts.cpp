#include "gui/run_charts.h"

#include <algorithm>
#include <set>

#include <QGridLayout>
#include <QLabel>
#include <QResizeEvent>

#include "db/final_model_tag.h"
#include "db/fork_tags.h"
#include "db/metric_names.h"
#include "db/metric_presentation.h"
#include "gui/curve_plot.h"
#include "gui/run_marks.h"
#include "plot/planned_schedule.h"
#include "plot/smoothing.h"
#include "plot/store_curves.h"

namespace fathom::gui {
namespace {

namespace metric = db::metric;

// The dashboard's default smoothing (its slider starts at 60).
constexpr double kSmoothing = 0.6;
constexpr int kChartHeight = 250;

bool is_probe_scalar(const std::string& name) { return name.rfind("probe.", 0) == 0; }
bool is_layer_grad_norm(const std::string& name) {
  return name.rfind(metric::kLayerGradNormPrefix, 0) == 0;
}

// The title of a chart of one metric: its name, with its unit where it has one.
QString metric_chart_title(const std::string& name) {
  const std::string unit = metric::presentation_of(name).unit;
  return QString::fromStdString(unit.empty() ? name : name + " (" + unit + ")");
}

}  // namespace

std::vector<RunChartSpec> run_chart_specs(const std::vector<std::string>& metric_names) {
  const std::set<std::string> have(metric_names.begin(), metric_names.end());
  std::set<std::string> placed = {metric::kTargetTokens, metric::kTrainFlops};  // x axes
  std::vector<RunChartSpec> specs;
  // A chart of the named metrics the run has; none when it has none of them.
  auto chart = [&](const QString& title, const std::vector<std::string>& names,
                   const QString& y_label = QString()) {
    RunChartSpec spec{title, {}, false, true, false, y_label};
    for (const auto& n : names) {
      if (!have.count(n) || placed.count(n)) continue;
      spec.metrics.push_back(n);
      placed.insert(n);
      spec.log_y = spec.log_y || metric::presentation_of(n).log_axis;
    }
    if (!spec.metrics.empty()) specs.push_back(std::move(spec));
  };
  // What says whether training goes well, first.
  chart(QStringLiteral("loss (nats)"), {metric::kTrainLoss, metric::kValidLoss});
  chart(QStringLiteral("perplexity"), {metric::kTrainPpl, metric::kValidPpl});
  chart(QStringLiteral("learning rate"), {metric::kLearningRate});
  chart(QStringLiteral("gradient norm"), {metric::kGradNorm});
  chart(QStringLiteral("NLL per token"), {metric::kTrainNll, metric::kValidNll});
  // train.noise_scale: B_simple between its interval's ends (an end is missing where open).
  chart(QStringLiteral("gradient noise scale B_simple (target tokens)"),
        {metric::kNoiseBSimple, metric::kNoiseBSimpleLow, metric::kNoiseBSimpleHigh},
        QStringLiteral("B_simple"));
  // The run's other curves the presentation table knows, in its order; then those it does not
  // (system metrics, whatever their names); then the probes.
  std::vector<std::string> known, unknown, probes;
  for (const auto& n : metric_names) {
    if (placed.count(n) || is_layer_grad_norm(n)) continue;
    if (is_probe_scalar(n))
      probes.push_back(n);
    else if (metric::presentation_rank(n) < static_cast<int>(metric::presented_metrics().size()))
      known.push_back(n);
    else
      unknown.push_back(n);
  }
  std::stable_sort(known.begin(), known.end(), [](const std::string& a, const std::string& b) {
    return metric::presentation_rank(a) < metric::presentation_rank(b);
  });
  for (const auto& list : {known, unknown, probes})
    for (const auto& n : list) chart(metric_chart_title(n), {n});
  std::vector<std::string> layers;
  for (const auto& n : metric_names)
    if (is_layer_grad_norm(n)) layers.push_back(n);
  chart(QStringLiteral("gradient norm by layer"), layers);
  for (auto& spec : specs) {
    spec.whole_y = true;
    for (const auto& n : spec.metrics) {
      spec.smoothed = spec.smoothed && metric::presentation_of(n).smoothed;
      spec.whole_y = spec.whole_y && metric::presentation_of(n).whole_numbers;
    }
  }
  return specs;
}

namespace {

// One chart's figure: each metric its own colour and its name as its label. A chart mixing
// smoothed metrics with evaluations (train_loss with valid_loss) smooths the former here and
// draws the latter as they are.
plot::CurveFigure chart_figure(const db::Store& store, const db::RunRecord& run,
                               const RunChartSpec& spec) {
  plot::CurveQuery query;
  query.runs = {run.id};
  query.metrics = spec.metrics;
  query.log_y = spec.log_y;
  // A fork is judged against its parent past the fork point, where the fork's own rows (the
  // parent's, copied, up to there) stop telling: the parent drawn beside it while the store
  // holds it, first (plot::CurveQuery::references).
  const auto origin = db::fork_origin(store.tags(run.id));
  const int64_t forked_at = origin ? origin->step : 0;
  if (origin && store.find_run(std::to_string(origin->parent))) query.references = {origin->parent};
  plot::CurveFigure f = plot::curves_from_store(store, query);
  f.title = spec.title.toStdString();
  f.y.label = !spec.y_label.isEmpty()    ? spec.y_label.toStdString()
              : spec.metrics.size() == 1 ? spec.metrics.front()
                                         : "";
  f.y.whole_numbers = spec.whole_y;
  f.smoothing = spec.smoothed ? kSmoothing : 0;
  // The run's curves keep their metric's look; the parent's all share one colour and marker,
  // the same in every chart (the third: after a run's train and valid curves), each metric
  // its own dash as the run's (plot/render_curves.cpp).
  const size_t own = spec.metrics.size();
  const size_t parent_style = std::max<size_t>(own, 2);
  bool parent_drawn = false;
  for (plot::Curve& c : f.curves) {
    const auto at = std::find(spec.metrics.begin(), spec.metrics.end(), c.metric);
    const size_t metric_index = static_cast<size_t>(at - spec.metrics.begin());
    c.label =
        c.reference ? c.metric + " (parent #" + std::to_string(origin->parent) + ")" : c.metric;
    c.colour_key = c.label;
    parent_drawn = parent_drawn || c.reference;
    c.style = static_cast<int>(c.reference ? parent_style : metric_index);
    if (!spec.smoothed && metric::presentation_of(c.metric).smoothed)
      c.value = plot::debiased_ema(c.value, kSmoothing);
  }
  // The learning rate beside the schedule it follows, to the last update: a fork's from where it
  // left its parent, whose schedule it followed before.
  if (spec.metrics == std::vector<std::string>{metric::kLearningRate})
    if (auto planned = plot::planned_lr_curve(run, 600, forked_at)) {
      planned->style = static_cast<int>(parent_drawn ? parent_style + 1 : own);
      f.curves.push_back(std::move(*planned));
    }
  return f;
}

bool draws(const RunChartSpec& spec, const std::string& metric_name) {
  return std::find(spec.metrics.begin(), spec.metrics.end(), metric_name) != spec.metrics.end();
}

}  // namespace

RunCharts::RunCharts(QWidget* parent) : QScrollArea(parent) {
  setObjectName(QStringLiteral("charts"));
  setWidgetResizable(true);
  setFrameShape(QFrame::NoFrame);
  grid_widget_ = new QWidget;
  grid_ = new QGridLayout(grid_widget_);
  grid_->setContentsMargins(4, 4, 4, 4);
  empty_ = new QLabel(
      QStringLiteral("no curves yet: a run logs its first points after train.log_every updates"));
  empty_->setAlignment(Qt::AlignCenter);
  grid_->addWidget(empty_, 0, 0);
  setWidget(grid_widget_);
}

void RunCharts::refresh(const db::Store& store, const db::RunRecord& run,
                        const std::map<std::string, std::string>& tags,
                        const std::vector<db::Artifact>& artifacts) {
  const std::vector<RunChartSpec> specs = run_chart_specs(store.metric_names(run.id));
  const bool same = specs.size() == specs_.size() &&
                    std::equal(specs.begin(), specs.end(), specs_.begin(),
                               [](const RunChartSpec& a, const RunChartSpec& b) {
                                 return a.title == b.title && a.metrics == b.metrics;
                               });
  if (!same) {  // a curve appeared (the first validation, a probe): the grid anew
    for (CurvePlot* p : plots_) delete p;
    plots_.clear();
    specs_ = specs;
    for (const auto& spec : specs_) {
      auto* p = new CurvePlot;
      p->setObjectName(spec.title);
      p->setMinimumHeight(kChartHeight);
      plots_.push_back(p);
    }
    columns_ = 0;
    layOut();
  }
  // checkpoint_best and the early stop go on the curve they were decided on: train.best_metric's
  // (valid_bleu's where it chose), else -- or while it is not drawn yet -- the validation loss's.
  std::string decided_on = db::best_metric_of(run.config_json);
  if (decided_on.empty() || std::none_of(specs_.begin(), specs_.end(),
                                         [&](const auto& spec) { return draws(spec, decided_on); }))
    decided_on = metric::kValidLoss;
  for (size_t i = 0; i < specs_.size(); ++i) {
    try {
      plot::CurveFigure figure = chart_figure(store, run, specs_[i]);
      plots_[i]->setLegendVisible(figure.curves.size() > 1);
      plots_[i]->setFigure(std::move(figure));
      if (draws(specs_[i], decided_on))
        plots_[i]->setMarks(
            milestone_marks(run, tags, artifacts, QString::fromStdString(decided_on)));
    } catch (const std::exception&) {
      // A curve deleted between the two reads (a resumed run trims its points): next poll.
    }
  }
}

QStringList RunCharts::titles() const {
  QStringList out;
  for (const auto& s : specs_) out << s.title;
  return out;
}

CurvePlot* RunCharts::chart(const QString& title) const {
  for (size_t i = 0; i < specs_.size(); ++i)
    if (specs_[i].title == title) return plots_[i];
  return nullptr;
}

void RunCharts::resizeEvent(QResizeEvent* event) {
  QScrollArea::resizeEvent(event);
  layOut();
}

void RunCharts::layOut() {
  // Charts at least ~420 px wide: two columns on a laptop, three on a large screen.
  const int columns = std::clamp(viewport()->width() / 420, 1, 3);
  if (columns == columns_) return;
  columns_ = columns;
  while (grid_->count() > 0) delete grid_->takeAt(0);  // the widgets stay; only their places go
  empty_->setVisible(plots_.empty());
  if (plots_.empty()) {
    grid_->addWidget(empty_, 0, 0);
    return;
  }
  for (size_t i = 0; i < plots_.size(); ++i)
    grid_->addWidget(plots_[i], static_cast<int>(i) / columns, static_cast<int>(i) % columns);
  for (int c = 0; c < 3; ++c) grid_->setColumnStretch(c, c < columns ? 1 : 0);
}

}  // namespace fathom::gui

#include "moc_run_charts.cpp"  // moc output for run_charts.h: compiled in this unit
