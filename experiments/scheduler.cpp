#include "experiments/scheduler.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

#include "experiments/sweep_progress.h"

namespace fathom {
namespace {
namespace fs = std::filesystem;

// This process's environment with `extra` (NAME=value) set, for execve.
std::vector<std::string> environment_with(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const bool replaced = std::any_of(extra.begin(), extra.end(), [&](const std::string& x) {
      return entry.compare(0, x.find('=') + 1, x, 0, x.find('=') + 1) == 0;
    });
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

// fork + exec of one worker, its stdout and stderr appended to `log_path`.
pid_t start_worker(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                   const std::string& log_path) {
  fs::create_directories(fs::path(log_path).parent_path());
  // Everything execve needs is built before fork: the child only calls async-signal-safe code.
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      close(fd);
    }
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  return pid;
}

std::string exit_reason(int status) {
  if (WIFSIGNALED(status))
    return std::string("worker killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  return "worker exited with status " + std::to_string(WEXITSTATUS(status)) +
         " without recording an end";
}

void count(SweepCounts& counts, const std::string& status) {
  if (status == "finished") ++counts.finished;
  else if (status == "diverged") ++counts.diverged;
  else if (status == "failed") ++counts.failed;
  else if (status == "crashed") ++counts.crashed;
  else if (status == "cancelled") ++counts.cancelled;
  else ++counts.other;
}

// What the scheduler needs from a run's stored config.
struct RunPlan {
  int64_t max_updates = 0;
  bool cpu_only = false;  // device: cpu in the config: never mapped to a GPU slot
};

RunPlan plan_of(const db::RunRecord& record) {
  RunPlan plan;
  const auto config = nlohmann::json::parse(record.config_json, nullptr, false);
  if (config.is_object()) {
    if (config.contains("train") && config["train"].contains("max_updates"))
      plan.max_updates = config["train"]["max_updates"].get<int64_t>();
    plan.cpu_only = config.value("device", "") == "cpu";
  }
  return plan;
}

int terminal_width() {
  winsize w{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 20) return w.ws_col;
  return 120;
}

// Redraws the status block in place on a terminal; elsewhere (a log) prints the summary line
// every 30 s.
class StatusDisplay {
 public:
  explicit StatusDisplay(bool enabled) : enabled_(enabled), tty_(isatty(STDERR_FILENO)) {}
  void draw(const SweepSnapshot& s, bool force) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    const double since = std::chrono::duration<double>(now - last_).count();
    if (!force && since < (tty_ ? 1.0 : 30.0)) return;
    last_ = now;
    const auto lines = render_sweep_progress(s, terminal_width());
    if (!tty_) {
      std::fprintf(stderr, "%s\n", lines.front().c_str());
      return;
    }
    if (shown_ > 0) std::fprintf(stderr, "\033[%dA", shown_);  // back to the block's top
    for (const auto& line : lines) std::fprintf(stderr, "\r\033[K%s\n", line.c_str());
    for (int i = static_cast<int>(lines.size()); i < shown_; ++i) std::fprintf(stderr, "\r\033[K\n");
    if (shown_ > static_cast<int>(lines.size()))
      std::fprintf(stderr, "\033[%dA", shown_ - static_cast<int>(lines.size()));
    shown_ = static_cast<int>(lines.size());
    std::fflush(stderr);
  }

 private:
  bool enabled_, tty_;
  int shown_ = 0;
  std::chrono::steady_clock::time_point last_{};
};

struct Worker {
  int64_t run;
  int slot;
};

}  // namespace

SweepCounts run_workers(db::Store& store, const std::vector<int64_t>& runs,
                        const SchedulerOptions& options,
                        const std::function<std::string(int64_t)>& artifacts_dir) {
  std::map<pid_t, Worker> running;
  std::vector<bool> slot_busy(static_cast<size_t>(std::max(1, options.jobs)), false);
  std::map<int64_t, RunPlan> plans;
  std::map<int64_t, std::string> slot_device;  // run -> device its worker was given
  std::map<int64_t, db::RunRecord> latest;     // last seen state of each run
  for (int64_t id : runs)
    if (auto r = store.find_run(std::to_string(id))) {
      plans[id] = plan_of(*r);
      latest[id] = *r;
    }

  const auto start = std::chrono::steady_clock::now();
  size_t next = 0;
  SweepCounts counts;
  SweepSnapshot snapshot;
  snapshot.sweep = options.sweep_name;
  snapshot.runs = static_cast<int>(runs.size());
  auto refresh = [&](bool initial) {
    snapshot.updates_done = snapshot.updates_total = 0;
    snapshot.running.clear();
    snapshot.finished = counts.finished;
    snapshot.diverged = counts.diverged;
    snapshot.failed = counts.failed;
    snapshot.crashed = counts.crashed;
    snapshot.cancelled = counts.cancelled;
    snapshot.queued = static_cast<int>(runs.size() - next);
    snapshot.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (int64_t id : runs) {
      const RunPlan& plan = plans[id];
      const db::RunRecord& r = latest[id];
      snapshot.updates_total += plan.max_updates;
      const bool ended = db::is_terminal_status(r.status) && r.status != "crashed";
      snapshot.updates_done += ended ? plan.max_updates : std::min(r.updates, plan.max_updates);
    }
    for (const auto& [pid, w] : running) {
      const db::RunRecord& r = latest[w.run];
      RunProgress p{w.run, r.name, r.updates, plans[w.run].max_updates, std::nullopt,
                    slot_device[w.run]};
      const auto losses = store.metric_series(w.run, "train_loss");
      if (!losses.empty()) p.train_loss = losses.back().value;
      snapshot.running.push_back(p);
    }
    if (initial) snapshot.updates_at_start = snapshot.updates_done;
  };
  refresh(true);

  const std::vector<std::string> worker_env = environment_with(
      {"FATHOM_DB=" + options.db_location, "FATHOM_ARTIFACTS=" + options.artifacts_root});
  StatusDisplay display(options.progress);
  while (next < runs.size() || !running.empty()) {
    while (running.size() < slot_busy.size() && next < runs.size()) {
      const int64_t run = runs[next++];
      auto record = store.find_run(std::to_string(run));
      // Cancelled (or already ended by someone else) while it waited: skip it.
      if (!record || (record->status != "queued" && record->status != "crashed")) continue;
      const int slot = static_cast<int>(std::find(slot_busy.begin(), slot_busy.end(), false) - slot_busy.begin());
      std::vector<std::string> argv{
          options.fathom_binary, "train", "--resume", std::to_string(run),
          "--no-progress", "--set", "train.threads=" + std::to_string(options.threads_per_worker)};
      if (!options.devices.empty() && !plans[run].cpu_only) {
        slot_device[run] = options.devices[slot % options.devices.size()];
        argv.insert(argv.end(), {"--device", slot_device[run]});
      }
      const pid_t pid = start_worker(argv, worker_env, (fs::path(artifacts_dir(run)) / "worker.log").string());
      store.set_tag(run, "worker.pid", std::to_string(pid));
      slot_busy[slot] = true;
      running[pid] = {run, slot};
    }
    int status = 0;
    const pid_t done = waitpid(-1, &status, WNOHANG);
    if (done > 0 && running.count(done)) {
      const Worker w = running[done];
      running.erase(done);
      slot_busy[w.slot] = false;
      auto record = store.find_run(std::to_string(w.run));
      // Still running or queued in the store: the worker died before it could record an end.
      if (record && (record->status == "running" || record->status == "queued")) {
        store.finish_run(w.run, "crashed", exit_reason(status));
        record = store.find_run(std::to_string(w.run));
      }
      if (record) {
        count(counts, record->status);
        latest[w.run] = *record;
      }
      continue;
    }
    if (options.progress) {
      for (const auto& [pid, w] : running)
        if (auto r = store.find_run(std::to_string(w.run))) latest[w.run] = *r;
      refresh(false);
      display.draw(snapshot, false);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  if (options.progress) {
    refresh(false);
    display.draw(snapshot, true);
  }
  return counts;
}

}  // namespace fathom
