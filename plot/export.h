#pragma once
// Drawing a figure straight to a file, without Qt in the caller's headers (the CLI uses this).
#include <string>

#include "plot/figure.h"
#include "plot/output_format.h"
#include "plot/size.h"

namespace fathom::plot {

struct ExportOptions {
  FigureSize size = kColumnSize;  // --size column|page|WxH
  int dpi = 300;                  // PNG only
};

// Creates an offscreen QApplication if needed, sets up a QCustomPlot for `figure` and writes it
// in the format of `path`'s extension (.png, .pdf, .svg).
void export_figure(const Figure& figure, const std::string& path,
                   const ExportOptions& options = {});

}  // namespace fathom::plot
