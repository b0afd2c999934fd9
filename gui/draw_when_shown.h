#pragma once
// A view's work on a poll deferred while nobody can see it. The window calls every tab's
// showRuns after each poll that brings a finished run; a tab that is not the current one of a
// shown window need not read a sweep of thousands of runs again and draw a line for each (the
// Parallel tab: ~0.9 s at 4,096 runs on the UI thread, every time a run finished; the analysis
// tabs' workers ~1 s of CPU each at 16,384 runs, beside the runs training). Only its latest
// work is kept, and done when it is next shown. A view in no shown window (tests, a window not
// shown yet) works at once.
#include <functional>
#include <string>

#include <QObject>

class QWidget;

namespace fathom::gui {

class DrawWhenShown : public QObject {
 public:
  explicit DrawWhenShown(QWidget* view);
  // True where the view is out of sight in a window on screen: the work make_work returns is
  // kept (in place of any kept before) for its next show, and the caller returns. False: the
  // caller works now. `key` says what the work would show (the runs' signature): while the
  // work kept is of the same key, make_work is not called -- a tab out of sight made a copy of
  // every run (16,000 runs' configs: 70 MB) at each quiet poll.
  //   if (when_shown_->defer(signature, [&] { return [this, all] { showRuns(all, {}); }; }))
  template <typename MakeWork>
  bool defer(const std::string& key, MakeWork&& make_work) {
    if (!outOfSight()) return defer(nullptr);
    if (!pending_ || key != pending_key_) {
      pending_ = make_work();
      pending_key_ = key;
    }
    return true;
  }
  // Work kept for the next show.
  bool pending() const { return static_cast<bool>(pending_); }
  // Drops the work kept: it was of a store the view no longer shows.
  void cancel() { pending_ = nullptr; }
  // On a tab that is not current, in a window on screen: hidden, while its window is not.
  bool outOfSight() const;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  // Keeps `work` when out of sight (true); else drops what was kept (false).
  bool defer(std::function<void()> work);

  QWidget* view_;
  std::function<void()> pending_;
  std::string pending_key_;  // of the keyed defer: what pending_ would show
};

}  // namespace fathom::gui
