// `fathom show RUN`: one run in full -- status, times, where it ran, final metrics, the best
// points of its validation loss and BLEU (which one checkpoint_best follows), artifacts, logged
// metric names, its training probes, its system metrics (System), the spikes of its loss and
// gradient norm (base/metrics/spikes.h) and its config -- as text or (--json) one JSON object.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "base/metrics/spikes.h"
#include "base/util/error.h"
#include "base/util/strings.h"
#include "cli/commands.h"
#include "cli/option_checks.h"
#include "db/artifact_files.h"
#include "db/early_stop_tag.h"
#include "db/final_model_tag.h"
#include "db/fork_tags.h"
#include "db/metric_names.h"
#include "db/metric_presentation.h"
#include "db/run_json.h"
#include "db/run_status.h"
#include "db/store.h"
#include "db/system_summary.h"
#include "db/valid_samples.h"
#include "experiments/run_control.h"

namespace fathom::cli {
namespace {

std::string local_time(double unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S %Z", &tm);
  return buf;
}

// "3h02m", "4m05s", "12s".
std::string duration(double seconds) {
  const long s = std::lround(std::max(seconds, 0.0));
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, s / 60 % 60);
  else if (s >= 60)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lds", s);
  return buf;
}

void field(const std::string& label, const std::string& value) {
  if (value.empty()) return;
  std::printf("  %-10s %s\n", label.c_str(), value.c_str());
}

void print_system(const db::RunRecord& run, const db::Store& store) {
  const auto summary = db::system_summary(store, run.id);
  if (summary.empty()) return;
  std::printf("system (%zu samples, at the log points)\n  %-24s %10s %10s %10s\n",
              summary.front().samples, "", "last", "mean", "max");
  for (const auto& s : summary)
    std::printf("  %-24s %10.4g %10.4g %10.4g  %s\n", s.name.c_str(), s.last, s.mean, s.max,
                s.unit.c_str());
}

std::vector<Spike> spikes_of(const db::Store& store, int64_t run, const std::string& metric,
                             const SpikeRule& rule) {
  std::vector<std::pair<int64_t, double>> points;
  for (const auto& p : store.metric_series(run, metric)) points.emplace_back(p.step, p.value);
  return find_spikes(points, rule);
}

// The runs forked from `run` (tag forked_from), oldest first.
std::vector<int64_t> forks_of(const db::Store& store, int64_t run) {
  return db::forks_among(store.tagged_runs(db::kForkedFromTag), run);
}

// The run's own columns: status (and why it is shown so, or that train.patience ended it),
// times, where it ran, the run it was forked from and the runs forked from it.
void print_fields(const db::RunRecord& run, const std::map<std::string, std::string>& tags,
                  const std::vector<int64_t>& forks) {
  const bool stopped_early = db::ended_by_early_stop(tags);
  std::cout << "run " << run.id << "  " << run.name << "\n";
  std::string status = experiments::shown_status(run, db::unix_now());
  if (status != run.status)  // a stale heartbeat: the worker is lost
    status += " (stored as " + run.status + "; no heartbeat for " +
              duration(db::unix_now() - run.heartbeat_at) + ")";
  if (run.diverged_step) status += " at update " + std::to_string(*run.diverged_step);
  if (stopped_early && status == db::status::kFinished)
    status += " (early stop: train.patience; tag early_stop)";
  field("status", status);
  field("error", run.error);
  field("sweep", run.sweep);
  if (const auto origin = db::fork_origin(tags)) field("fork of", db::fork_of_text(*origin, tags));
  if (!forks.empty()) field("forks", db::forks_text(forks));
  field("updates", std::to_string(run.updates));
  field("created", local_time(run.created_at));
  if (run.started_at > 0) field("started", local_time(run.started_at));
  if (run.finished_at > 0)
    field("finished",
          local_time(run.finished_at) +
              (run.started_at > 0 ? "  (after " + duration(run.finished_at - run.started_at) + ")"
                                  : ""));
  if (run.status == db::status::kRunning && run.heartbeat_at > 0)
    field("heartbeat", local_time(run.heartbeat_at) + "  (" +
                           duration(db::unix_now() - run.heartbeat_at) + " ago)");
  field("host", run.host);
  field("device", run.device);
  field("git rev", run.git_rev);
}

// The run's tags and its newest validation's sample translations (or continuations).
void print_tags(const db::RunRecord& run, const db::Store& store) {
  if (auto tags = store.tags(run.id); !tags.empty()) {
    std::cout << "tags\n";
    for (const auto& [key, value] : tags)
      if (!db::is_samples_tag(key)) std::printf("  %-20s %s\n", key.c_str(), value.c_str());
    // The newest validation's sample translations (every one: --json, or the desktop app).
    if (const auto samples = db::validation_samples(tags); !samples.empty()) {
      const auto& [update, last] = *samples.rbegin();
      // A language model's samples continue a prompt (model.arch: decoder_only).
      const bool lm = db::continues_prompts(run.config_json);
      std::printf("%s at update %lld (validation, greedy%s; %zu points stored)\n",
                  lm ? "sample continuations" : "sample translations",
                  static_cast<long long>(update),
                  !last.empty() && last[0].top_k > 0 ? " and top-k sampled" : "", samples.size());
      for (const auto& s : last) {
        std::printf(
            lm ? "  prompt  %s\n  text    %s\n  greedy  %s\n" : "  src  %s\n  ref  %s\n  hyp  %s\n",
            s.source.c_str(), s.reference.c_str(), s.hypothesis.c_str());
        if (s.top_k > 0) std::printf("  top-%-3d %s\n", s.top_k, s.sampled.c_str());
      }
    }
  }
}

// The size of an artifact's file where it is today -- in the run's folder, so a moved artifacts
// root still finds it (db/artifact_files.h). nullopt when the file is gone.
std::optional<std::uintmax_t> artifact_bytes(const db::Artifact& a, const std::string& run_dir) {
  return db::file_bytes(db::artifact_file(a, run_dir));
}

// What the run stored besides its columns: artifacts (with their sizes: `fathom prune` frees
// disk), metric names, training probes.
void print_stored(const db::RunRecord& run, const db::Store& store, const std::string& run_dir) {
  if (auto artifacts = store.artifacts(run.id); !artifacts.empty()) {
    std::cout << "artifacts\n";
    for (const auto& a : artifacts) {
      std::string step = a.step ? "  (update " + std::to_string(*a.step) + ")" : "";
      const auto bytes = artifact_bytes(a, run_dir);
      const std::string size = bytes ? "  " + format_bytes(*bytes) : "  (missing)";
      std::printf("  %-16s %s%s%s\n", a.kind.c_str(), a.path.c_str(), step.c_str(), size.c_str());
    }
  }
  if (auto names = store.metric_names(run.id); !names.empty()) {
    std::string joined;
    for (const auto& n : names) joined += (joined.empty() ? "" : ", ") + n;
    std::cout << "logged metrics\n  " << joined << "\n";
  }
  if (auto names = store.probe_names(run.id); !names.empty()) {
    std::cout << "training probes (`fathom export plot probe --runs " << run.id
              << " --probe NAME`)\n";
    for (const auto& name : names) {
      const db::ProbeSeries s = store.probe_series(run.id, name);
      std::printf("  %-16s %zu positions, %zu points\n", name.c_str(), s.positions.size(),
                  s.steps.size());
    }
  }
}

// The best point of each curve train.best_metric can choose checkpoint_best by (the lowest
// valid_loss, the highest valid_bleu; the first of equals), and the one it follows: where the
// two fall at other updates, selecting on the other would have evaluated another model.
struct BestPoint {
  std::string metric;
  db::MetricPoint point;
  bool followed = false;  // checkpoint_best's
};
std::vector<BestPoint> best_points(const db::RunRecord& run, const db::Store& store) {
  const std::string chosen = db::best_metric_of(run.config_json);
  std::vector<BestPoint> out;
  for (const auto& name : {db::metric::kValidLoss, db::metric::kValidBleu}) {
    const auto best =
        store.best_points({run.id}, name, db::metric::higher_is_better(name).value_or(false));
    if (best.empty()) continue;
    const bool followed = name == (chosen.empty() ? db::metric::kValidLoss : chosen);
    out.push_back({name, best.begin()->second, followed});
  }
  return out;
}

void print_best_points(const std::vector<BestPoint>& points) {
  if (points.empty()) return;
  std::cout << "best validation points\n";
  for (const auto& b : points)
    std::printf("  %-20s %-12.6g at update %lld%s\n", b.metric.c_str(), b.point.value,
                static_cast<long long>(b.point.step),
                b.followed ? "   checkpoint_best follows it (train.best_metric)" : "");
}

// The spikes of the spike metrics (db/metric_names.h) under `rule`.
void print_spikes(const db::RunRecord& run, const db::Store& store, const SpikeRule& rule) {
  for (const auto& metric : db::metric::spike_metrics()) {
    const auto spikes = spikes_of(store, run.id, metric, rule);
    if (spikes.empty()) continue;
    std::printf("spikes of %s (> %g std above the mean of the %d points before)\n", metric.c_str(),
                rule.k, rule.window);
    for (const auto& s : spikes)
      std::printf("  update %-8lld %-12.5g mean %-10.5g std %-10.4g %s\n",
                  static_cast<long long>(s.step), s.value, s.mean, s.std,
                  std::isfinite(s.z) ? ("z " + std::to_string(s.z).substr(0, 6)).c_str() : "");
  }
}

void print_text(const db::RunRecord& run, const db::Store& store, const std::string& run_dir,
                const SpikeRule& rule) {
  print_fields(run, store.tags(run.id), forks_of(store, run.id));
  if (!run.final_metrics.empty()) {
    std::cout << "final metrics\n";
    for (const auto& [name, value] : run.final_metrics)
      std::printf("  %-20s %.6g\n", name.c_str(), value);
  }
  print_best_points(best_points(run, store));
  print_tags(run, store);
  print_stored(run, store, run_dir);
  print_system(run, store);
  print_spikes(run, store, rule);
  if (!run.config_yaml.empty()) {
    std::cout << "config\n";
    std::istringstream lines(run.config_yaml);
    for (std::string line; std::getline(lines, line);) std::cout << "  " << line << "\n";
  }
}

nlohmann::ordered_json to_json(const db::RunRecord& run, const db::Store& store,
                               const std::string& run_dir, const SpikeRule& rule) {
  nlohmann::ordered_json out = db::run_to_json(run);
  // The config as an object when it parses (it always should), else verbatim.
  auto config = nlohmann::ordered_json::parse(run.config_json, nullptr, /*allow_exceptions=*/false);
  out["config"] = config.is_discarded() ? nlohmann::ordered_json(run.config_json) : config;
  out["config_yaml"] = run.config_yaml;
  out["tags"] = store.tags(run.id);
  out["forks"] = forks_of(store, run.id);
  out["best_points"] = nlohmann::ordered_json::object();
  for (const auto& b : best_points(run, store))
    out["best_points"][b.metric] = {
        {"step", b.point.step}, {"value", b.point.value}, {"checkpoint_best", b.followed}};
  out["artifacts"] = nlohmann::ordered_json::array();
  for (const auto& a : store.artifacts(run.id)) {
    auto row = db::artifact_to_json(a);
    const auto bytes = artifact_bytes(a, run_dir);
    row["bytes"] = bytes ? nlohmann::ordered_json(*bytes) : nlohmann::ordered_json(nullptr);
    out["artifacts"].push_back(row);
  }
  out["metrics"] = store.metric_names(run.id);
  out["probes"] = store.probe_names(run.id);
  out["system"] = nlohmann::ordered_json::object();
  for (const auto& s : db::system_summary(store, run.id))
    out["system"][s.name] = {
        {"last", s.last}, {"mean", s.mean}, {"max", s.max}, {"samples", s.samples}};
  out["spikes"] = nlohmann::ordered_json::object();
  out["spikes"]["rule"] = {{"k", rule.k}, {"window", rule.window}};
  for (const auto& metric : db::metric::spike_metrics()) {
    auto& list = out["spikes"][metric] = nlohmann::ordered_json::array();
    for (const auto& s : spikes_of(store, run.id, metric, rule))
      list.push_back({{"step", s.step},
                      {"value", std::isfinite(s.value) ? nlohmann::ordered_json(s.value) : nullptr},
                      {"mean", s.mean},
                      {"std", s.std},
                      {"z", std::isfinite(s.z) ? nlohmann::ordered_json(s.z) : nullptr}});
  }
  return out;
}

void show_run(const GlobalOptions& global, const std::string& id_or_name, const SpikeRule& rule) {
  const std::string path = resolve_db_path(global);
  auto store = db::Store::open(path, db::OpenMode::ReadOnly);
  const db::RunRecord run = named_run(store, id_or_name);
  std::string run_dir;
  try {
    run_dir = resolve_store_paths(global).run_dir(run.id);
  } catch (const InputError&) {  // a server store without an artifacts folder named here
  }
  if (global.json)
    std::cout << to_json(run, store, run_dir, rule).dump(2) << "\n";
  else
    print_text(run, store, run_dir, rule);
}

}  // namespace

void add_show_command(CLI::App& app, GlobalOptions& options) {
  auto run = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("show", "Show one run: status, metrics, artifacts, config");
  auto rule = std::make_shared<SpikeRule>();
  cmd->add_option("run", *run, "run id, or name (the latest run with that name)")->required();
  cmd->add_option("--spike-k", rule->k,
                  "a spike: a point more than K sample standard deviations above the mean of "
                  "the points before it")
      ->check(positive_number())
      ->capture_default_str();
  cmd->add_option("--spike-window", rule->window, "how many points before it (N)")
      ->check(CLI::Range(2, 100000))
      ->capture_default_str();
  cmd->callback([&options, run, rule] { show_run(options, *run, *rule); });
}

}  // namespace fathom::cli
