#include "plot/export.h"

#include <qcustomplot.h>

#include "plot/headless.h"
#include "plot/plot_widget.h"
#include "plot/render.h"
#include "plot/save.h"

namespace fathom::plot {

void export_figure(const Figure& figure, const std::string& path, const ExportOptions& options) {
  format_for_path(path);  // a bad extension fails before Qt starts
  ensure_application(/*force_offscreen=*/true);
  PlotWidget plot;
  plot.resize(logical_size(options.size));  // the legend's layout depends on the width
  setup_plot(plot, figure);
  save_plot(plot, path, options.size, options.dpi);
}

}  // namespace fathom::plot
