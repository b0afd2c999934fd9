#include "gui/frozen_columns.h"

#include <QAbstractItemModel>
#include <QEvent>
#include <QHeaderView>
#include <QScrollBar>
#include <QTableView>

namespace fathom::gui {
namespace {

// Follows the table's model, sizes and scrolling; lives as long as the overlay.
class FrozenOverlay : public QObject {
 public:
  FrozenOverlay(QTableView* table, QTableView* frozen, int count)
      : QObject(frozen), table_(table), frozen_(frozen), count_(count) {
    frozen_->setModel(table_->model());
    frozen_->setSelectionModel(table_->selectionModel());
    frozen_->setFocusPolicy(Qt::NoFocus);
    frozen_->verticalHeader()->hide();
    frozen_->horizontalHeader()->setSectionsClickable(true);
    frozen_->horizontalHeader()->setSortIndicatorShown(table_->isSortingEnabled());
    frozen_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    frozen_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    frozen_->setSelectionBehavior(table_->selectionBehavior());
    frozen_->setSelectionMode(table_->selectionMode());
    frozen_->setEditTriggers(table_->editTriggers());
    frozen_->setAlternatingRowColors(table_->alternatingRowColors());
    frozen_->setWordWrap(table_->wordWrap());
    frozen_->setContextMenuPolicy(Qt::NoContextMenu);
    frozen_->setStyleSheet(QStringLiteral("QTableView { border: none; }"));
    frozen_->verticalHeader()->setDefaultSectionSize(
        table_->verticalHeader()->defaultSectionSize());
    // A click on the overlay's header sorts the table (one model, one order): the same column
    // again flips the order.
    QObject::connect(
        frozen_->horizontalHeader(), &QHeaderView::sectionClicked, this, [this](int column) {
          if (!table_->isSortingEnabled()) return;
          const QHeaderView* h = table_->horizontalHeader();
          const bool flip =
              h->sortIndicatorSection() == column && h->sortIndicatorOrder() == Qt::AscendingOrder;
          table_->sortByColumn(column, flip ? Qt::DescendingOrder : Qt::AscendingOrder);
        });
    // Widths follow each other: the table's header under the overlay cannot be dragged.
    QObject::connect(table_->horizontalHeader(), &QHeaderView::sectionResized, this,
                     [this](int column, int, int width) {
                       if (column < count_) frozen_->setColumnWidth(column, width);
                       place();
                     });
    QObject::connect(frozen_->horizontalHeader(), &QHeaderView::sectionResized, this,
                     [this](int column, int, int width) {
                       if (column < count_) table_->setColumnWidth(column, width);
                     });
    QObject::connect(frozen_->verticalScrollBar(), &QScrollBar::valueChanged,
                     table_->verticalScrollBar(), &QScrollBar::setValue);
    QObject::connect(table_->verticalScrollBar(), &QScrollBar::valueChanged,
                     frozen_->verticalScrollBar(), &QScrollBar::setValue);
    QObject::connect(frozen_, &QTableView::doubleClicked, table_, &QTableView::doubleClicked);
    QAbstractItemModel* model = table_->model();
    // Columns come and go (metric and config columns), and sorting moves the indicator.
    QObject::connect(model, &QAbstractItemModel::modelReset, this, [this] { showOnlyFrozen(); });
    QObject::connect(model, &QAbstractItemModel::layoutChanged, this, [this] { showOnlyFrozen(); });
    QObject::connect(model, &QAbstractItemModel::columnsInserted, this,
                     [this] { showOnlyFrozen(); });
    table_->viewport()->stackUnder(frozen_);
    table_->installEventFilter(this);
    showOnlyFrozen();
  }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (watched == table_ && (event->type() == QEvent::Resize || event->type() == QEvent::Show))
      place();
    return false;
  }

 private:
  void showOnlyFrozen() {
    const int columns = table_->model()->columnCount();
    for (int c = 0; c < columns; ++c) {
      frozen_->setColumnHidden(c, c >= count_);
      if (c < count_) frozen_->setColumnWidth(c, table_->columnWidth(c));
    }
    frozen_->horizontalHeader()->setSortIndicator(
        table_->horizontalHeader()->sortIndicatorSection(),
        table_->horizontalHeader()->sortIndicatorOrder());
    place();
  }

  // Over the table's first columns, from its header's top to its viewport's bottom.
  void place() {
    int width = 0;
    for (int c = 0; c < count_ && c < table_->model()->columnCount(); ++c)
      width += table_->columnWidth(c);
    frozen_->setGeometry(table_->verticalHeader()->width() + table_->frameWidth(),
                         table_->frameWidth(), width,
                         table_->viewport()->height() + table_->horizontalHeader()->height());
    frozen_->setVisible(width > 0);
  }

  QTableView* table_;
  QTableView* frozen_;
  int count_;
};

}  // namespace

QTableView* freeze_first_columns(QTableView* table, int count) {
  // Per pixel: the columns passing under the overlay glide rather than jump a column at a time.
  table->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
  auto* frozen = new QTableView(table);
  new FrozenOverlay(table, frozen, count);
  frozen->show();
  return frozen;
}

}  // namespace fathom::gui
