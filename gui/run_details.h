#pragma once
// "Open run": everything the store holds about one run -- status and error, final metrics,
// tags, artifacts and the full config -- in a read-only dialog.
#include <QDialog>

#include "db/store.h"

namespace fathom::gui {

class RunDetailsDialog : public QDialog {
  Q_OBJECT
 public:
  RunDetailsDialog(const db::Store& store, const db::RunRecord& run, QWidget* parent = nullptr);
};

}  // namespace fathom::gui
