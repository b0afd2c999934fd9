#include "gui/screen_style.h"

namespace fathom::gui {

plot::Style screen_style(const QFont& font) {
  plot::Style style;
  style.font_pt = 9;
  style.title_pt = 10;
  style.font_families.prepend(font.family());
  return style;
}

}  // namespace fathom::gui
