#pragma once
// The dashboard's spike forensics (issue 38 item 5): each charted curve's spikes
// (base/metrics/spikes.h), found once and then extended as points arrive -- a redraw looks
// them up instead of scanning every curve again. Qt-free, tested without a window.
#include <cstdint>
#include <map>
#include <vector>

#include "base/metrics/spikes.h"
#include "db/records.h"
#include "gui/metric_cache.h"

namespace fathom::gui {

class SpikeCache {
 public:
  // A different rule forgets every curve's spikes (they are found again when next asked for).
  void setRule(const SpikeRule& rule);
  const SpikeRule& rule() const { return rule_; }
  void clear() { curves_.clear(); }

  // The spikes of `points`, the cached curve `key` (by step). A curve that only grew since the
  // last call costs its new points and the window before them; one rewritten (a resume) is
  // scanned again from its start.
  const std::vector<Spike>& spikes(const CurveKey& key, const std::vector<db::MetricPoint>& points);

 private:
  struct Curve {
    size_t seen = 0;  // points judged so far
    db::MetricPoint last{};
    std::vector<Spike> spikes;
  };
  SpikeRule rule_;
  std::map<CurveKey, Curve> curves_;
};

}  // namespace fathom::gui
