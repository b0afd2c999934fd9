#include "experiments/final_model_note.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "db/run_status.h"

namespace fathom::experiments {
namespace {

// A run's final-model protocol in words.
std::string final_model_protocol(const db::FinalModel& model) {
  switch (model.kind) {
    case db::FinalModel::Kind::MeanOfKept:
      if (!model.best_metric.empty())
        return "the mean of the " + std::to_string(model.averaged.size()) +
               " best kept checkpoints by " + model.best_metric;
      return "the mean of the last " + std::to_string(model.averaged.size()) + " kept checkpoints";
    case db::FinalModel::Kind::BestCheckpoint:
      return "the best checkpoint" + (model.best_metric.empty() ? "" : " by " + model.best_metric);
    case db::FinalModel::Kind::FinalWeights:  // no validation split, or nothing kept to average
      break;
  }
  return "the final weights";
}

}  // namespace

// Only final valid_* and test_* values depend on the model: the others get no note.
std::optional<std::string> final_model_note(const std::vector<TableRun>& runs,
                                            const TableOptions& options) {
  const std::string& m = options.metric;
  if (options.value != RunValue::Final || !(m.rfind("valid_", 0) == 0 || m.rfind("test_", 0) == 0))
    return std::nullopt;
  std::map<std::string, int> protocols;
  for (const auto& r : runs)
    if (r.metric && r.status == db::status::kFinished)
      ++protocols[final_model_protocol(r.final_model)];
  if (protocols.empty() || (protocols.size() == 1 && protocols.count("the best checkpoint")))
    return std::nullopt;
  // The keys that chose the models: eval.average_checkpoints (and eval.average_by where the
  // best were averaged), and train.best_metric where a best checkpoint is another metric's
  // than valid_loss's or the best were averaged.
  bool averaged = false, by_metric = false, best_averaged = false;
  for (const auto& r : runs) {
    const bool mean = r.final_model.kind == db::FinalModel::Kind::MeanOfKept;
    averaged = averaged || mean;
    by_metric = by_metric || !r.final_model.best_metric.empty();
    best_averaged = best_averaged || (mean && !r.final_model.best_metric.empty());
  }
  std::vector<std::string> keys;
  if (averaged || !by_metric) keys.push_back("eval.average_checkpoints");
  if (best_averaged) keys.push_back("eval.average_by");
  if (by_metric) keys.push_back("train.best_metric");
  std::string key, varying;
  bool separated = true;  // each key whose value differs between the runs a row or column
  for (const auto& k : keys) {
    key += (key.empty() ? "" : ", ") + k;
    std::set<std::string> values;
    for (const auto& r : runs)
      if (auto it = r.axes.find(k); it != r.axes.end()) values.insert(it->second);
    if (values.size() == 1) continue;  // the same for every run: nothing to separate
    varying += (varying.empty() ? "" : ", ") + k;
    separated = separated && (options.rows.find(k) != std::string::npos ||
                              options.cols.find(k) != std::string::npos);
  }
  if (protocols.size() == 1)
    return m + ": every run's final model is " + protocols.begin()->first + " (" + key + ")";
  if (varying.empty())
    separated = false;  // the runs' axes do not say which key differs
  else
    key = varying;
  std::string counts;
  for (const auto& [protocol, n] : protocols)
    counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " runs " + protocol;
  if (separated) return m + ": the final model follows " + key + " per cell: " + counts;
  return "⚠ the runs' " + m + " measure different models: " + counts + " (" + key +
         "); a difference may be the protocol's, not the method's";
}

}  // namespace fathom::experiments
