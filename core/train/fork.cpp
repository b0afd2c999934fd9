#include "core/train/fork.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include "base/config/config_io.h"
#include "base/util/error.h"
#include "core/train/checkpoint.h"
#include "core/train/run_files.h"
#include "db/averaged_checkpoints.h"
#include "db/fork_tags.h"
#include "db/run_json.h"

namespace fathom {
namespace fs = std::filesystem;

std::vector<ForkPoint> fork_points(const db::Store& store, int64_t run,
                                   const std::string& run_dir) {
  static const std::regex kept(R"(checkpoint_[0-9]+)");
  const auto artifacts = store.artifacts(run);
  std::vector<ForkPoint> out;
  for (const auto& a : artifacts) {
    const bool candidate = std::regex_match(a.kind, kept) || a.kind == "checkpoint_last" ||
                           a.kind == "checkpoint_previous";
    if (!candidate || !a.step) continue;
    const std::string path = recorded_file(artifacts, run_dir, a.kind);
    // Kept checkpoints written before forks existed hold the model only.
    if (!fs::exists(path) || !checkpoint_has_optimizer_state(path)) continue;
    out.push_back({*a.step, a.kind, path});
  }
  std::sort(out.begin(), out.end(),
            [](const ForkPoint& a, const ForkPoint& b) { return a.step < b.step; });
  return out;
}

namespace {

// "there are none" or "the nearest are updates 300 and 400 (of 100, 200, 300, 400, 500)".
std::string nearest(const std::vector<ForkPoint>& points, int64_t step) {
  if (points.empty())
    return "it has no checkpoint with optimizer state (train.keep_checkpoint_every keeps them, "
           "unless train.keep_checkpoint_optimizer is false)";
  std::vector<int64_t> steps;
  for (const auto& p : points)
    if (steps.empty() || steps.back() != p.step) steps.push_back(p.step);
  const auto above = std::lower_bound(steps.begin(), steps.end(), step);
  std::string near;
  if (above != steps.begin()) near = std::to_string(*(above - 1));
  if (above != steps.end()) near += (near.empty() ? "" : " and ") + std::to_string(*above);
  std::string all;
  for (int64_t s : steps) all += (all.empty() ? "" : ", ") + std::to_string(s);
  return "the nearest are updates " + near + " (it has " + all + ")";
}

// Tags the parent wrote after `step` or about its own workers and sweep: its ending
// (final_model, early_stop, the test BLEU), a verdict on it, validation samples and config
// changes past the fork point, its place in its sweep (axis.*, sweep.*: the fork is in no sweep
// or its own). The fork writes its own; copied, they would describe a run the fork is not.
bool describes_the_parent_after(const std::string& key, int64_t step) {
  static const std::regex at_update(R"((samples\.u|config\.changed_at\.)([0-9]+))");
  static const std::regex own(R"((worker|slurm|axis|sweep)\..*|final_model|early_stop|bleu|)"
                              R"(bleu_signature|)"
                              R"(reproduces|reproduction|forked_from|forked_at|fork\..*)");
  std::smatch m;
  if (std::regex_match(key, m, at_update)) return std::stoll(m[2].str()) > step;
  return std::regex_match(key, own);
}

// The parent's checkpoint_best as of the fork point: its validations up to it (`rows`) counted
// as the trainer counts them (record_validation), 0 when none.
int64_t best_update_until(const std::vector<db::MetricRow>& rows, const RunConfig& config) {
  const BestMetric metric = best_metric_named(config.train.best_metric);
  ValidationRecord record;
  for (const auto& [step, name, value, wall_time] : rows)
    if (step > 0 && name == metric.name) record_validation(record, step, value, 0, metric);
  return record.best_update;
}

// The files a fork is given, in its directory: each a hard link to the parent's file where the
// file system allows one (a checkpoint of a large model is gigabytes, and no recorded name is
// ever written again, so sharing its bytes is safe), else a copy. Generation 0: no holder wrote
// them. It remembers what it made so that a fork that cannot be completed leaves nothing.
class ForkFiles {
 public:
  explicit ForkFiles(std::string dir) : dir_(std::move(dir)) {}
  std::string inherit(const std::string& source, const std::string& name) {
    const std::string target = (fs::path(dir_) / name).string();
    if (!made_dir_) made_dir_ = fs::create_directories(dir_);
    std::error_code linked;
    fs::remove(target, linked);  // a left-over of a deleted run that had this id
    fs::create_hard_link(source, target, linked);
    made_.push_back(target);
    if (linked) {
      copying_ = true;
      fs::copy_file(source, target, fs::copy_options::overwrite_existing);
    }
    return target;
  }
  // Whether a file had to be copied: the file system refused a hard link (another one).
  bool copying() const { return copying_; }
  // Removes every file it made, and the directory if it made it (and it is empty then).
  void remove_made() noexcept {
    std::error_code ignored;
    for (const auto& f : made_) fs::remove(f, ignored);
    if (made_dir_) fs::remove(dir_, ignored);
  }

 private:
  std::string dir_;
  bool made_dir_ = false;
  bool copying_ = false;
  std::vector<std::string> made_;
};

// The kept checkpoints up to the fork point that the fork's final evaluation can still average
// (eval.average_checkpoints, db/averaged_checkpoints.h): the newest N of them, or the N best so
// far -- a later checkpoint can only push an earlier one out, never bring one back.
std::set<int64_t> averageable_kept(const ForkSource& source, const RunConfig& config) {
  const int n = config.eval.average_checkpoints;
  if (n <= 0) return {};
  std::vector<db::KeptCheckpoint> kept;
  for (auto& k : db::kept_checkpoints(source.artifacts, source.parent_dir))
    if (k.update <= source.at.step) kept.push_back(std::move(k));
  const bool by_best = config.eval.average_by == "best";
  const BestMetric metric = best_metric_named(config.train.best_metric);
  std::map<int64_t, double> metric_at;
  for (const auto& [step, name, value, wall_time] : source.rows)
    if (by_best && name == metric.name) metric_at[step] = value;
  std::set<int64_t> out;
  for (const auto& k :
       db::checkpoints_to_average(kept, n, by_best, metric_at, metric.higher_is_better))
    out.insert(k.update);
  return out;
}

// What a run that had trained to `step` would hold besides its resume point: its prepared
// state (Admin's profile), its kept checkpoints up to `step` (eval.average_checkpoints
// averages them) and its checkpoint_best as of `step` -- so that a fork with nothing changed
// ends on its parent's final model. The parent's checkpoint_best file where it is that one,
// else the kept checkpoint at that update; none where neither is left, or where the fork
// follows another train.best_metric (its best, and its patience, start afresh then).
// Where files are copied, not linked, only the kept checkpoints the fork can average come:
// each of a deep model's is gigabytes, and a fork sweep makes many forks; the tag fork.copied
// says what was left.
void inherit_files(db::Store& store, const ForkSource& source, const RunConfig& config,
                   int64_t fork, ForkFiles& files) {
  static const std::regex kept(R"(checkpoint_[0-9]+)");
  const int64_t step = source.at.step;
  const std::string parent_metric =
      db::config_value(source.parent.config_json, "train.best_metric");
  const bool same_metric =
      config.train.best_metric == (parent_metric.empty() ? "valid_loss" : parent_metric);
  const int64_t best = same_metric ? best_update_until(source.rows, config) : 0;
  std::string best_source;
  std::optional<std::set<int64_t>> averageable;  // read once files are copied
  int left = 0;
  for (const auto& a : source.artifacts) {
    const std::string path = recorded_file(source.artifacts, source.parent_dir, a.kind);
    if (!a.step || path.empty() || !fs::exists(path)) continue;
    const fs::path file(path);
    if (std::regex_match(a.kind, kept)) {
      if (*a.step > step) continue;
      if (*a.step == best && best_source.empty()) best_source = path;
      if (files.copying()) {
        if (!averageable) averageable = averageable_kept(source, config);
        if (!averageable->count(*a.step)) {
          ++left;
          continue;
        }
      }
      store.add_artifact(fork, a.kind, files.inherit(path, a.kind + ".g0.pt"), *a.step);
    } else if (a.kind == "checkpoint_best") {
      if (*a.step == best) best_source = path;
    } else if (*a.step == 0 && a.kind.rfind("checkpoint", 0) != 0) {  // prepared state
      const std::string name = file.stem().string();
      store.add_artifact(
          fork, a.kind,
          files.inherit(path, name.substr(0, name.rfind(".g")) + ".g0" + file.extension().string()),
          0);
    }
  }
  if (!best_source.empty())
    store.add_artifact(
        fork, "checkpoint_best",
        files.inherit(best_source, "checkpoint_best.u" + std::to_string(best) + ".g0.pt"), best);
  if (left > 0)
    store.set_tag(
        fork, db::kForkCopiedTag,
        "its files were copied, the file system refusing hard links: " + std::to_string(left) +
            " kept checkpoint(s) up to update " + std::to_string(step) +
            " that eval.average_checkpoints cannot average were left with the parent");
}

// Gives the new run `id` what its parent held at the fork point: its resume point, inherited
// files, tags, metric rows and probe points up to there.
void fill_fork(db::Store& store, const ForkSource& source, const RunConfig& config, int64_t id,
               ForkFiles& files) {
  const ForkPoint& at = source.at;
  store.add_artifact(
      id, "checkpoint_last",
      files.inherit(at.path, "checkpoint_last.u" + std::to_string(at.step) + ".g0.pt"), at.step);
  inherit_files(store, source, config, id, files);
  for (const auto& [key, value] : source.tags) store.set_tag(id, key, value);
  store.set_tag(id, db::kForkedFromTag, std::to_string(source.parent.id));
  store.set_tag(id, db::kForkedAtTag, std::to_string(at.step));
  store.write_metrics(id, source.rows);
  store.write_probes(id, source.probes);
}

void check_before_end(int64_t step, int64_t max_updates) {
  if (step >= max_updates)
    throw InputError("fathom train", 0, "--from",
                     "update " + std::to_string(step) + " is not before train.max_updates (" +
                         std::to_string(max_updates) + "): nothing to train");
}

}  // namespace

ForkPoint check_fork_point(const db::Store& store, const db::RunRecord& parent, int64_t step,
                           int64_t max_updates, const std::string& parent_dir) {
  const auto points = fork_points(store, parent.id, parent_dir);
  const auto at = std::find_if(points.begin(), points.end(),
                               [&](const ForkPoint& p) { return p.step == step; });
  if (at == points.end()) {
    const std::string kept =
        recorded_file(store.artifacts(parent.id), parent_dir, "checkpoint_" + std::to_string(step));
    const std::string run = "run " + std::to_string(parent.id);
    const std::string what =
        !kept.empty() && fs::exists(kept)
            ? run + "'s checkpoint at update " + std::to_string(step) +
                  " holds the model alone (train.keep_checkpoint_optimizer: false), and a fork "
                  "needs the optimizer state"
            : run + " has no checkpoint at update " + std::to_string(step) + " to fork from";
    throw InputError("fathom train", 0, "--from", what + "; " + nearest(points, step));
  }
  check_before_end(step, max_updates);
  return *at;
}

ForkSource read_fork_source(const db::Store& store, const db::RunRecord& parent, int64_t step,
                            int64_t max_updates, const std::string& parent_dir) {
  ForkSource source{parent,     check_fork_point(store, parent, step, max_updates, parent_dir),
                    parent_dir, store.artifacts(parent.id),
                    {},         {},
                    {}};
  for (const auto& [key, value] : store.tags(parent.id))
    if (!describes_the_parent_after(key, step)) source.tags.emplace(key, value);
  for (auto& row : store.metric_rows(parent.id))
    if (std::get<0>(row) <= step) source.rows.push_back(std::move(row));
  for (const auto& name : store.probe_names(parent.id)) {
    db::ProbeSeries s = store.probe_series(parent.id, name);
    for (size_t i = 0; i < s.steps.size() && s.steps[i] <= step; ++i)
      source.probes.push_back({s.steps[i], name, s.positions, std::move(s.values[i]), 0});
  }
  return source;
}

int64_t create_fork(db::Store& store, const ForkSource& source, const RunConfig& config,
                    const std::function<std::string(int64_t)>& fork_dir, const std::string& git_rev,
                    const std::string& sweep) {
  const int64_t step = source.at.step;
  check_before_end(step, config.train.max_updates);
  db::NewRun run;
  run.name = config.name;
  run.sweep = sweep;
  run.config_json = config_to_json(config).dump();
  run.config_yaml = config_to_yaml(config);
  run.git_rev = git_rev;
  const int64_t id = store.create_run(run);
  // All or nothing: a fork that cannot be completed (a full disk, a store error) is removed
  // with every file it was given, so that no half-made run is left to be resumed.
  ForkFiles files(fork_dir(id));
  try {
    fill_fork(store, source, config, id, files);
  } catch (const std::exception& e) {
    files.remove_made();
    try {
      store.delete_run(id);
    } catch (const std::exception&) {  // the store failing too: the first error is the one to say
    }
    throw std::runtime_error(
        "fathom train --fork: the fork of run " + std::to_string(source.parent.id) + " at update " +
        std::to_string(step) + " could not be made, and nothing of it is kept: " + e.what());
  }
  return id;
}

int64_t create_fork(db::Store& store, const db::RunRecord& parent, int64_t step,
                    const RunConfig& config, const std::string& parent_dir,
                    const std::function<std::string(int64_t)>& fork_dir, const std::string& git_rev,
                    const std::string& sweep) {
  return create_fork(store,
                     read_fork_source(store, parent, step, config.train.max_updates, parent_dir),
                     config, fork_dir, git_rev, sweep);
}

}  // namespace fathom
