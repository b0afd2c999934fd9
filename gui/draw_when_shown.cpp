#include "gui/draw_when_shown.h"

#include <QEvent>
#include <QWidget>

namespace fathom::gui {

DrawWhenShown::DrawWhenShown(QWidget* view) : QObject(view), view_(view) {
  view->installEventFilter(this);
}

bool DrawWhenShown::outOfSight() const {
  return view_->window()->isVisible() && !view_->isVisible();
}

bool DrawWhenShown::defer(std::function<void()> work) {
  pending_key_.clear();
  if (!outOfSight()) {
    pending_ = nullptr;  // the caller's work is newer
    return false;
  }
  pending_ = std::move(work);
  return true;
}

bool DrawWhenShown::eventFilter(QObject* watched, QEvent* event) {
  if (watched == view_ && event->type() == QEvent::Show && pending_) {
    auto work = std::move(pending_);
    pending_ = nullptr;
    work();
  }
  return false;
}

}  // namespace fathom::gui
