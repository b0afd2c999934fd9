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

}  // namespace

ImportanceFigure importance_figure(const experiments::HparamImportance& h) {
  ImportanceFigure f;
  f.title =
      h.metric + ": " + std::to_string(h.cells) + " settings, " + std::to_string(h.runs) + " runs";
  for (const auto& term : h.terms) {
    std::string name;
    for (size_t i = 0; i < term.axes.size(); ++i)
      name += (i ? " x " : "") + axis_short_name(term.axes[i]);
    f.bars.push_back(
        {name, term.share,
         term.axes.size() == 1 ? ImportanceBar::Kind::kMain : ImportanceBar::Kind::kPair});
  }
  // With two axes the main effects and the pair are the whole of V: no rest to show.
  if (h.axes.size() > 2)
    f.bars.push_back({"3 or more axes", h.higher_order_share, ImportanceBar::Kind::kRest});
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
  const int n = static_cast<int>(f.bars.size());
  // The first bar at the top: keys n-1 down to 0 on the (vertical) key axis.
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  double longest = 0.01;
  for (int i = 0; i < n; ++i) {
    const ImportanceBar& bar = f.bars[static_cast<size_t>(i)];
    const double key = n - 1 - i;
    ticker->addTick(key, detail::qstr(bar.label));
    auto* bars = new QCPBars(plot.yAxis, plot.xAxis);  // horizontal: keys up the y axis
    const double percent = std::isfinite(bar.share) ? 100 * bar.share : kNaN;
    bars->setData(QVector<double>{key}, QVector<double>{percent}, true);
    bars->setWidth(0.7);
    bars->setBrush(kind_colour(bar.kind));
    bars->setPen(QPen(Qt::black, 0.5 * px_per_pt()));
    bars->setName(detail::qstr(bar.label));
    bars->removeFromLegend();
    if (std::isfinite(percent)) longest = std::max(longest, percent);
    auto* value = new QCPItemText(&plot);
    value->position->setType(QCPItemPosition::ptPlotCoords);
    value->position->setAxes(plot.xAxis, plot.yAxis);
    value->position->setCoords(std::isfinite(percent) ? std::max(percent, 0.0) : 0, key);
    value->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    value->setPadding(QMargins(static_cast<int>(std::lround(2 * px_per_pt())), 0, 0, 0));
    value->setFont(figure_font(style, style.font_pt * 0.9));
    value->setText(percent_text(bar.share));
  }
  plot.yAxis->setTicker(ticker);
  plot.yAxis->setSubTicks(false);
  plot.yAxis->setTickLengthIn(0);
  plot.yAxis2->setTicks(false);
  plot.yAxis->setRange(-0.6, n - 0.4);
  // Room right of the longest bar for its printed value.
  plot.xAxis->setRange(0, longest * 1.22);
  plot.xAxis->setLabel(QStringLiteral("% of the variance between settings"));
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
