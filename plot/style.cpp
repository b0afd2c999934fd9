#include "plot/style.h"

#include <QGuiApplication>
#include <QScreen>
#include <algorithm>
#include <cmath>
#include <iterator>

namespace fathom::plot {

QFont figure_font(const Style& style, double pt) {
  QFont font;
  font.setFamilies(style.font_families);
  font.setStyleHint(QFont::Serif);
  font.setPointSizeF(pt);
  return font;
}

QColor series_colour(int i) {
  // Okabe & Ito (2008) first, ordered so neighbours differ strongly in lightness; then Tol's
  // "muted" and "dark" schemes (Tol 2021, SRON/EPS/TN/09-002), which keep their distance from
  // them: 20 colours before one repeats.
  static const QColor colours[] = {
      QColor(0x00, 0x72, 0xB2), QColor(0xE6, 0x9F, 0x00), QColor(0x00, 0x9E, 0x73),
      QColor(0xD5, 0x5E, 0x00), QColor(0xCC, 0x79, 0xA7), QColor(0x56, 0xB4, 0xE9),
      QColor(0x00, 0x00, 0x00), QColor(0x88, 0x22, 0x55), QColor(0x11, 0x77, 0x33),
      QColor(0x33, 0x22, 0x88), QColor(0xDD, 0xCC, 0x77), QColor(0x44, 0xAA, 0x99),
      QColor(0xCC, 0x66, 0x77), QColor(0x99, 0x99, 0x33), QColor(0xAA, 0x44, 0x99),
      QColor(0x88, 0xCC, 0xEE), QColor(0x22, 0x22, 0x55), QColor(0x66, 0x33, 0x33),
      QColor(0x22, 0x55, 0x55), QColor(0x66, 0x66, 0x33)};
  return colours[i % kSeriesColours];
}

Qt::PenStyle series_dash(int i) {
  static const Qt::PenStyle dashes[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine,
                                        Qt::DashDotDotLine};
  // Within one round of colours the dash varies with them (a grey print still tells series
  // apart); each later round shifts it, so a repeated colour never comes with its old dash.
  return dashes[(i % 5 + i / kSeriesColours) % 5];
}

QCPScatterStyle::ScatterShape series_marker(int i) {
  static const QCPScatterStyle::ScatterShape shapes[] = {
      QCPScatterStyle::ssCircle,  QCPScatterStyle::ssSquare, QCPScatterStyle::ssTriangle,
      QCPScatterStyle::ssDiamond, QCPScatterStyle::ssCross,  QCPScatterStyle::ssTriangleInverted,
      QCPScatterStyle::ssPlus};
  static_assert(std::size(shapes) == kSeriesMarkers);
  return shapes[i % kSeriesMarkers];
}

double px_per_pt() {
  const QScreen* screen = QGuiApplication::primaryScreen();
  return (screen ? screen->logicalDotsPerInchY() : 96.0) / 72.0;
}

QPen series_pen(int colour_index, int dash_index, const Style& style) {
  QPen pen(series_colour(colour_index), style.line_width_pt * px_per_pt(), series_dash(dash_index));
  pen.setCapStyle(Qt::FlatCap);
  pen.setJoinStyle(Qt::RoundJoin);
  return pen;
}

QCPScatterStyle series_scatter(int colour_index, int marker_index, const Style& style) {
  const QColor colour = series_colour(colour_index);
  // Filled markers, except open ones whose shape has no inside (cross, plus).
  QPen pen(colour, 0.8 * px_per_pt());
  return QCPScatterStyle(series_marker(marker_index), pen, QBrush(colour),
                         style.marker_pt * px_per_pt());
}

namespace {
// Viridis (van der Walt & Smith, matplotlib) sampled at nine points; luminance rises monotonically.
struct Stop {
  double t;
  int rgb;
};
constexpr Stop kStops[] = {{0.0, 0x440154},   {0.125, 0x472D7B}, {0.25, 0x3B528B},
                           {0.375, 0x2C728E}, {0.5, 0x21908C},   {0.625, 0x27AD81},
                           {0.75, 0x5DC863},  {0.875, 0xAADC32}, {1.0, 0xFDE725}};
}  // namespace

QColor gradient_colour(double t) {
  t = std::clamp(std::isnan(t) ? 0.0 : t, 0.0, 1.0);
  size_t k = 1;
  while (k + 1 < std::size(kStops) && kStops[k].t < t) ++k;
  const Stop& a = kStops[k - 1];
  const Stop& b = kStops[k];
  const double u = (t - a.t) / (b.t - a.t);
  auto mix = [&](int shift) {
    const int ca = (a.rgb >> shift) & 0xFF, cb = (b.rgb >> shift) & 0xFF;
    return static_cast<int>(std::lround(ca + u * (cb - ca)));
  };
  return QColor(mix(16), mix(8), mix(0));
}

QCPColorGradient heatmap_gradient() {
  QCPColorGradient gradient;
  gradient.clearColorStops();
  for (const Stop& s : kStops) gradient.setColorStopAt(s.t, QColor(QRgb(s.rgb)));
  gradient.setColorInterpolation(QCPColorGradient::ciRGB);
  gradient.setNanHandling(QCPColorGradient::nhTransparent);
  gradient.setLevelCount(256);
  return gradient;
}

void style_axis(QCPAxis* axis, const Style& style, bool grid) {
  const QFont font = figure_font(style, style.font_pt);
  axis->setLabelFont(font);
  axis->setTickLabelFont(font);
  const double px = px_per_pt();
  QPen black(Qt::black, 0.6 * px);
  axis->setBasePen(black);
  axis->setTickPen(black);
  axis->setSubTickPen(QPen(Qt::black, 0.4 * px));
  // Ticks point inwards, as in most journals' figures.
  axis->setTickLengthIn(static_cast<int>(std::lround(3 * px)));
  axis->setTickLengthOut(0);
  axis->setSubTickLengthIn(static_cast<int>(std::lround(1.5 * px)));
  axis->setSubTickLengthOut(0);
  axis->setTickLabelPadding(static_cast<int>(std::lround(2 * px)));
  axis->setLabelPadding(static_cast<int>(std::lround(2 * px)));
  axis->grid()->setVisible(grid);
  axis->grid()->setPen(QPen(QColor(0xDD, 0xDD, 0xDD), 0.4 * px, Qt::SolidLine));
  axis->grid()->setSubGridVisible(false);
  axis->grid()->setZeroLinePen(Qt::NoPen);
}

void style_legend(QCPLegend* legend, const Style& style) {
  legend->setFont(figure_font(style, style.font_pt));
  legend->setBrush(QBrush(QColor(255, 255, 255, 220)));
  legend->setBorderPen(QPen(QColor(0x99, 0x99, 0x99), 0.5 * px_per_pt()));
  const int pad = static_cast<int>(std::lround(2 * px_per_pt()));
  legend->setMargins(QMargins(pad, pad, pad, pad));
  legend->setRowSpacing(0);
  legend->setIconSize(static_cast<int>(std::lround(16 * px_per_pt())),
                      static_cast<int>(std::lround(style.font_pt * px_per_pt())));
}

}  // namespace fathom::plot
