#pragma once
// Item-data roles the app's models share beyond Qt's own.
#include <Qt>

namespace fathom::gui {

// A cell's value for a data file: the number itself where the cell shows a formatted one
// ("236,032", "2.793 @330"). Models answer it where they have such numbers; a CSV export of a
// table writes it (gui/export_targets.h).
inline constexpr int kRawValueRole = Qt::UserRole + 64;
// A header's name on one line where it shows on several (a zip group's joined keys wrapped at
// their '+'): what exports write as the column's name.
inline constexpr int kHeaderNameRole = Qt::UserRole + 65;

}  // namespace fathom::gui
