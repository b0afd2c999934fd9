#pragma once
// What model.norm, model.init and model.connection may name, with each method's one-line
// description, asked once of the `fathom` command line (`fathom --json config --methods`):
// the method registry lives in the training core, which the desktop app does not link, so a
// method registered there (one file plus one line) reaches the sweep editor with no GUI edit.
#include <QList>
#include <QMap>
#include <QString>

namespace fathom::gui {

struct MethodChoice {
  QString name, doc;
};

// Config key -> its registered methods; empty when no `fathom` binary answers (the editor
// then offers none and the Dry run still checks names through the CLI).
const QMap<QString, QList<MethodChoice>>& method_choices();

}  // namespace fathom::gui
