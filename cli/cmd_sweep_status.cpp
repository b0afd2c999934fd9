// `fathom sweep`'s command line (cli/sweep_command_line.h) and its store-only sub-commands:
// `fathom sweep status NAME` (every run's status, worker and heartbeat; the time left at its
// running runs' pace; who holds a stalled store's write lock) and `fathom sweep cancel NAME`.
#include "cli/sweep_command_line.h"

#include <cstdio>
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "base/util/error.h"
#include "base/util/progress.h"
#include "base/util/strings.h"
#include "db/early_stop_tag.h"
#include "db/run_status.h"
#include "experiments/launcher_registry.h"
#include "experiments/sweep_pace.h"
#include "experiments/write_lock_watch.h"

namespace fathom::cli {
namespace {

// One run of `fathom sweep status --json`; `early_stop_tags`: its tags where train.patience ended
// it.
nlohmann::json status_json_row(const db::RunRecord& r, const std::string& job,
                               const std::string& state,
                               const experiments::WorkerTags* early_stop_tags, double now) {
  return {{"id", r.id},
          {"name", r.name},
          {"status", r.status},
          {"diverged_step", r.diverged_step ? nlohmann::json(*r.diverged_step) : nullptr},
          {"updates", r.updates},
          {"host", r.host},
          {"job", job},
          {"worker", state == "-" ? "" : state},
          {"heartbeat_age_s", r.status == db::status::kRunning && r.heartbeat_at > 0
                                  ? nlohmann::json(now - r.heartbeat_at)
                                  : nullptr},
          {"early_stop",
           early_stop_tags ? nlohmann::json(early_stop_tags->at(db::kEarlyStopTag)) : nullptr}};
}

nlohmann::json time_left_json(const std::optional<experiments::SweepTimeLeft>& left) {
  if (!left) return nullptr;
  return {{"seconds", left->seconds},
          {"paced_runs", left->paced_runs},
          {"updates_left", left->updates_left}};
}

// The time left at the running runs' pace, and the lost runs left out of it (their worker
// silent past the heartbeat timeout: shown crashed).
void print_time_left(const std::optional<experiments::SweepTimeLeft>& left, int lost) {
  if (left)
    std::printf(
        "time left: ~%s at the pace of its %d running run(s) now (%lld updates left; the queued "
        "ones taken as large as those running, by as many workers)\n",
        ProgressBar::format_duration(left->seconds).c_str(), left->paced_runs,
        static_cast<long long>(left->updates_left));
  if (lost > 0)
    std::printf(
        "%d running run(s) lost: no heartbeat for over %.0f s (their updates are counted as still "
        "to make, their pace is not; `fathom sweep FILE --resume` takes them again)\n",
        lost, experiments::kDefaultHeartbeatTimeout);
}

void sweep_status(const GlobalOptions& global, const std::string& name) {
  const std::string db_path = resolve_db_path(global);
  auto store = db::Store::open(db_path, db::OpenMode::ReadOnly);
  const auto runs = store.list_runs(name);
  if (runs.empty()) throw InputError(store.path(), 0, "sweep", "no sweep named '" + name + "'");
  std::vector<experiments::WorkerTags> tags;
  for (const auto& r : runs) tags.push_back(store.tags(r.id));
  const auto states = experiments::worker_states(tags);
  const double now = db::unix_now();
  std::map<std::string, int> by_status;
  int stopped_early = 0, lost = 0;
  nlohmann::json json_runs = nlohmann::json::array();
  if (!global.json)
    std::printf("%5s  %-21s %7s  %-12s %-12s %-22s %9s  %s\n", "id", "status", "updates", "host",
                "job", "worker", "heartbeat", "name");
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    ++by_status[r.status];
    lost += r.status == db::status::kRunning &&
            experiments::shown_status(r, now) != db::status::kRunning;
    std::string status = r.status;
    if (r.diverged_step) status += "@" + std::to_string(*r.diverged_step);
    const bool early = r.status == db::status::kFinished && db::ended_by_early_stop(tags[i]);
    if (early) {
      status += " (early stop)";
      ++stopped_early;
    }
    const std::string job = experiments::worker_job(tags[i]);
    std::string state = experiments::worker_state(r, tags[i], states);
    if (state.empty()) state = "-";
    const std::string beat =
        r.status == db::status::kRunning && r.heartbeat_at > 0
            ? std::to_string(static_cast<long long>(now - r.heartbeat_at)) + " s ago"
            : "-";
    if (global.json) {
      json_runs.push_back(status_json_row(r, job, state, early ? &tags[i] : nullptr, now));
      continue;
    }
    std::printf("%5lld  %-21s %7lld  %-12s %-12s %-22s %9s  %s\n", static_cast<long long>(r.id),
                status.c_str(), static_cast<long long>(r.updates),
                r.host.empty() ? "-" : r.host.c_str(), job.empty() ? "-" : job.c_str(),
                state.c_str(), beat.c_str(), r.name.c_str());
  }
  // Every worker silent at once: a process frozen inside a write (experiments/write_lock_watch.h).
  const auto stalled_by = experiments::stalled_write_lock_holder(store);
  const std::string holder =
      stalled_by ? experiments::describe_lock_holder(store, *stalled_by, db::unix_now()) : "";
  const auto time_left = experiments::sweep_time_left(store, name, runs, now);
  if (global.json) {
    std::cout << nlohmann::json{{"sweep", name},
                                {"runs", json_runs},
                                {"counts", by_status},
                                {"time_left", time_left_json(time_left)},
                                {"store_locked_by", stalled_by ? nlohmann::json(*stalled_by)
                                                               : nlohmann::json(nullptr)},
                                {"store_lock_holder",
                                 stalled_by ? nlohmann::json(holder) : nlohmann::json(nullptr)}}
                     .dump(2)
              << "\n";
    return;
  }
  std::printf("%zu runs:", runs.size());
  for (const auto& [status, n] : by_status) {
    std::printf(" %d %s", n, status.c_str());
    if (status == db::status::kFinished && stopped_early > 0)
      std::printf(" (%d stopped early by train.patience)", stopped_early);
  }
  std::printf("\n");
  print_time_left(time_left, lost);
  if (stalled_by)
    std::printf(
        "the run store's write lock is held by %s, still a second later: every writer waits on "
        "it (a process stopped or hung inside a write?)\n",
        holder.c_str());
}

// Queued runs become cancelled; running ones are cancelled and their workers stopped wherever
// they run (experiments/run_control.h); workers not started yet (a job
// array's pending tasks) are cancelled too.
void sweep_cancel(const GlobalOptions& global, const std::string& name) {
  const std::string db_path = resolve_db_path(global);
  auto store = db::Store::open(db_path);
  if (store.list_runs(name).empty())
    throw InputError(store.path(), 0, "sweep", "no sweep named '" + name + "'");
  const experiments::CancelReport report =
      experiments::cancel_sweep(store, name, "cancelled by `fathom sweep cancel`");
  for (const auto& problem : report.problems)
    std::fprintf(stderr, "warning: %s\n", problem.c_str());
  if (global.json)
    std::cout << nlohmann::json{{"sweep", name},
                                {"cancelled", report.cancelled},
                                {"warnings", report.problems}}
                     .dump(2)
              << "\n";
  else
    std::printf("sweep %s: %d runs cancelled\n", name.c_str(), report.cancelled);
}

}  // namespace

CLI::App* add_sweep_command_line(CLI::App& app, const std::shared_ptr<SweepArgs>& args,
                                 GlobalOptions& global) {
  CLI::App* cmd =
      app.add_subcommand("sweep", "Run a sweep file in worker processes (docs/sweeps.md)");
  cmd->add_option("sweep", args->file, "sweep YAML");
  cmd->add_flag("--dry-run", args->dry_run, "check every run's config and print the runs");
  cmd->add_flag("--resume", args->resume, "continue the sweep: keep ended runs, resume the rest");
  cmd->add_option("--jobs", args->jobs, "parallel worker processes (default 1)");
  cmd->add_flag("--no-progress", args->no_progress, "no status lines");
  cmd->add_option("--launcher", args->launcher,
                  "where workers run: " + experiments::describe_launchers() + "; docs/cluster.md");
  cmd->add_flag("--wait", args->wait,
                "with " + join(experiments::launchers_handing_over(), ", ") +
                    ": follow the launch until every run ended");
  cmd->add_flag("--yes", args->yes, "queue a sweep of more than 1000 runs");
  cmd->add_option("--set", args->overrides,
                  "a config value for every run, over the sweep's base and set: "
                  "(--set train.max_updates=100000; not an axis key)")
      ->take_all();
  cmd->add_option("--name", args->rename,
                  "the sweep's name (prefix of its run names) instead of the file's name:");
  cmd->add_option("--heartbeat-timeout", args->heartbeat_timeout,
                  "seconds without a heartbeat after which a running run's worker counts as lost "
                  "(default 180; at least 3 heartbeat intervals)");
  cmd->add_option("--heartbeat-interval", args->heartbeat_interval,
                  "seconds between a worker's heartbeats (default 20)")
      ->check(CLI::Range(db::kMinHeartbeatInterval, 3600.0));
  cmd->add_option("--retry", args->retry,
                  "with --resume: also continue runs that ended with these statuses "
                  "(cancelled, failed), from their last checkpoint")
      ->delimiter(',');
  cmd->add_option("--devices", args->devices,
                  "devices of the worker slots, e.g. cuda:0,cuda:1 (slot i -> device i mod n); "
                  "auto: every visible GPU (default); none: as the configs say")
      ->default_val("auto");
  auto name = std::make_shared<std::string>();
  // The sub-commands' callbacks hold `args` too: the options above write into it while the app
  // parses, so it must live as long as the app does, whoever called (the front passed a
  // temporary, and `fathom sweep status S --jobs 2` or `... status S extra` wrote into freed
  // memory: found by fuzz/fuzz_cli.cpp under ASan).
  CLI::App* status = cmd->add_subcommand("status", "List a sweep's runs and their status");
  status->add_option("name", *name, "sweep name")->required();
  status->callback([name, args, &global] { sweep_status(global, *name); });
  CLI::App* cancel = cmd->add_subcommand("cancel", "Cancel a sweep's queued and running runs");
  cancel->add_option("name", *name, "sweep name")->required();
  cancel->callback([name, args, &global] { sweep_cancel(global, *name); });
  add_sweep_extend_command(*cmd, global);
  return cmd;
}

}  // namespace fathom::cli
