#pragma once
// A splitter that keeps its widgets at fixed shares of its length until the user drags a
// handle. QSplitter's stretch factors share out only the space that is added after its first
// layout: a view laid out once while narrow (a tab before its window reached its size) with a
// plot whose legend made its size hint wide kept that plot's squeezed neighbour at its minimum
// (the Scaling tab's right plot at 240 of 1100 px, its legend cut and its tick labels run
// together).
#include <QList>

class QSplitter;

namespace fathom::gui {

// `shares`: one weight a widget of `split` (3, 2: three fifths and two fifths). Each resize of
// `split` sets its widgets' sizes to those shares (minimum sizes still hold) until a handle is
// dragged, after which the user's sizes are the splitter's own.
void keep_split_shares(QSplitter* split, const QList<int>& shares);

}  // namespace fathom::gui
