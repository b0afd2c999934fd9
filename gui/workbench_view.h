#pragma once
// What the main window asks of each of its tabs. A view is a QWidget that also implements
// WorkbenchView and is listed once in gui/views.cpp (its tab title, its screenshot name and how
// to make it); the window builds the tabs from that list and calls these methods on every view,
// so a new tab edits neither main_window.h nor main_window.cpp. A view reports trouble with a
// signal `error(QString)` and news with `message(QString)` (both optional), which the window
// shows in its status bar. Every method has a default that does nothing.
#include <functional>
#include <vector>

#include <QString>

#include "db/store.h"

class QSettings;

namespace fathom::gui {

class RunBrush;
struct StoreSession;

class WorkbenchView {
 public:
  virtual ~WorkbenchView() = default;

  // The store the window opened. Called with nullptr first, so the view lets go of the old
  // store before it closes. `location` is for child processes; it may hold a password: never
  // show it.
  virtual void setStore(StoreSession* /*session*/, const QString& /*location*/) {}
  // Every run of the store and those selected in the runs table, after each poll and each
  // change of selection (cheap calls: a view redraws only when something it shows changed).
  virtual void showRuns(const std::vector<db::RunRecord>& /*all*/,
                        const std::vector<db::RunRecord>& /*selected*/) {}
  // The runs brushed in one view that the others honour (gui/run_brush.h), owned by the
  // window; called once, before any store.
  virtual void setBrush(RunBrush* /*brush*/) {}
  // Once a second while a store is open, after showRuns (new metric points, for instance).
  virtual void poll() {}
  // View > Refresh: read again what other processes wrote.
  virtual void reload() {}
  // True while a read it sent to another thread has not come back (screenshots wait for it).
  virtual bool reading() const { return false; }
  // Its choices kept across sessions, under QSettings keys of its own ("dashboard/...").
  virtual void saveSettings(QSettings& /*settings*/) const {}
  virtual void restoreSettings(const QSettings& /*settings*/) {}
  // Screenshots beyond the tab as it is: call `shoot(file)` after each change of state, and
  // put the state back after.
  virtual void extraScreenshots(const std::function<void(const QString& file)>& /*shoot*/) {}
};

}  // namespace fathom::gui
