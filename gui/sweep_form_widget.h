#pragma once
// The form half of the sweep editor: name, base config, grid axes (key, values), one zip
// group, seeds and set: entries. Keys complete from the config schema, whose documentation and
// choices show as tooltips. It only shows and edits a SweepForm; the editor keeps it in sync with
// YAML.
#include <QWidget>

#include "gui/sweep_form.h"

class QLabel;
class QLineEdit;
class QTableWidget;

namespace fathom::gui {

class SweepFormWidget : public QWidget {
  Q_OBJECT
 public:
  explicit SweepFormWidget(QWidget* parent = nullptr);

  // Shows `form` without emitting edited().
  void setForm(const SweepForm& form);
  SweepForm form() const;
  // Takes the YAML lines of `form`'s fields (after the form itself produced that YAML).
  void setLines(const SweepForm& form);

  // Marks the field read from `line` (1-based) of the YAML with `message`; in_base: the error
  // is in the base config file, so the base field is marked. In a table only the value's cell
  // is marked, or the key's when in_key (an unknown key). Returns the marked widget.
  QWidget* markError(int line, bool in_base, const QString& message, bool in_key = false);
  void clearErrors();

  QLineEdit* nameEdit() const { return name_; }
  QLineEdit* baseEdit() const { return base_; }
  QLineEdit* seedsEdit() const { return seeds_; }
  QTableWidget* gridTable() const { return grid_; }
  QTableWidget* zipTable() const { return zip_; }
  QTableWidget* setTable() const { return set_; }

 signals:
  void edited();

 private:
  QTableWidget* makeTable(const QString& value_header);
  void fillTable(QTableWidget* table, const std::vector<SweepFormEntry>& entries);
  std::vector<SweepFormEntry> tableEntries(const QTableWidget* table) const;
  void markWidget(QWidget* widget, const QString& message);
  void browseBase();

  QLineEdit *name_, *base_, *seeds_;
  QTableWidget *grid_, *zip_, *set_;
  SweepForm shown_;  // lines of the fields as last read from YAML
  bool filling_ = false;
};

}  // namespace fathom::gui
