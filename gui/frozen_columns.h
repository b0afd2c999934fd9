#pragma once
// Keeps a table's first columns in view while it scrolls sideways (the runs table's id and
// name: with a dozen metric and config columns, a row no longer says which run it is).
//
// A second view of the same model and selection is laid over the table's leftmost columns,
// showing only those; it follows the table's vertical scrolling, column widths and size, so
// the two read as one table.
class QTableView;

namespace fathom::gui {

// Freezes `table`'s first `count` columns; the overlay is a child of `table`, destroyed with it.
// Returns the overlay (for tests).
QTableView* freeze_first_columns(QTableView* table, int count);

}  // namespace fathom::gui
