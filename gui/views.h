#pragma once
// The tabs of the main window, in order: one line per view in views.cpp.
#include <functional>
#include <vector>

#include <QString>

class QWidget;

namespace fathom::gui {

class WorkbenchView;

struct ViewEntry {
  QString title;       // the tab's text with its mnemonic, "&Runs"
  QString screenshot;  // its PNG's name in saveScreenshots, "runs.png"
  // Makes the view: a QWidget that is also a WorkbenchView (workbench_view.h).
  std::function<QWidget*()> make;
};

// The first view is the runs table: its selection is what the others show.
const std::vector<ViewEntry>& workbench_views();

// The view interface of a widget made by a ViewEntry; std::logic_error if it lacks one.
WorkbenchView& as_view(QWidget* widget);

}  // namespace fathom::gui
