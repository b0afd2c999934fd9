#pragma once
// Frees what a poll is done with in a pool thread, not on the UI thread: a read of 64,000 runs'
// tags, or the table rows a poll replaced, took the UI thread tens of milliseconds to free.
// For plain data only (no QObject), which any thread may free.
#include <memory>
#include <utility>

#include <QThreadPool>

namespace fathom::gui {

template <typename T>
void free_elsewhere(std::shared_ptr<T> held) {
  if (!held) return;
  QThreadPool::globalInstance()->start([held = std::move(held)]() mutable { held.reset(); });
}

}  // namespace fathom::gui
