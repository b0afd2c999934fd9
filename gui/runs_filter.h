#pragma once
// Sorting and filtering of the runs table: by sweep (one sweep, single runs only, or all) and
// by text (matched against name, status and sweep, case-insensitively).
#include <optional>

#include <QSortFilterProxyModel>

namespace fathom::gui {

class RunsFilter : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit RunsFilter(QObject* parent = nullptr);

  // nullopt: every run; "": runs outside any sweep; else that sweep's runs.
  void setSweep(std::optional<QString> sweep);
  void setText(const QString& text);

 protected:
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override;

 private:
  std::optional<QString> sweep_;
  QString text_;
};

}  // namespace fathom::gui
