#pragma once
// Lookups in a map (or set) keyed by run id, made in ascending id, as a poll's tags are read:
// each costs the entries it passes, not a search from the root. The Runs tab sets 48,000
// queued runs' job, early-stop and axis entries every poll at 64,000 runs.
#include <cstdint>

namespace fathom::gui {

// Keys must come in ascending order; entries before the last key asked are not looked at.
template <typename Map>
class AscendingWalk {
 public:
  explicit AscendingWalk(Map& map) : map_(map), at_(map.begin()) {}
  // The entry of `key`, made (value-initialised) when absent (a map's).
  template <typename M = Map>
  typename M::mapped_type& get(int64_t key) {
    if (!find(key)) at_ = map_.emplace_hint(at_, key, typename M::mapped_type{});
    return at_->second;
  }
  // Removes the entry of `key`; whether there was one.
  bool erase(int64_t key) {
    if (!find(key)) return false;
    at_ = map_.erase(at_);
    return true;
  }

 private:
  static int64_t key_of(int64_t key) { return key; }  // a set's entry
  template <typename Entry>
  static int64_t key_of(const Entry& entry) {
    return entry.first;
  }
  bool find(int64_t key) {
    while (at_ != map_.end() && key_of(*at_) < key) ++at_;
    return at_ != map_.end() && key_of(*at_) == key;
  }
  Map& map_;
  typename Map::iterator at_;
};

}  // namespace fathom::gui
