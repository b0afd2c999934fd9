#include "gui/depth_scaling_view.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QVBoxLayout>

#include "base/util/error.h"
#include "base/util/strings.h"
#include "db/metric_names.h"
#include "experiments/axis_extension.h"
#include "experiments/axis_optimum.h"
#include "experiments/lr_extension.h"
#include "experiments/value_at_budget.h"
#include "gui/draw_when_shown.h"
#include "gui/export_menu.h"
#include "gui/export_targets.h"
#include "gui/extension_offer.h"
#include "gui/relayout_on_resize.h"
#include "gui/runs_signature.h"
#include "gui/screen_style.h"
#include "gui/split_shares.h"
#include "gui/store_session.h"
#include "gui/where_box.h"
#include "plot/plot_widget.h"
#include "plot/render.h"
#include "plot/scaling_figure.h"

namespace fathom::gui {
namespace {

const QString kOneLine = QStringLiteral("(one line)");
const std::string kScalingTab = "the Scaling tab";
using RunAxes = DepthScalingView::RunAxes;

struct SweepAxes {
  std::vector<std::map<std::string, std::string>> runs;
  std::vector<std::string> layout;
};

// A run's axes (its axis.* tags, the seed left out) and the sweep file's layout: the axis keys
// in the order it varies them (the sweep.axes tag: groups comma-separated, a zip group's keys
// joined by +; empty without the tag).
RunAxes read_run_axes(const db::Store& store, int64_t run) {
  RunAxes out;
  for (const auto& [key, value] : store.tags(run)) {
    if (key == "sweep.axes")
      for (const QString& group : QString::fromStdString(value).split(','))
        for (const QString& k : group.split('+')) out.layout.push_back(k.toStdString());
    if (key.rfind("axis.", 0) != 0) continue;
    const std::string axis = key.substr(5);
    if (axis.size() >= 5 && axis.substr(axis.size() - 5) == ".seed") continue;
    out.axes[axis] = value;
  }
  return out;
}

// The axes of each run of `sweep` whose axes are `known` (all of them, once read).
SweepAxes sweep_axes(const std::vector<db::RunRecord>& runs, const std::string& sweep,
                     const std::map<int64_t, RunAxes>& known) {
  SweepAxes out;
  for (const auto& r : runs) {
    if (r.sweep != sweep) continue;
    const auto it = known.find(r.id);
    if (it == known.end()) continue;
    if (out.layout.empty()) out.layout = it->second.layout;
    out.runs.push_back(it->second.axes);
  }
  return out;
}

// An axis's values in ascending order of their numbers ("6" before "12"), others after as text.
std::vector<std::string> ascending(const std::set<std::string>& values) {
  std::vector<std::string> out(values.begin(), values.end());
  std::stable_sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    const auto x = experiments::axis_number(a), y = experiments::axis_number(b);
    return x && (!y || *x < *y);
  });
  return out;
}

// The values each axis takes over the runs.
std::map<std::string, std::set<std::string>> axis_values(const SweepAxes& a) {
  std::map<std::string, std::set<std::string>> values;
  for (const auto& run : a.runs)
    for (const auto& [axis, value] : run) values[axis].insert(value);
  return values;
}

// `axis` is zipped with `x`: one value per value of x and as many (max_updates in an isoFLOP
// sweep), so that a line per its value would be a line per depth.
bool zip_partner(const SweepAxes& a, const std::string& axis, const std::string& x,
                 const std::map<std::string, std::set<std::string>>& values) {
  std::set<std::pair<std::string, std::string>> pairs;
  for (const auto& run : a.runs)
    if (run.count(axis) && run.count(x)) pairs.insert({run.at(x), run.at(axis)});
  const size_t x_values = values.count(x) ? values.at(x).size() : 0;
  return pairs.size() == x_values && values.at(axis).size() == x_values;
}

// The box's items again, keeping its choice where it is still offered, else taking `wanted`
// (a choice restored from the last session) where it is.
void refill(QComboBox* box, const QStringList& items, const QString& wanted) {
  const QString current = box->currentText();
  const QSignalBlocker block(box);
  box->clear();
  box->addItems(items);
  if (items.contains(current))
    box->setCurrentText(current);
  else if (items.contains(wanted))
    box->setCurrentText(wanted);
}

// The budgets `text` names ("compute=1e15,compute=2e15"), or by default a quarter, a half and
// all of the least the `finished` runs reached -- of compute, or where no run logged its FLOPs
// (stored before Fathom did), of target tokens, else of updates, which `fallback` then says;
// InputError (--at) for a bad one.
std::vector<experiments::Budget> budgets_of(const QString& text, const db::Store& store,
                                            const std::vector<int64_t>& finished,
                                            std::string* fallback) {
  std::vector<experiments::Budget> out;
  if (!text.trimmed().isEmpty()) {
    for (const QString& one : text.split(',', Qt::SkipEmptyParts))
      out.push_back(experiments::parse_budget(one.trimmed().toStdString(), kScalingTab));
    return out;
  }
  std::optional<experiments::Budget> least;
  for (const std::string axis : {"compute", "tokens", "update"}) {
    try {
      least = experiments::resolve_least(experiments::parse_budget(axis + "=least", kScalingTab),
                                         store, finished, kScalingTab);
    } catch (const InputError&) {
      if (axis == "update") throw;  // no finished run has any curve: say why
      continue;
    }
    const std::string read_at = axis == "tokens" ? "target tokens" : "updates";
    if (axis != "compute")
      *fallback = "No finished run logged train_flops: the budgets are " + read_at +
                  " (a quarter, a half and all of the least), so each depth is read at equal " +
                  read_at + ", not equal compute; name compute budgets in Budgets for that.";
    break;
  }
  for (double share : experiments::kGrowthShares)
    out.push_back(experiments::budget_share(*least, share));
  return out;
}

QCustomPlot* figure_plot() {
  auto* plot = new plot::PlotWidget;
  plot->setMinimumHeight(220);
  add_export_menu(plot);
  return plot;
}

}  // namespace

DepthScalingView::DepthScalingView(QWidget* parent)
    : QWidget(parent), worker_(new StoreWorker(this)), when_shown_(new DrawWhenShown(this)) {
  connect(worker_, &StoreWorker::failed, this, &DepthScalingView::error);
  buildChoices();
  budgets_plot_ = figure_plot();
  scaling_plot_ = figure_plot();
  set_figure_source(budgets_plot_, [this]() -> std::optional<plot::Figure> {
    if (!shown_) return std::nullopt;
    return shown_->figure;
  });
  set_figure_source(scaling_plot_, [this]() -> std::optional<plot::Figure> {
    if (auto f = scalingFigure()) return *f;
    return std::nullopt;
  });
  // Legends are laid out for the plot's size (plot/render_common.cpp): again on a resize.
  for (QCustomPlot* p : {budgets_plot_, scaling_plot_})
    new RelayoutOnResize(p, [this] { drawFigures(); });
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(budgets_plot_);
  split->addWidget(scaling_plot_);
  // The lines at every budget carry a legend of budgets x lines: the wider share.
  keep_split_shares(split, {3, 2});
  note_ = new QLabel(QStringLiteral(
      "Open a store with a sweep over depth (a numeric axis such as model.encoder_layers)."));
  note_->setWordWrap(true);
  note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  note_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  // A sweep still writing, or read short of its budgets, has many notes: they scroll below the
  // plots instead of squeezing them, and the splitter gives either more room.
  auto* notes = new QScrollArea;
  notes->setWidget(note_);
  notes->setWidgetResizable(true);
  notes->setFrameShape(QFrame::NoFrame);
  auto* results = new QSplitter(Qt::Vertical);
  results->addWidget(split);
  results->addWidget(notes);
  keep_split_shares(results, {3, 1});
  auto* layout = qobject_cast<QVBoxLayout*>(this->layout());
  layout->addWidget(results, 1);
}

// Two rows: what is drawn (sweep, depth axis, lines, metric), then where it is read (budgets,
// best variant).
void DepthScalingView::buildChoices() {
  sweep_ = new QComboBox;
  x_ = new QComboBox;
  rows_ = new QComboBox;
  metric_ = new QComboBox;
  for (auto* box : {sweep_, x_, rows_}) box->setMinimumContentsLength(14);
  metric_->addItems({QString::fromStdString(db::metric::kValidLoss),
                     QString::fromStdString(db::metric::kValidNll),
                     QString::fromStdString(db::metric::kValidPpl),
                     QString::fromStdString(db::metric::kTrainLoss)});
  x_->setToolTip(QStringLiteral("the sweep's numeric axis the lines run along (a depth)"));
  rows_->setToolTip(QStringLiteral("a line per value of this axis (a method), or one line"));
  auto* bar = new QHBoxLayout;
  add_labelled(*bar, QStringLiteral("S&weep"), sweep_);
  add_labelled(*bar, QStringLiteral("&Depth axis"), x_);
  add_labelled(*bar, QStringLiteral("&Lines"), rows_);
  add_labelled(*bar, QStringLiteral("&Metric"), metric_);
  bar->addStretch();
  budgets_ = new QLineEdit;
  budgets_->setPlaceholderText(
      QStringLiteral("compute at 1/4, 1/2 and all of the cheapest finished run's"));
  budgets_->setClearButtonEnabled(true);
  budgets_->setToolTip(QStringLiteral(
      "budgets, comma-separated, as `fathom export plot budgets --at` takes them: "
      "compute=1e15,compute=2e15,compute=4e15 (tokens=N, update=N); three or more of one axis "
      "give each line's exponent"));
  best_variant_ = new QCheckBox(QStringLiteral("Best &variant"));
  best_variant_->setToolTip(QStringLiteral(
      "where a depth's runs differ in another axis (the learning rate), take its best variant "
      "at each budget, chosen on valid_loss there, instead of pooling them"));
  auto* read_bar = new QHBoxLayout;
  add_labelled(*read_bar, QStringLiteral("&Budgets"), budgets_);
  read_bar->addWidget(best_variant_);
  // Part of the sweep: one method's depths, or the depths at one learning rate.
  where_ = add_where_box(*read_bar);
  extend_ = new QPushButton(QStringLiteral("E&xtend depths..."));
  extend_->setEnabled(false);
  extend_->setToolTip(QStringLiteral(
      "write the sweep file of one depth beyond the grid's end for the lines whose best depth "
      "is at that end at the largest budget (fathom sweep extend --axis), to run with --resume"));
  connect(extend_, &QPushButton::clicked, this, [this] { extendDepths(); });
  read_bar->addWidget(extend_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addLayout(read_bar);
  connect(sweep_, &QComboBox::currentTextChanged, this, [this] { sweepChanged(); });
  connect(x_, &QComboBox::currentTextChanged, this, [this] { sweepChanged(); });
  for (auto* box : {rows_, metric_})
    connect(box, &QComboBox::currentTextChanged, this, [this] { redraw(); });
  connect(budgets_, &QLineEdit::editingFinished, this, [this] { redraw(); });
  connect(where_, &QLineEdit::editingFinished, this, [this] { redraw(); });
  connect(best_variant_, &QCheckBox::toggled, this, [this] { redraw(); });
}

void DepthScalingView::setStore(StoreSession* session, const QString& location) {
  when_shown_->cancel();  // runs of the last store
  session_ = session;
  worker_->setDatabase(session ? location : QString());
  ++asked_;  // a read of the last store is not drawn
  ++axes_asked_;
  axes_pending_ = false;
  signature_.clear();
  runs_.clear();
  run_axes_.clear();
  shown_.reset();
  const QSignalBlocker block(sweep_);
  sweep_->clear();
}

void DepthScalingView::showRuns(const std::vector<db::RunRecord>& all,
                                const std::vector<db::RunRecord>&) {
  const std::string signature = runs_signature(all);
  if (signature == signature_) return;  // nothing it shows changed
  // Read again in the worker for every finished run: not while the tab is out of sight.
  // Out of sight, the runs of the first poll that changed them wait; their later updates come
  // with the first poll after the tab is shown.
  if (when_shown_->defer(runs_status_signature(all),
                         [&] { return [this, all] { showRuns(all, {}); }; }))
    return;
  signature_ = signature;
  runs_ = all;
  std::set<std::string> sweeps;
  for (const auto& r : runs_)
    if (!r.sweep.empty()) sweeps.insert(r.sweep);
  QStringList names;
  for (const auto& s : sweeps) names << QString::fromStdString(s);
  refill(sweep_, names, wanted_sweep_);
  sweepChanged();
}

void DepthScalingView::sweepChanged() {
  if (!session_ || sweep_->currentText().isEmpty()) return redraw();
  const std::string sweep = sweep_->currentText().toStdString();
  // Each run's axes are read once, in the worker (tags are written when a run is queued: a
  // sweep still writing is polled without reading them again).
  std::vector<int64_t> unread;
  for (const auto& r : runs_)
    if (r.sweep == sweep && !run_axes_.count(r.id)) unread.push_back(r.id);
  if (!unread.empty()) return readRunAxes(std::move(unread));
  if (axes_pending_) return;  // sweepChanged() again once they are read
  // Depth axes: three or more values, all numbers > 0; first as the sweep file varies them (its
  // first group's first key: encoder_layers of a zip with decoder_layers and max_updates).
  const SweepAxes axes = sweep_axes(runs_, sweep, run_axes_);
  const auto values = axis_values(axes);
  QStringList xs;
  for (const auto& [axis, taken] : values)
    if (taken.size() >= 3 && std::all_of(taken.begin(), taken.end(), [](const auto& v) {
          return experiments::axis_number(v).has_value();
        }))
      xs << QString::fromStdString(axis);
  int front = 0;
  for (const auto& key : axes.layout)
    if (const int at = xs.indexOf(QString::fromStdString(key)); at >= front) xs.move(at, front++);
  // A depth before any other numeric axis (a sweep file that varies the rate first).
  std::stable_partition(xs.begin(), xs.end(), [](const QString& key) {
    return experiments::names_a_depth(key.toStdString());
  });
  few_depths_.clear();
  for (const auto& [axis, taken] : values)
    if (experiments::names_a_depth(axis) && taken.size() < 3)
      few_depths_ += QStringLiteral(
                         "%1 takes %2 value%3 in sweep %4 (%5): a best depth needs three "
                         "or more.\n")
                         .arg(QString::fromStdString(axis))
                         .arg(taken.size())
                         .arg(taken.size() == 1 ? "" : "s")
                         .arg(QString::fromStdString(sweep))
                         .arg(QString::fromStdString(join(ascending(taken), ", ")));
  refill(x_, xs, wanted_x_);
  // Lines: any other axis but the depth's zip partners, which would give a line per depth.
  const std::string x = x_->currentText().toStdString();
  QStringList rows{kOneLine};
  for (const auto& [axis, taken] : values)
    if (axis != x && !zip_partner(axes, axis, x, values)) rows << QString::fromStdString(axis);
  refill(rows_, rows, wanted_rows_);
  redraw();
}

void DepthScalingView::readRunAxes(std::vector<int64_t> runs) {
  axes_pending_ = true;
  redraw();  // the last sweep's figures cleared
  note_->setText(QStringLiteral("Reading sweep %1 ...").arg(sweep_->currentText()));
  worker_->request([this, runs = std::move(runs), asked = ++axes_asked_]() -> StoreWorker::Job {
    return read_then_show<std::map<int64_t, RunAxes>>(
        [runs](const db::Store& store) {
          std::map<int64_t, RunAxes> read;
          for (int64_t run : runs) read[run] = read_run_axes(store, run);
          return read;
        },
        [this, asked](const auto& get) {
          if (asked != axes_asked_) return;  // another sweep's, or the last store's
          axes_pending_ = false;
          try {
            for (auto& [run, axes] : get()) run_axes_[run] = std::move(axes);
          } catch (const std::exception& e) {
            note_->setText(describe_store_error(e));
            emit error(describe_store_error(e));
            return;
          }
          sweepChanged();
        });
  });
}

bool DepthScalingView::choose(const QString& sweep, const QString& x, const QString& rows,
                              const QString& metric, const QString& budgets) {
  if (sweep_->findText(sweep) < 0 || metric_->findText(metric) < 0) return false;
  sweep_->setCurrentText(sweep);
  waitForResults();  // its runs' axes, read in the worker
  if (x_->findText(x) < 0) return false;
  x_->setCurrentText(x);
  const QString line = rows.isEmpty() ? kOneLine : rows;
  if (rows_->findText(line) < 0) return false;
  budgets_->setText(budgets);
  {
    const QSignalBlocker block_rows(rows_), block_metric(metric_);
    rows_->setCurrentText(line);
    metric_->setCurrentText(metric);
  }
  redraw();
  waitForResults();
  return shown_.has_value();
}

void DepthScalingView::waitForResults() const { worker_->waitIdle(); }

bool DepthScalingView::reading() const { return worker_->busy(); }

void DepthScalingView::saveSettings(QSettings& settings) const {
  // A choice the store did not offer this time is kept for the next that does.
  const auto keep = [](const QComboBox* box, const QString& wanted) {
    return box->currentText().isEmpty() ? wanted : box->currentText();
  };
  settings.setValue("scaling/sweep", keep(sweep_, wanted_sweep_));
  settings.setValue("scaling/x", keep(x_, wanted_x_));
  settings.setValue("scaling/rows", keep(rows_, wanted_rows_));
  settings.setValue("scaling/metric", metric_->currentText());
  settings.setValue("scaling/budgets", budgets_->text());
  settings.setValue("scaling/bestVariant", best_variant_->isChecked());
  settings.setValue("scaling/where", where_->text());
}

void DepthScalingView::restoreSettings(const QSettings& settings) {
  const QSignalBlocker block_metric(metric_), block_best(best_variant_);
  if (const QString metric = settings.value("scaling/metric").toString();
      metric_->findText(metric) >= 0)
    metric_->setCurrentText(metric);
  budgets_->setText(settings.value("scaling/budgets").toString());
  best_variant_->setChecked(settings.value("scaling/bestVariant", false).toBool());
  where_->setText(settings.value("scaling/where").toString());
  wanted_sweep_ = settings.value("scaling/sweep").toString();
  wanted_x_ = settings.value("scaling/x").toString();
  wanted_rows_ = settings.value("scaling/rows").toString();
}

QString DepthScalingView::noteText() const { return note_->text(); }

void DepthScalingView::redraw() {
  ++asked_;
  shown_.reset();
  extend_->setEnabled(false);
  for (QCustomPlot* p : {budgets_plot_, scaling_plot_}) {
    plot::clear_plottables(*p);
    p->replot();
  }
  if (!session_ || sweep_->currentText().isEmpty()) return;
  if (axes_pending_) return;  // sweepChanged() redraws once the runs' axes are read
  if (x_->currentText().isEmpty()) {
    note_->setText(withDepthNote(QStringLiteral("Sweep %1 has no numeric axis with three values "
                                                "or more: nothing to find a best depth along.")
                                     .arg(sweep_->currentText())));
    return;
  }
  note_->setText(QStringLiteral("Reading sweep %1 ...").arg(sweep_->currentText()));
  // The choices are taken when the read is sent: a later change replaces a read not yet sent.
  worker_->request([this]() -> StoreWorker::Job {
    plot::BudgetsQuery q;
    q.sweep = sweep_->currentText().toStdString();
    q.x = x_->currentText().toStdString();
    q.rows = rows_->currentText() == kOneLine ? "" : rows_->currentText().toStdString();
    q.metric = metric_->currentText().toStdString();
    q.agg = best_variant_->isChecked() ? experiments::CellAgg::Best : experiments::CellAgg::Mean;
    q.where = where_->text().trimmed().toStdString();
    std::vector<db::RunRecord> of_sweep;
    for (const auto& r : runs_)
      if (r.sweep == q.sweep) of_sweep.push_back(r);
    const std::vector<int64_t> finished = experiments::finished_runs(of_sweep);
    return [this, q, finished, budgets = budgets_->text(),
            asked = asked_](const db::Store* store) -> std::function<void()> {
      auto drawn = std::make_shared<Drawn>();
      try {
        if (!store) throw std::runtime_error("the store is busy (another process holds it)");
        plot::BudgetsQuery read = q;
        std::string fallback;
        read.budgets = budgets_of(budgets, *store, finished, &fallback);
        drawn->made = plot::budgets_figure(*store, read);
        if (!fallback.empty())
          drawn->made->notes.insert(drawn->made->notes.begin(), std::move(fallback));
        drawn->budgets = read.budgets;
      } catch (const std::exception& e) {
        // A filter or a budget being typed, or a budget no run reached, is no store error.
        if (auto bad_filter = where_error(e)) {
          drawn->note = *bad_filter;
        } else if (const auto* bad = dynamic_cast<const InputError*>(&e)) {
          const std::string& field = bad->field();  // "--at" said as "at"
          drawn->note = QString::fromStdString(
              (field.rfind("--", 0) == 0 ? field.substr(2) : field) + ": " + bad->message());
        } else {
          drawn->note = describe_store_error(e);
          drawn->store_error = true;
        }
      }
      return [this, drawn, asked] {
        if (asked == asked_) showDrawn(*drawn);
      };
    };
  });
}

QString DepthScalingView::depthAxis() const { return x_->currentText(); }

void DepthScalingView::showDrawn(const Drawn& drawn) {
  if (!drawn.made) {
    note_->setText(withDepthNote(drawn.note));
    if (drawn.store_error) emit error(drawn.note);
    return;
  }
  shown_ = drawn.made;
  shown_budgets_ = drawn.budgets;
  // Where the extension is read: a line's best depth at an end of its grid at the largest budget.
  const auto& at = shown_->optimum_budgets;
  const double largest = at.empty() ? 0 : *std::max_element(at.begin(), at.end());
  bool open_end = false;
  for (size_t i = 0; i < shown_->optima.size(); ++i)
    open_end = open_end || (at[i] == largest && shown_->optima[i].points >= 3 &&
                            !shown_->optima[i].best.bracketed);
  extend_->setEnabled(open_end);
  drawFigures();
  showText(*shown_);
}

void DepthScalingView::drawFigures() {
  if (!shown_) return;
  plot::setup_plot(*budgets_plot_, shown_->figure, screen_style(font()));
  budgets_plot_->replot();
  const std::optional<plot::LineFigure> scaling = scalingFigure();
  if (!scaling) return;  // bare axes say nothing: the notes say why there is no exponent
  plot::setup_plot(*scaling_plot_, *scaling, screen_style(font()));
  scaling_plot_->replot();
}

std::optional<plot::LineFigure> DepthScalingView::scalingFigure() const {
  if (!shown_ || shown_->scalings.empty()) return std::nullopt;
  plot::LineFigure f = plot::optimum_scaling_figure(shown_->scalings);
  if (f.series.empty()) return std::nullopt;  // no line's best depth is bracketed anywhere
  return f;
}

void DepthScalingView::showText(const plot::BudgetsFigure& made) {
  QStringList lines;
  for (const auto& o : made.optima) lines << QString::fromStdString(o.text());
  if (made.scalings.empty())
    lines << QStringLiteral(
        "How the best depth grows with the budget needs three budgets or "
        "more of one axis.");
  for (const auto& s : made.scalings)
    lines << QStringLiteral("Exponent, ") + QString::fromStdString(s.text());
  for (const auto& n : made.notes) lines << QString::fromStdString(n);
  note_->setText(withDepthNote(lines.join(QStringLiteral("\n"))));
}

QString DepthScalingView::withDepthNote(const QString& note) const {
  if (experiments::names_a_depth(x_->currentText().toStdString())) return note;
  return few_depths_ + note;
}

void DepthScalingView::extendDepths() {
  const QString file = choose_sweep_file(this, sweep_->currentText());
  if (!file.isEmpty()) extendDepthsFrom(file);
}

QString DepthScalingView::extendDepthsFrom(const QString& sweep_file) {
  if (!session_ || shown_budgets_.empty()) return {};
  return offer_extension(this, QStringLiteral("Extend depths"), [&] {
    experiments::AxisExtensionRequest r;
    r.sweep_file = sweep_file.toStdString();
    r.name = sweep_->currentText().toStdString();
    r.axis = x_->currentText().toStdString();
    r.metric = metric_->currentText().toStdString();
    // The largest budget shown: where the best depth is read for the runs to come.
    r.reading.at = *std::max_element(shown_budgets_.begin(), shown_budgets_.end(),
                                     [](const auto& a, const auto& b) { return a.x < b.x; });
    r.one_line = rows_->currentText() == kOneLine;
    if (!r.one_line) r.lines = rows_->currentText().toStdString();
    r.where = where_->text().trimmed().toStdString();
    r.agg = best_variant_->isChecked() ? experiments::CellAgg::Best : experiments::CellAgg::Mean;
    const std::string out = experiments::free_extension_path(r.sweep_file);
    r.out_dir = std::filesystem::absolute(out).parent_path().string();
    const auto x = experiments::plan_axis_extension(session_->store, r);
    ExtensionOffer offer{out,
                         x.text,
                         x.set,
                         x.file.runs.size(),
                         {},
                         QStringLiteral("one depth beyond the grid's end at %1 for")
                             .arg(QString::fromStdString(experiments::budget_text(*r.reading.at)))};
    for (const auto& e : x.file.extends) offer.lines << QString::fromStdString(e);
    for (const auto& n : x.notes) offer.lines << QString::fromStdString(n);
    return offer;
  });
}

}  // namespace fathom::gui

#include "moc_depth_scaling_view.cpp"  // moc output for depth_scaling_view.h: compiled in this unit
