#pragma once
// The comparison view: pick a sweep, a row axis, a column axis and a final metric; each cell
// shows the metric's mean +- std over the runs there (seeds), with diverged runs counted
// apart, and the best cell in bold.
#include <map>
#include <string>
#include <vector>

#include <QWidget>

#include "db/store.h"

class QComboBox;
class QTableWidget;

namespace fathom::gui {

struct StoreSession;

class ComparisonView : public QWidget {
  Q_OBJECT
 public:
  explicit ComparisonView(QWidget* parent = nullptr);

  void setSession(StoreSession* session);
  // Every run of the store (the runs view's poll); redraws when something changed.
  void setRuns(const std::vector<db::RunRecord>& runs);
  QTableWidget* table() const { return table_; }
  // Chooses the sweep, axes and metric by name (e.g. for screenshots); false if one is absent.
  bool choose(const QString& sweep, const QString& rows, const QString& cols, const QString& metric);

 signals:
  void error(const QString& message);

 private:
  void sweepChanged();
  void redraw();
  static void refill(QComboBox* box, const QStringList& items);

  StoreSession* session_ = nullptr;
  std::vector<db::RunRecord> all_, runs_;  // all runs; those of the chosen sweep
  std::map<int64_t, std::map<std::string, std::string>> tags_;
  QComboBox *sweep_, *rows_, *cols_, *metric_;
  QTableWidget* table_;
};

}  // namespace fathom::gui
