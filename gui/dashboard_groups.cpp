#include "gui/dashboard_groups.h"

#include <sstream>

#include "db/metric_names.h"
#include "db/run_status.h"

namespace fathom::gui {

// A run's cached curve, placed on the x axis. Remembers which cache vectors it reads, so a
// vector the cache replaced (dropped, or created since) is noticed before it is read.
struct DashboardGroups::Member : plot::MemberPoints {
  int64_t run;
  const std::vector<db::MetricPoint>* points;
  const std::vector<db::MetricPoint>* tokens;
  plot::RunX place;
  Member(int64_t run, const std::vector<db::MetricPoint>* points,
         const std::vector<db::MetricPoint>* tokens, plot::RunX place)
      : run(run), points(points), tokens(tokens), place(place) {}
  size_t size() const override { return points->size(); }
  int64_t step(size_t i) const override { return (*points)[i].step; }
  double x(size_t i) const override { return place.at((*points)[i]); }
  double y(size_t i) const override { return (*points)[i].value; }
};

namespace {

std::string signature_of(const std::vector<db::RunRecord>& runs, const GroupingChoice& choice,
                         const std::string& metric) {
  std::ostringstream out;
  out << metric << '\x1e' << int(choice.band) << '\x1e' << int(choice.x) << '\x1e';
  for (const auto& k : choice.keys) out << k << '\x1f';
  out << '\x1e';
  for (const auto& r : runs) out << r.id << (r.started_at > 0 ? ',' : ';');  // time axis: started?
  return out.str();
}

}  // namespace

DashboardGroups::DashboardGroups(const MetricCache& cache, const std::vector<db::RunRecord>& runs,
                                 const std::map<int64_t, plot::Tags>& tags,
                                 const GroupingChoice& choice, const std::string& metric)
    : cache_(cache),
      signature_(signature_of(runs, choice, metric)),
      metric_(metric),
      // The curve the x axis reads (the update and time axes read none: target_tokens stands in).
      x_metric_(plot::x_series_metric(choice.x).empty() ? db::metric::kTargetTokens
                                                        : plot::x_series_metric(choice.x)) {
  std::vector<plot::Tags> all_tags;
  for (const auto& r : runs) {
    auto it = tags.find(r.id);
    all_tags.push_back(it == tags.end() ? plot::Tags{} : it->second);
    all_tags.back()[plot::kSweepTag] = r.sweep.empty() ? "(none)" : r.sweep;
  }
  const std::vector<std::string> keys = plot::expand_group_keys(choice.keys, all_tags);
  std::map<std::string, size_t> index;
  for (size_t r = 0; r < runs.size(); ++r) {
    const auto& run = runs[r];
    const auto* points = &cache.series(run.id, metric);
    const auto* tokens = &cache.series(run.id, x_metric_);
    const plot::RunX place(choice.x, run.started_at, tokens);
    // A run still without points stays in: the group counts it, and its points are taken in
    // as they come -- but the cache only keeps a vector for a curve once it has points, so it
    // is rebuilt then (update() notices the vector appear).
    const bool from_series = !plot::x_series_metric(choice.x).empty();
    if (!place.available() && !from_series) {
      ++left_out_;
      continue;
    }
    if (from_series && tokens->empty() && !points->empty()) {
      ++left_out_;  // not read yet, or trained before Fathom logged the x axis's curve
      waiting_for_tokens_.emplace_back(run.id, tokens);
      continue;
    }
    std::vector<std::string> values;
    for (const auto& key : keys)
      values.push_back(plot::run_value(all_tags[r], run.config_json, key));
    const std::string label = plot::group_label(keys, values);
    auto [at, added] = index.try_emplace(label, groups_.size());
    if (added) groups_.emplace_back(label, choice.band);
    members_.push_back(std::make_unique<Member>(run.id, points, tokens, place));
    where_.emplace_back(at->second, groups_[at->second].size());
    groups_[at->second].add_member(plot::run_short_name(run), members_.back().get(),
                                   run.status == db::status::kDiverged,
                                   !db::status::is_active(run.status));
  }
}

DashboardGroups::~DashboardGroups() = default;

bool DashboardGroups::builtFor(const std::vector<db::RunRecord>& runs, const GroupingChoice& choice,
                               const std::string& metric) const {
  return signature_ == signature_of(runs, choice, metric);
}

bool DashboardGroups::update(const std::vector<db::RunRecord>& runs) {
  for (const auto& [run, tokens] : waiting_for_tokens_)
    if (&cache_.series(run, x_metric_) != tokens) return false;
  for (const auto& m : members_)
    if (&cache_.series(m->run, metric_) != m->points ||
        &cache_.series(m->run, x_metric_) != m->tokens)
      return false;
  std::map<int64_t, const db::RunRecord*> by_id;
  for (const auto& r : runs) by_id[r.id] = &r;
  for (size_t i = 0; i < members_.size(); ++i) {
    auto it = by_id.find(members_[i]->run);
    if (it == by_id.end()) return false;
    groups_[where_[i].first].set_member_state(where_[i].second,
                                              it->second->status == db::status::kDiverged,
                                              !db::status::is_active(it->second->status));
  }
  for (auto& g : groups_)
    if (!g.update()) return false;
  return true;
}

std::vector<plot::Curve> DashboardGroups::curves() const {
  std::vector<plot::Curve> out;
  for (const auto& g : groups_) out.push_back(g.curve(metric_));
  return out;
}

}  // namespace fathom::gui
