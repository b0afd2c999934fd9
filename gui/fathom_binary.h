#pragma once
// Where the `fathom` command line is: the GUI starts sweeps and resumes runs through it, so
// they run in the same scheduler and worker processes as from a terminal.
#include <QString>

namespace fathom::gui {

// $FATHOM_BIN, else `fathom` beside fathom-gui (an install) or in ../cli (a build tree),
// else `fathom` in PATH; "" when none is found.
QString find_fathom_binary();

}  // namespace fathom::gui
