#include "gui/split_shares.h"

#include <QResizeEvent>
#include <QSplitter>

#include <numeric>

namespace fathom::gui {

namespace {

class SplitShares : public QObject {
 public:
  SplitShares(QSplitter* split, QList<int> shares)
      : QObject(split), split_(split), shares_(std::move(shares)) {
    // Only a drag moves a handle this way; setSizes does not.
    connect(split, &QSplitter::splitterMoved, this, [this] { dragged_ = true; });
    split->installEventFilter(this);
  }

  // Sizes in pixels that fill the new length: the splitter's own resize handling, which runs
  // next, then has nothing left over to share out by its stretch.
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (watched != split_ || event->type() != QEvent::Resize || dragged_) return false;
    const QSize size = static_cast<QResizeEvent*>(event)->size();
    const int handles = split_->handleWidth() * (split_->count() - 1);
    const int length =
        (split_->orientation() == Qt::Horizontal ? size.width() : size.height()) - handles;
    const int weight = std::accumulate(shares_.begin(), shares_.end(), 0);
    if (length <= 0 || weight <= 0) return false;
    QList<int> sizes;
    for (int share : shares_) sizes << length * share / weight;
    split_->setSizes(sizes);
    return false;
  }

 private:
  QSplitter* split_;
  QList<int> shares_;
  bool dragged_ = false;
};

}  // namespace

void keep_split_shares(QSplitter* split, const QList<int>& shares) {
  split->setSizes(shares);  // until its first resize: the same proportions
  new SplitShares(split, shares);
}

}  // namespace fathom::gui
