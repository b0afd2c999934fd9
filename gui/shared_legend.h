#pragma once
// The dashboard's one legend (issue 36): an entry per curve -- a run, or a group of runs --
// drawn with the line and marker every chart gives it, a tick box that shows or hides it in
// every chart, and its state ("running 120/300, ETA 2:10", "finished", "diverged at 40").
// Hovering an entry highlights its curve in every chart. Entries are keyed by the curve's
// label, which the charts use as their graphs' names. The list never scrolls sideways: each
// line of an entry is cut to the legend's width (the whole label is its tooltip), and a
// state too long for it drops its words from the front, so "ETA 2:10" always shows (a
// sideways scroll hid it behind the scroll bar, issue 58 item 6).
#include <set>
#include <vector>

#include <QFont>
#include <QListWidget>
#include <QString>

namespace fathom::gui {

class SharedLegend : public QListWidget {
  Q_OBJECT
 public:
  struct Entry {
    QString label;   // the curve's label in every chart (unique)
    int style = 0;   // plot::series_* index: colour, dash and marker
    QString status;  // shown on a line below the label; empty: none
    QString detail;  // the tooltip's extra line (e.g. a group's members)
  };

  explicit SharedLegend(QWidget* parent = nullptr);
  // Replaces the entries; a label the user hid stays hidden while it is listed again.
  void setEntries(const std::vector<Entry>& entries);
  bool isHidden(const QString& label) const { return hidden_.count(label) > 0; }
  const std::set<QString>& hiddenLabels() const { return hidden_; }
  void setHidden(const QString& label, bool hidden);
  QString hoveredLabel() const { return hovered_; }

 signals:
  void visibilityChanged();                 // an entry was ticked or unticked
  void hoverChanged(const QString& label);  // empty: the mouse left the entries

 protected:
  void leaveEvent(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void setHovered(const QString& label);
  void fitTexts();  // each entry's text cut to the width, from entries_

  std::vector<Entry> entries_;
  // entries_' labels as fitted to fitted_room_ pixels in fitted_font_ (empty: not yet).
  std::vector<QString> fitted_labels_;
  int fitted_room_ = -1;
  QFont fitted_font_;
  std::set<QString> hidden_;
  QString hovered_;
  bool filling_ = false;  // itemChanged while setEntries fills the list is not the user's
};

}  // namespace fathom::gui
