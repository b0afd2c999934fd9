#pragma once
// QCustomPlot is a QWidget, so drawing even an offscreen figure needs a QApplication.

namespace fathom::plot {

// Creates the process's QApplication unless one exists. When the user has not set
// QT_QPA_PLATFORM, the `offscreen` platform is chosen if `force_offscreen` (the CLI never shows a
// window) or if there is no display ($DISPLAY, $WAYLAND_DISPLAY). Throws std::runtime_error when
// a QCoreApplication that is not a QApplication already exists.
void ensure_application(bool force_offscreen = false);

}  // namespace fathom::plot
