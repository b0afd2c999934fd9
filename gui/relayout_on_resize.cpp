#include "gui/relayout_on_resize.h"

#include <QEvent>
#include <QPointer>
#include <QWidget>

namespace fathom::gui {

RelayoutOnResize::RelayoutOnResize(QWidget* plot, std::function<void()> relayout)
    : QObject(plot), relayout_(std::move(relayout)) {
  plot->installEventFilter(this);
}

bool RelayoutOnResize::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::Resize && !queued_) {
    queued_ = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
          queued_ = false;
          relayout_();
        },
        Qt::QueuedConnection);
  }
  return QObject::eventFilter(watched, event);
}

}  // namespace fathom::gui
