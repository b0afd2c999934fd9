#include "plot/save.h"

#include <QFile>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <cmath>

#include <qcustomplot.h>

#include "base/util/error.h"
#include "plot/style.h"

namespace fathom::plot {
namespace {

double logical_dpi() { return px_per_pt() * 72.0; }

// Vector devices: no cached layer pixmaps, every element drawn as paths and text.
void paint_vector(QCustomPlot& plot, QPaintDevice& device, const QSize& logical) {
  QCPPainter painter(&device);
  painter.setMode(QCPPainter::pmVectorized);
  painter.setMode(QCPPainter::pmNoCaching);
  plot.toPainter(&painter, logical.width(), logical.height());
  painter.end();
}

void check_written(const std::string& path) {
  if (!QFile::exists(QString::fromStdString(path)))
    throw InputError(path, 0, "--out", "could not write the figure (does the folder exist?)");
}

}  // namespace

QSize logical_size(const FigureSize& size) {
  return QSize(static_cast<int>(std::lround(size.width_in * logical_dpi())),
               static_cast<int>(std::lround(size.height_in * logical_dpi())));
}

QImage render_image(QCustomPlot& plot, const FigureSize& size, int dpi) {
  const QSize logical = logical_size(size);
  const QSize pixels(static_cast<int>(std::lround(size.width_in * dpi)),
                     static_cast<int>(std::lround(size.height_in * dpi)));
  QImage image(pixels, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  {
    QCPPainter painter(&image);
    painter.setMode(QCPPainter::pmNoCaching);
    painter.setMode(QCPPainter::pmNonCosmetic);  // pens scale with the painter, like text
    painter.scale(double(pixels.width()) / logical.width(),
                  double(pixels.height()) / logical.height());
    plot.toPainter(&painter, logical.width(), logical.height());
  }
  // Record the print resolution (after painting: text was measured at the logical DPI).
  const int dots_per_metre = static_cast<int>(std::lround(dpi / 0.0254));
  image.setDotsPerMeterX(dots_per_metre);
  image.setDotsPerMeterY(dots_per_metre);
  return image;
}

void save_plot(QCustomPlot& plot, const std::string& path, const FigureSize& size, int dpi) {
  const Format format = format_for_path(path);
  const QString file = QString::fromStdString(path);
  const QSize logical = logical_size(size);
  // A file antialiased throughout; a plot on screen that draws thousands of lines without it
  // (the Parallel tab) gets its own setting back after, even where the write fails.
  struct RestoreAntialiasing {
    QCustomPlot& plot;
    QCP::AntialiasedElements on = plot.antialiasedElements(), off = plot.notAntialiasedElements();
    ~RestoreAntialiasing() {
      plot.setAntialiasedElements(on);
      plot.setNotAntialiasedElements(off);
    }
  } restore{plot};
  plot.setAntialiasedElements(QCP::aeAll);
  QFile::remove(file);  // so a failed write cannot leave an old figure looking new
  switch (format) {
    case Format::Png:
      if (!render_image(plot, size, dpi).save(file, "PNG"))
        throw InputError(path, 0, "--out", "could not write the PNG (does the folder exist?)");
      break;
    case Format::Pdf: {
      QPdfWriter writer(file);
      writer.setCreator(QStringLiteral("Fathom"));
      writer.setPageLayout(
          QPageLayout(QPageSize(QSizeF(size.width_in, size.height_in), QPageSize::Inch),
                      QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
      writer.setResolution(static_cast<int>(std::lround(logical_dpi())));
      paint_vector(plot, writer, logical);
      break;
    }
    case Format::Svg: {
      QSvgGenerator svg;
      svg.setFileName(file);
      svg.setTitle(QStringLiteral("Fathom figure"));
      svg.setSize(logical);
      svg.setViewBox(QRect(QPoint(0, 0), logical));
      svg.setResolution(static_cast<int>(std::lround(logical_dpi())));
      paint_vector(plot, svg, logical);
      break;
    }
  }
  check_written(path);
}

}  // namespace fathom::plot
