#pragma once
// What "Extend grid..." (LR sensitivity) and "Extend depths..." (Scaling) do once
// `fathom sweep extend`'s file is planned: say what it holds and, when the user says Yes, write
// it beside the sweep file and say how to train it; nothing where there is nothing to extend
// or the user cancels.
#include <functional>
#include <string>

#include <QString>
#include <QStringList>

class QWidget;

namespace fathom::gui {

struct ExtensionOffer {
  std::string out;   // where the file goes
  std::string text;  // the file; "" where nothing is extended
  std::string set;   // the sweep's --set values, which --resume repeats
  size_t runs = 0;
  QStringList lines;  // what it extends, then the notes
  QString what;       // "one rate beyond the grid's end for"
};

// Asks for the file the stored sweep `sweep` was started from; "" when the user cancels.
QString choose_sweep_file(QWidget* parent, const QString& sweep);

// Plans the extension (`plan`: fathom sweep extend's planner, which reads the store) and offers
// it; the path written, or "" (nothing to extend, cancelled, or a warning saying what `plan` or
// the file's writer threw).
QString offer_extension(QWidget* parent, const QString& title,
                        const std::function<ExtensionOffer()>& plan);

}  // namespace fathom::gui
