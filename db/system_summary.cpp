#include "db/system_summary.h"

#include <algorithm>

#include "db/metric_names.h"
#include "db/metric_presentation.h"

namespace fathom::db {

std::vector<SystemSummary> system_summary(const Store& store, int64_t run) {
  std::vector<std::string> names;
  for (const auto& n : store.metric_names(run))
    if (metric::is_system_metric(n)) names.push_back(n);
  std::stable_sort(names.begin(), names.end(), [](const auto& a, const auto& b) {
    return metric::presentation_rank(a) < metric::presentation_rank(b);
  });
  std::vector<SystemSummary> out;
  for (const auto& name : names) {
    const auto points = store.metric_series(run, name);
    if (points.empty()) continue;
    SystemSummary s{name, metric::presentation_of(name).unit};
    s.last = points.back().value;
    s.max = points.front().value;
    double sum = 0;
    for (const auto& p : points) {
      sum += p.value;
      s.max = std::max(s.max, p.value);
    }
    s.mean = sum / static_cast<double>(points.size());
    s.samples = points.size();
    out.push_back(s);
  }
  return out;
}

}  // namespace fathom::db
