#pragma once
// Test support: answers the modal message boxes a view opens (its "Extend grid..." question and
// what it wrote), so a test can drive the action as a user clicks through it. Header-only.
#include <QAbstractButton>
#include <QApplication>
#include <QMessageBox>
#include <QTimer>

namespace fathom::testing {

// Answers the next `count` modal message boxes as they open: the first with `button` (the
// question), any after it with its one button (the note saying what was written); gives up
// after `tries` polls 10 ms apart. `seen` counts the boxes answered.
inline void answer_boxes(QMessageBox::StandardButton button, int count, int* seen,
                         int tries = 500) {
  QTimer::singleShot(10, [button, count, seen, tries] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (box) {
      ++*seen;
      QAbstractButton* b = box->button(button);
      (b ? b : box->buttons().front())->click();
    }
    if (*seen < count && tries > 1) answer_boxes(QMessageBox::Ok, count, seen, tries - 1);
  });
}

}  // namespace fathom::testing
