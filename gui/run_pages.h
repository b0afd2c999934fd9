#pragma once
// The run pages open beside the workbench (gui/run_page.h): one per run, however many runs,
// each a window of its own. The runs view opens them and, at each poll, hands each its run's
// new record, so a page follows its run while it trains; when the window reconnects to its
// store the pages read the new connection, and a different store closes them.
#include <map>
#include <string>
#include <vector>

#include <QObject>
#include <QPointer>
#include <QString>

#include "db/store.h"

class QWidget;

namespace fathom::gui {

class RunPage;

class RunPages : public QObject {
  Q_OBJECT
 public:
  explicit RunPages(QWidget* owner);
  ~RunPages() override;

  // Shows the run's page -- raised if open already, else made -- and returns it.
  RunPage* open(db::Store& store, const db::RunRecord& run, const std::vector<db::RunRecord>& all,
                const QString& location);
  // The store the window opened (nullptr first, while it closes): pages of the same location
  // read the new connection, others close.
  void setStore(db::Store* store, const QString& location);
  // After a poll: each open page's run as the store has it now.
  void refresh(const std::vector<db::RunRecord>& runs);
  std::vector<RunPage*> pages() const;
  void closeAll();

 private:
  QWidget* owner_;
  QString location_;
  std::map<int64_t, QPointer<RunPage>> pages_;
};

}  // namespace fathom::gui
