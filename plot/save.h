#pragma once
// Saving a set-up QCustomPlot as PNG, PDF or SVG at a physical size. The plot is laid out in
// logical pixels at the screen's logical DPI (the DPI Qt measures text with), so 8 pt text is
// 8 pt on paper; PNG output is that layout scaled to the requested DPI.
#include <QImage>
#include <string>

#include "plot/output_format.h"
#include "plot/size.h"

class QCustomPlot;

namespace fathom::plot {

// The size in logical pixels a plot is laid out at (resize an offscreen plot to it before setup).
QSize logical_size(const FigureSize& size);

// round(width_in * dpi) x round(height_in * dpi) pixels, white background.
QImage render_image(QCustomPlot& plot, const FigureSize& size, int dpi);

// Writes `path` in the format of its extension; dpi applies to PNG only. An unwritable path
// throws fathom::InputError.
void save_plot(QCustomPlot& plot, const std::string& path, const FigureSize& size, int dpi = 300);

}  // namespace fathom::plot
