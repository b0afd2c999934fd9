#include "gui/run_pages.h"

#include <QWidget>

#include "db/run_paths.h"
#include "gui/run_page.h"

namespace fathom::gui {

RunPages::RunPages(QWidget* owner) : QObject(owner), owner_(owner) {}

// The pages are the owner's children: they go with it.
RunPages::~RunPages() = default;

RunPage* RunPages::open(db::Store& store, const db::RunRecord& run,
                        const std::vector<db::RunRecord>& all, const QString& location) {
  location_ = location;
  auto found = pages_.find(run.id);
  if (found != pages_.end() && found->second) {
    found->second->refresh(run);
    found->second->raise();
    found->second->activateWindow();
    return found->second;
  }
  std::string run_dir;
  try {  // a server store without an artifacts root has no run directory to show
    run_dir = db::store_paths(location.toStdString()).run_dir(run.id);
  } catch (const std::exception&) {
  }
  // A window of its own (Qt::Window), owned by the workbench so it closes with it.
  auto* page = new RunPage(store, run, all, run_dir, owner_);
  page->setAttribute(Qt::WA_DeleteOnClose);
  page->showProbes(location);
  pages_[run.id] = page;
  page->show();
  return page;
}

void RunPages::setStore(db::Store* store, const QString& location) {
  if (store && location != location_) {
    closeAll();
    location_ = location;
  }
  for (const auto& [id, page] : pages_)
    if (page) page->setStore(store);
}

void RunPages::refresh(const std::vector<db::RunRecord>& runs) {
  for (auto it = pages_.begin(); it != pages_.end();) {
    if (!it->second) {  // closed by the user
      it = pages_.erase(it);
      continue;
    }
    for (const auto& r : runs)
      if (r.id == it->first) it->second->refresh(r);
    ++it;
  }
}

std::vector<RunPage*> RunPages::pages() const {
  std::vector<RunPage*> out;
  for (const auto& [id, page] : pages_)
    if (page) out.push_back(page);
  return out;
}

void RunPages::closeAll() {
  for (auto& [id, page] : pages_)
    if (page) page->close();
  pages_.clear();
}

}  // namespace fathom::gui

#include "moc_run_pages.cpp"  // moc output for run_pages.h: compiled in this unit
