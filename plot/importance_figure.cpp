#include "plot/importance_figure.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "plot/comparison_chart.h"
#include "plot/headless.h"
#include "plot/output_format.h"
#include "plot/plot_widget.h"
#include "plot/render_common.h"
#include "plot/save.h"
#include "plot/style.h"

namespace fathom::plot {
namespace {

QString percent_text(double share) {
  if (!std::isfinite(share)) return QStringLiteral("n/a");
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %%", 100 * share);
  return QString::fromUtf8(text);
}

// Main effects, pairs, the rest and the seeds each in a colour of their own (Okabe-Ito, apart
// in grey too); the seeds' bar lighter, as it is no term of the decomposition.
QColor kind_colour(ImportanceBar::Kind kind) {
  switch (kind) {
    case ImportanceBar::Kind::kMain:
      return series_colour(0);
    case ImportanceBar::Kind::kPair:
      return series_colour(1);
    case ImportanceBar::Kind::kRest:
      return QColor(150, 150, 150);
    case ImportanceBar::Kind::kSeeds:
      return QColor(225, 225, 225);
  }
  return Qt::gray;
}

// An axis by its keys' last parts, as the comparison chart names it, with a suffix its keys
// share said once: "model.encoder_layers+model.decoder_layers" -> "encoder/decoder_layers".
std::string bar_axis_name(const std::string& axis) {
  const std::string joined = axis_short_name(axis);
  std::vector<std::string> parts;
  for (size_t begin = 0; begin <= joined.size();) {
    const size_t end = std::min(joined.find('/', begin), joined.size());
    parts.push_back(joined.substr(begin, end - begin));
    begin = end + 1;
  }
  if (parts.size() < 2) return joined;
  const std::string& last = parts.back();
  const size_t cut = last.rfind('_');
  if (cut == std::string::npos || cut == 0) return joined;
  const std::string suffix = last.substr(cut);  // "_layers"
  std::string name;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    const bool shared =
        p.size() > suffix.size() && p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0;
    if (!shared) return joined;
    name += (i ? "/" : "") + (i + 1 < parts.size() ? p.substr(0, p.size() - suffix.size()) : p);
  }
  return name;
}

// How the tick labels and the x range fit the plot's size: a label wider than 45 % of the
// plot goes on two lines at its " x " where two lines fit a bar's row, and each line still
// wider is elided in the middle; the x axis leaves room right of the longest bar for its printed
// value.
struct Fit {
  std::vector<QString> labels;
  double x_max = 1;
};

Fit fit_to_size(const QCustomPlot& plot, const ImportanceFigure& f, const QFont& tick_font,
                const QFont& value_font) {
  const QFontMetricsF ticks(tick_font), values(value_font);
  const double width = std::max(plot.width(), 200), height = std::max(plot.height(), 150);
  const double widest = 0.45 * width;
  // Title, axis and its label take about 5 lines; the rest is shared by the bars' rows.
  const double row = (height - 5 * ticks.height()) / std::max<size_t>(1, f.bars.size());
  const bool two_lines_fit = row >= 2 * ticks.height();
  Fit fit;
  double label_width = 0, value_width = 0, longest = 0.01;
  for (const auto& bar : f.bars) {
    QString text = detail::qstr(bar.label);
    if (ticks.horizontalAdvance(text) > widest) {
      if (two_lines_fit && text.contains(QStringLiteral(" x ")))
        text.replace(QStringLiteral(" x "), QStringLiteral(" x\n"));
      // Each line, wrapped or not, within the width (a wrapped term's axis may still be wider).
      QStringList lines = text.split('\n');
      for (QString& line : lines) line = ticks.elidedText(line, Qt::ElideMiddle, widest);
      text = lines.join('\n');
    }
    for (const QString& line : text.split('\n'))
      label_width = std::max(label_width, ticks.horizontalAdvance(line));
    fit.labels.push_back(text);
    value_width = std::max(value_width, values.horizontalAdvance(percent_text(bar.share)));
    if (std::isfinite(bar.share)) longest = std::max(longest, 100 * bar.share);
    if (std::isfinite(bar.hi)) longest = std::max(longest, 100 * bar.hi);  // its error bar
  }
  // The axis rect: the plot less the labels, their padding and the margins.
  const double rect = std::max(width - label_width - 3 * ticks.height(), 0.3 * width);
  const double text = value_width + 3 * px_per_pt();
  fit.x_max = longest * rect / std::max(rect - text, 0.5 * rect);
  return fit;
}

}  // namespace

std::string importance_term_label(const std::vector<std::string>& axes) {
  std::string name;
  for (size_t i = 0; i < axes.size(); ++i) name += (i ? " x " : "") + bar_axis_name(axes[i]);
  return name;
}

ImportanceFigure importance_figure(const experiments::HparamImportance& h) {
  ImportanceFigure f;
  // Settings the fit predicted are said in the title too: an exported figure has no notes.
  f.title = h.metric + ": " + std::to_string(h.cells) + " settings" +
            (h.filled > 0 ? " (" + std::to_string(h.filled) + " predicted)" : "") + ", " +
            std::to_string(h.runs) + " runs";
  const bool intervals = h.interval_draws > 0;
  for (const auto& term : h.terms) {
    f.bars.push_back(
        {importance_term_label(term.axes), term.share,
         term.axes.size() == 1 ? ImportanceBar::Kind::kMain : ImportanceBar::Kind::kPair});
    if (intervals) f.bars.back().lo = term.share_lo, f.bars.back().hi = term.share_hi;
  }
  // With two axes the main effects and the pair are the whole of V: no rest to show.
  if (h.axes.size() > 2) {
    f.bars.push_back({"3 or more axes", h.higher_order_share, ImportanceBar::Kind::kRest});
    if (intervals) f.bars.back().lo = h.higher_order_lo, f.bars.back().hi = h.higher_order_hi;
  }
  std::stable_sort(
      f.bars.begin(), f.bars.end(),
      [](const ImportanceBar& a, const ImportanceBar& b) { return a.share > b.share; });
  const double seeds = h.total_variance > 0 ? h.seed_variance / h.total_variance : kNaN;
  f.bars.push_back({"seeds (within a setting)", seeds, ImportanceBar::Kind::kSeeds});
  return f;
}

void setup_importance_chart(QCustomPlot& plot, const ImportanceFigure& f, const Style& style) {
  detail::reset_plot(plot, f.title, style);
  style_axis(plot.xAxis, style, true);
  const QFont value_font = figure_font(style, style.font_pt * 0.9);
  const Fit fit = fit_to_size(plot, f, plot.yAxis->tickLabelFont(), value_font);
  const int n = static_cast<int>(f.bars.size());
  // The first bar at the top: keys n-1 down to 0 on the (vertical) key axis.
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  for (int i = 0; i < n; ++i) {
    const ImportanceBar& bar = f.bars[static_cast<size_t>(i)];
    const double key = n - 1 - i;
    ticker->addTick(key, fit.labels[static_cast<size_t>(i)]);
    auto* bars = new QCPBars(plot.yAxis, plot.xAxis);  // horizontal: keys up the y axis
    const double percent = std::isfinite(bar.share) ? 100 * bar.share : kNaN;
    bars->setData(QVector<double>{key}, QVector<double>{percent}, true);
    bars->setWidth(0.7);
    bars->setBrush(kind_colour(bar.kind));
    bars->setPen(QPen(Qt::black, 0.5 * px_per_pt()));
    bars->setName(detail::qstr(bar.label));
    bars->removeFromLegend();
    double end = std::isfinite(percent) ? std::max(percent, 0.0) : 0;
    if (std::isfinite(bar.lo) && std::isfinite(bar.hi) && std::isfinite(percent)) {
      // The interval around the bar's end; the value is printed past it.
      auto* interval = new QCPErrorBars(plot.yAxis, plot.xAxis);
      interval->setErrorType(QCPErrorBars::etValueError);
      interval->setDataPlottable(bars);
      interval->setData(QVector<double>{std::max(percent - 100 * bar.lo, 0.0)},
                        QVector<double>{std::max(100 * bar.hi - percent, 0.0)});
      interval->setPen(QPen(Qt::black, 0.75 * px_per_pt()));
      interval->setWhiskerWidth(6 * px_per_pt());
      interval->setSymbolGap(0);  // one line through the bar's end, not a gap for a marker
      interval->removeFromLegend();
      end = std::max(end, 100 * bar.hi);
    }
    auto* value = new QCPItemText(&plot);
    value->position->setType(QCPItemPosition::ptPlotCoords);
    value->position->setAxes(plot.xAxis, plot.yAxis);
    value->position->setCoords(end, key);
    value->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    value->setPadding(QMargins(static_cast<int>(std::lround(2 * px_per_pt())), 0, 0, 0));
    value->setFont(value_font);
    value->setText(percent_text(bar.share));
  }
  plot.yAxis->setTicker(ticker);
  plot.yAxis->setSubTicks(false);
  plot.yAxis->setTickLengthIn(0);
  plot.yAxis2->setTicks(false);
  plot.yAxis->setRange(-0.6, n - 0.4);
  plot.xAxis->setRange(0, fit.x_max);
  plot.xAxis->setLabel(QStringLiteral("% of the settings' variance"));
}

void export_importance(const ImportanceFigure& figure, const std::string& path,
                       const ExportOptions& options) {
  format_for_path(path);  // a bad extension fails before Qt starts
  ensure_application(/*force_offscreen=*/true);
  PlotWidget plot;
  plot.resize(logical_size(options.size));
  setup_importance_chart(plot, figure, Style{});
  save_plot(plot, path, options.size, options.dpi);
}

}  // namespace fathom::plot
