// The run page's Probes tab (a part of RunPage, gui/run_page.h): the Probes view itself
// (gui/probes_view.h) over this one run -- its heatmaps, lines, head choice and hover -- on a
// read-only connection of the page's own, which the view's reads need as the window's do.
#include <QTabWidget>

#include "gui/probes_view.h"
#include "gui/run_page.h"
#include "gui/store_session.h"

namespace fathom::gui {

RunPage::~RunPage() {
  delete probes_;  // before the session it reads goes
}

void RunPage::showProbes(const QString& location) {
  location_ = location;
  followProbes();
}

void RunPage::followProbes() {
  if (!probes_) {
    if (!store_ || location_.isEmpty()) return;
    try {
      if (store_->probe_names(run_.id).empty()) return;  // none yet: asked again each refresh
    } catch (const std::exception&) {
      return;  // the store is unreadable this poll; the page shows why elsewhere
    }
    QString error;
    probe_session_ = StoreSession::open(location_, &error);
    if (!probe_session_) return;
    probes_ = new ProbesView;
    probes_->setStore(probe_session_.get(), location_);
    tabs_->insertTab(1, probes_, QStringLiteral("&Probes"));
  }
  probes_->showRuns({run_}, {run_});
  probes_->poll();  // a live run's new points
}

}  // namespace fathom::gui
