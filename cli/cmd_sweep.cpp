// `fathom sweep SWEEP.yaml [--jobs N] [--resume] [--dry-run]`: expands a sweep file
// (docs/sweeps.md), checks every run's config exactly as `fathom train` would, records the runs
// in the store as queued (tags axis.<key> hold their axis values) and trains them in worker
// processes (experiments/scheduler.h). `--resume` continues a sweep after anything stopped it,
// even kill -9 of the scheduler and its workers: ended runs are kept, interrupted ones continue
// from their last checkpoint. `fathom sweep status NAME` and `fathom sweep cancel NAME`.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <thread>

#include <torch/cuda.h>

#include "cli/commands.h"
#include "db/run_paths.h"
#include "core/config/config_io.h"
#include "core/model/registry.h"
#include "core/util/error.h"
#include "core/util/strings.h"
#include "core/util/version.h"
#include "experiments/scheduler.h"
#include "experiments/sweep_spec.h"

namespace fathom::cli {
namespace {
namespace fs = std::filesystem;

struct SweepArgs {
  std::string file;
  bool dry_run = false;
  bool resume = false;
  bool no_progress = false;
  int jobs = 1;
  std::string devices = "auto";  // --devices cuda:0,cuda:1; "auto": every visible GPU; "none"
  std::string name;     // status / cancel
};

std::string self_binary() { return fs::read_symlink("/proc/self/exe").string(); }

// The devices worker slots map to: "auto" -> cuda:0..n-1 when GPUs are visible, else none.
std::vector<std::string> slot_devices(const std::string& spec) {
  std::vector<std::string> devices;
  if (spec == "none") return devices;
  if (spec == "auto") {
    const int n = static_cast<int>(torch::cuda::device_count());
    for (int i = 0; i < n; ++i) devices.push_back("cuda:" + std::to_string(i));
    return devices;
  }
  for (const std::string& d : split(spec, ',')) {
    if (d != "cpu" && d.rfind("cuda:", 0) != 0)
      throw InputError("--devices", 0, "--devices", "'" + d + "' is not cpu or cuda:N");
    devices.push_back(d);
  }
  return devices;
}

void run_sweep(const SweepArgs& args, const GlobalOptions& global) {
  const SweepSpec spec = load_sweep_file(args.file);
  const auto runs = expand_sweep(spec, [](const RunConfig& config) { check_model_methods(config); });
  if (args.dry_run) {
    std::cout << describe_sweep(runs);
    return;
  }
  if (args.jobs < 1) throw InputError("--jobs", 0, "--jobs", "must be at least 1");
  const std::string db_path = resolve_db_path(global);
  auto store = db::Store::open(db_path);
  std::map<std::string, db::RunRecord> existing;
  for (auto& r : store.list_runs(spec.name)) existing[r.name] = r;
  if (!existing.empty() && !args.resume)
    throw InputError(args.file, spec.line, "name",
                     "sweep '" + spec.name + "' already has " + std::to_string(existing.size()) +
                         " runs in " + store.path() + "; add --resume to continue it");

  // How the axes were varied, for tables and reports: "a+b,c" (a zip group is one group).
  std::string layout;
  for (const auto& axis : spec.axes) {
    std::string group;
    for (const auto& key : axis.keys) group += (group.empty() ? "" : "+") + key;
    layout += (layout.empty() ? "" : ",") + group;
  }
  std::vector<int64_t> ids;
  int kept = 0;
  for (const auto& run : runs) {
    auto it = existing.find(run.name);
    if (it == existing.end()) {
      db::NewRun row;
      row.name = run.name;
      row.sweep = spec.name;
      row.config_json = config_to_json(run.config).dump();
      row.config_yaml = config_to_yaml(run.config);
      row.git_rev = git_revision();
      const int64_t id = store.create_run(row);
      for (const auto& axis : run.axes) store.set_tag(id, "axis." + axis.key, axis.value);
      store.set_tag(id, "sweep.axes", layout);
      ids.push_back(id);
      continue;
    }
    const db::RunRecord& record = it->second;
    if (record.status == "running") {
      // This scheduler is the only one driving the sweep: a run left "running" lost its worker.
      store.finish_run(record.id, "crashed", "interrupted: its worker stopped with the scheduler");
      ids.push_back(record.id);
    } else if (record.status == "queued" || record.status == "crashed") {
      ids.push_back(record.id);
    } else {
      ++kept;  // finished, diverged, failed, cancelled: kept as they are
    }
  }
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  SchedulerOptions options;
  options.fathom_binary = self_binary();
  const db::StorePaths paths = resolve_store_paths(global);
  // Workers get the store through the environment (a URL may hold a password; argv is public).
  options.db_location = store.is_file() ? fs::absolute(store.url().connect).string() : db_path;
  options.artifacts_root = paths.artifacts_root;
  options.jobs = args.jobs;
  options.threads_per_worker = std::max(1, cores / args.jobs);
  options.progress = !args.no_progress;
  options.sweep_name = spec.name;
  options.devices = slot_devices(args.devices);
  std::string mapping;
  for (const auto& d : options.devices) mapping += (mapping.empty() ? " on " : ",") + d;
  std::fprintf(stderr, "sweep %s: %zu runs (%d already ended, %zu to run) with %d worker(s)%s -> %s\n",
               spec.name.c_str(), runs.size(), kept, ids.size(), args.jobs, mapping.c_str(),
               store.path().c_str());
  const SweepCounts counts = run_workers(store, ids, options, [&](int64_t id) {
    return paths.run_dir(id);
  });
  std::printf("sweep %s: %d finished, %d diverged, %d failed, %d crashed, %d cancelled "
              "(this session)\n",
              spec.name.c_str(), counts.finished, counts.diverged, counts.failed, counts.crashed,
              counts.cancelled);
}

void sweep_status(const GlobalOptions& global, const std::string& name) {
  const std::string db_path = resolve_db_path(global);
  auto store = db::Store::open(db_path, db::OpenMode::ReadOnly);
  const auto runs = store.list_runs(name);
  if (runs.empty()) throw InputError(store.path(), 0, "sweep", "no sweep named '" + name + "'");
  std::map<std::string, int> by_status;
  for (const auto& r : runs) {
    ++by_status[r.status];
    std::string status = r.status;
    if (r.diverged_step) status += "@" + std::to_string(*r.diverged_step);
    std::printf("%5lld  %-14s %7lld  %s\n", static_cast<long long>(r.id), status.c_str(),
                static_cast<long long>(r.updates), r.name.c_str());
  }
  std::printf("%zu runs:", runs.size());
  for (const auto& [status, n] : by_status) std::printf(" %d %s", n, status.c_str());
  std::printf("\n");
}

// Queued runs become cancelled; running ones are cancelled and their worker stopped (SIGTERM)
// when it runs on this host.
void sweep_cancel(const GlobalOptions& global, const std::string& name) {
  const std::string db_path = resolve_db_path(global);
  auto store = db::Store::open(db_path);
  const auto runs = store.list_runs(name);
  if (runs.empty()) throw InputError(store.path(), 0, "sweep", "no sweep named '" + name + "'");
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  int cancelled = 0;
  for (const auto& r : runs) {
    if (r.status != "queued" && r.status != "running") continue;
    store.finish_run(r.id, "cancelled", "cancelled by `fathom sweep cancel`");
    ++cancelled;
    const auto tags = store.tags(r.id);
    auto pid = tags.find("worker.pid");
    if (r.status == "running" && pid != tags.end() && r.host == host)
      kill(static_cast<pid_t>(std::stoll(pid->second)), SIGTERM);
  }
  std::printf("sweep %s: %d runs cancelled\n", name.c_str(), cancelled);
}

}  // namespace

void add_sweep_command(CLI::App& app, GlobalOptions& global) {
  auto args = std::make_shared<SweepArgs>();
  CLI::App* cmd = app.add_subcommand("sweep", "Run a sweep file in worker processes (docs/sweeps.md)");
  cmd->add_option("sweep", args->file, "sweep YAML");
  cmd->add_flag("--dry-run", args->dry_run, "check every run's config and print the runs");
  cmd->add_flag("--resume", args->resume, "continue the sweep: keep ended runs, resume the rest");
  cmd->add_option("--jobs", args->jobs, "parallel worker processes (default 1)");
  cmd->add_flag("--no-progress", args->no_progress, "no status lines");
  cmd->add_option("--devices", args->devices,
                  "devices of the worker slots, e.g. cuda:0,cuda:1 (slot i -> device i mod n); "
                  "auto: every visible GPU (default); none: as the configs say")
      ->default_val("auto");
  CLI::App* status = cmd->add_subcommand("status", "List a sweep's runs and their status");
  status->add_option("name", args->name, "sweep name")->required();
  status->callback([args, &global] { sweep_status(global, args->name); });
  CLI::App* cancel = cmd->add_subcommand("cancel", "Cancel a sweep's queued and running runs");
  cancel->add_option("name", args->name, "sweep name")->required();
  cancel->callback([args, &global] { sweep_cancel(global, args->name); });
  cmd->callback([cmd, args, &global] {
    if (cmd->get_subcommands().empty()) {
      if (args->file.empty()) throw InputError("fathom sweep", 0, "SWEEP", "give a sweep file");
      run_sweep(*args, global);
    }
  });
}

}  // namespace fathom::cli
