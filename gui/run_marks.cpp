#include "gui/run_marks.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "db/early_stop_tag.h"
#include "db/final_model_tag.h"
#include "db/metric_names.h"
#include "plot/store_curves.h"

namespace fathom::gui {

void add_spike_marks(const std::vector<Spike>& spikes, const std::vector<db::MetricPoint>& points,
                     const plot::RunX& place, const QString& curve, const SpikeRule& rule,
                     std::vector<ChartMark>* marks) {
  for (const Spike& s : spikes_to_mark(spikes, plot::kMaxSpikeMarks)) {
    auto point =
        std::lower_bound(points.begin(), points.end(), s.step,
                         [](const db::MetricPoint& p, int64_t step) { return p.step < step; });
    if (point == points.end() || point->step != s.step) continue;
    ChartMark m;
    m.kind = ChartMark::Kind::Spike;
    m.curve = curve;
    m.x = place.at(*point);
    m.y = s.value;
    m.text = QStringLiteral("spike: %1, z = %2, mean of the %3 before: %4")
                 .arg(s.value, 0, 'g', 5)
                 .arg(s.z, 0, 'f', 1)
                 .arg(rule.window)
                 .arg(s.mean, 0, 'g', 5);
    marks->push_back(std::move(m));
  }
}

ChartMark fork_mark(const db::ForkOrigin& origin, const std::vector<db::MetricPoint>& points,
                    const plot::RunX& place, const QString& curve) {
  ChartMark m;
  m.kind = ChartMark::Kind::Fork;
  m.curve = curve;
  m.x = place.at_step(points, origin.step);
  m.y = std::numeric_limits<double>::quiet_NaN();
  m.text = QStringLiteral("fork of #%1 at update %2").arg(origin.parent).arg(origin.step);
  return m;
}

void carry_marks(const std::vector<ChartMark>& marks, plot::Curve& curve) {
  for (const ChartMark& m : marks) {
    if (m.kind == ChartMark::Kind::Fork) {
      curve.fork_step = m.x;
    } else if (m.kind == ChartMark::Kind::Spike) {
      curve.spike_x.push_back(m.x);
      curve.spike_y.push_back(m.y);
    } else {
      curve.milestone_x.push_back(m.x);
    }
  }
}

std::vector<ChartMark> milestone_marks(const db::RunRecord& run,
                                       const std::map<std::string, std::string>& tags,
                                       const std::vector<db::Artifact>& artifacts,
                                       const QString& curve) {
  std::vector<ChartMark> marks;
  auto mark = [&](int64_t update, const QString& text) {
    ChartMark m;
    m.kind = ChartMark::Kind::Milestone;
    m.curve = curve;
    m.x = static_cast<double>(update);
    m.y = std::numeric_limits<double>::quiet_NaN();  // on the curve as drawn
    m.text = text;
    marks.push_back(std::move(m));
  };
  if (const auto it = tags.find(db::kFinalModelTag); it != tags.end()) {
    const db::FinalModel model = db::parse_final_model_tag(it->second);
    if (model.kind == db::FinalModel::Kind::BestCheckpoint && model.update > 0)
      mark(model.update,
           QStringLiteral("checkpoint_best, update %1: the model the final evaluation measured")
               .arg(model.update));
  } else {
    const std::string best_metric = db::best_metric_of(run.config_json);  // "": valid_loss
    for (const auto& a : artifacts)
      if (a.kind == "checkpoint_best" && a.step && *a.step > 0)
        mark(*a.step, QStringLiteral("checkpoint_best so far, update %1: the %2 yet")
                          .arg(*a.step)
                          .arg(best_metric.empty() ? QStringLiteral("lowest valid_loss")
                                                   : QStringLiteral("highest ") +
                                                         QString::fromStdString(best_metric)));
  }
  if (db::ended_by_early_stop(tags))
    mark(run.updates,
         QStringLiteral("stopped early: ") + QString::fromStdString(tags.at(db::kEarlyStopTag)));
  return marks;
}

}  // namespace fathom::gui
