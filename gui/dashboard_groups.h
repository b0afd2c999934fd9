#pragma once
// The dashboard's seed groups for one chart: the runs on screen split by the grouping keys
// into plot::CurveGroup's, whose members read the MetricCache's curves in place. Each poll
// takes in only the new points; a change the groups cannot follow incrementally (a run
// resumed and rewrote its points, a curve the cache dropped or started) builds them again.
// Qt-free, so it is tested and benchmarked without a window.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "db/records.h"
#include "gui/metric_cache.h"
#include "plot/curve_groups.h"
#include "plot/curve_x.h"
#include "plot/run_groups.h"

namespace fathom::gui {

struct GroupingChoice {
  std::vector<std::string> keys;  // as the user gave them ("axes" = every axis but the seed)
  plot::Band band = plot::Band::Std;
  plot::XAxis x = plot::XAxis::Update;
};

class DashboardGroups {
 public:
  // `tags`: each run's tags (for axis values); `cache` must outlive the groups.
  DashboardGroups(const MetricCache& cache, const std::vector<db::RunRecord>& runs,
                  const std::map<int64_t, plot::Tags>& tags, const GroupingChoice& choice,
                  const std::string& metric);
  ~DashboardGroups();

  // True when these groups were built for the same runs, choice and metric.
  bool builtFor(const std::vector<db::RunRecord>& runs, const GroupingChoice& choice,
                const std::string& metric) const;
  // Takes in the cache's new points and the runs' current outcomes; false when the groups
  // must be built again instead.
  bool update(const std::vector<db::RunRecord>& runs);
  // One curve per group (mean, band, members, markers), in the order of their first run.
  std::vector<plot::Curve> curves() const;
  // Runs left out: no points of the metric yet, or (tokens, compute axes) no curve of that.
  int leftOut() const { return left_out_; }

 private:
  struct Member;
  const MetricCache& cache_;
  std::string signature_;
  std::string metric_;
  std::string x_metric_;
  std::vector<std::unique_ptr<Member>> members_;
  std::vector<plot::CurveGroup> groups_;
  std::vector<std::pair<size_t, size_t>> where_;  // member -> (group, index in group)
  // Runs left out for want of the x axis's curve, with the cache vector they lacked it in:
  // once it appears (the first poll after switching to that axis) the groups are rebuilt.
  std::vector<std::pair<int64_t, const std::vector<db::MetricPoint>*>> waiting_for_tokens_;
  int left_out_ = 0;
};

}  // namespace fathom::gui
