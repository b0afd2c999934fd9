#include "gui/app_icon.h"

// Resources compiled into a static library are registered only when asked for by name.
static void init_fathom_resources() { Q_INIT_RESOURCE(fathom); }

namespace fathom::gui {

QIcon app_icon() {
  init_fathom_resources();
  return QIcon(QStringLiteral(":/icons/fathom.svg"));
}

}  // namespace fathom::gui
