#pragma once
// The app's icon (resources/fathom.svg, compiled in from resources/fathom.qrc): the window
// and taskbar icon; the installed desktop entry names the same file (resources/fathom.desktop).
#include <QIcon>

namespace fathom::gui {

QIcon app_icon();

}  // namespace fathom::gui
