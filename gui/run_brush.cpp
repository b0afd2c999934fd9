#include "gui/run_brush.h"

namespace fathom::gui {

void RunBrush::set(std::set<int64_t> runs, const QString& description) {
  if (active_ && runs == runs_ && description == description_) return;
  active_ = true;
  runs_ = std::move(runs);
  description_ = description;
  emit changed();
}

void RunBrush::clear() {
  if (!active_) return;
  active_ = false;
  runs_.clear();
  description_.clear();
  emit cleared();
  emit changed();
}

}  // namespace fathom::gui

#include "moc_run_brush.cpp"  // moc output for run_brush.h: compiled in this unit
