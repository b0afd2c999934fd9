#pragma once
// The on-screen style of the app's figures: a paper figure's layout (plot/style.h) with
// screen-sized fonts in the window's own font family.
#include <QFont>

#include "plot/style.h"

namespace fathom::gui {

plot::Style screen_style(const QFont& font);

}  // namespace fathom::gui
