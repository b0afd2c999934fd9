#pragma once
// Answering the app's modal message boxes from a test: the code under test opens one (a
// question, a warning) and waits in its own event loop; a timer set before the call clicks
// the box's button once it is open. Header-only.
#include <QAbstractButton>
#include <QApplication>
#include <QMessageBox>
#include <QString>
#include <QTimer>

namespace fathom::testing {

// Clicks `button` of the next message box to open, polling every 10 ms for up to 5 s; *seen
// (when given) says whether one opened and *text (when given) keeps its text.
inline void answer_next_message_box(QMessageBox::StandardButton button, bool* seen = nullptr,
                                    QString* text = nullptr, int tries = 500) {
  QTimer::singleShot(10, [button, seen, text, tries] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (!box) {
      if (tries > 1) answer_next_message_box(button, seen, text, tries - 1);
      return;
    }
    if (seen) *seen = true;
    if (text) *text = box->text();
    QAbstractButton* b = box->button(button);
    (b ? b : box->buttons().front())->click();  // a note has only its one button
  });
}

}  // namespace fathom::testing
