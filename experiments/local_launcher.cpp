// The local launcher: workers are child processes on this machine, `parallel` at a time. The
// launcher claims each run for its worker (Store::claim_next_run, so a run is never trained
// twice even if another scheduler drives the same sweep) and starts `fathom worker --run ID`
// with its output appended to the run's worker.log; waitpid tells how each one ended.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>

#include "base/util/process.h"
#include "base/util/strings.h"
#include "db/run_status.h"
#include "experiments/launcher_registry.h"
#include "experiments/worker_exit.h"

namespace fathom::experiments {
namespace {
namespace fs = std::filesystem;

const std::string kLocalName = "local";

// fork + exec of one worker, its stdout and stderr appended to `log_path`.
pid_t start_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                    const std::string& log_path) {
  fs::create_directories(fs::path(log_path).parent_path());
  // Everything execve needs is built before fork: the child only calls async-signal-safe code.
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed: " + std::string(strerror(errno)));
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
  return "worker exited with status " + std::to_string(WEXITSTATUS(status)) + " (" +
         describe_worker_exit(WEXITSTATUS(status)) + ") without recording an end";
}

bool cpu_only(const db::RunRecord& record) {  // device: cpu in the config: never a GPU slot
  const auto config = nlohmann::json::parse(record.config_json, nullptr, false);
  return config.is_object() && config.value("device", "") == "cpu";
}

// train.processes of a run: the worker slots it takes (its ranks, docs/distributed.md).
int processes_of(const db::RunRecord& record) {
  const auto config = nlohmann::json::parse(record.config_json, nullptr, false);
  if (!config.is_object() || !config.contains("train") || !config["train"].is_object()) return 1;
  return std::max(1, config["train"].value("processes", 1));
}

class LocalLauncher : public Launcher {
 public:
  std::string name() const override { return kLocalName; }

  void check(const LaunchRequest&, const std::vector<RunConfig>&) override {}

  std::string launch(db::Store&, const LaunchRequest& request) override {
    request_ = request;
    slots_.assign(static_cast<size_t>(std::max(1, request.parallel)), 0);
    env_ = environment_with(
        {"FATHOM_DB=" + request.db_location, "FATHOM_ARTIFACTS=" + request.artifacts_root});
    drained_ = false;
    return std::to_string(slots_.size()) + " worker(s) on this machine";
  }

  std::vector<WorkerEnd> poll(db::Store& store) override {
    std::vector<WorkerEnd> ended;
    int status = 0;
    // Its own workers only, by pid: the process has other children to reap (alert commands,
    // experiments/notify_command.h), whose exit statuses are theirs.
    for (auto it = running_.begin(); it != running_.end();) {
      if (waitpid(it->first, &status, WNOHANG) != it->first) {
        ++it;
        continue;
      }
      ended.push_back({it->second.run, exit_reason(status), it->second.lease});
      // A worker stopped by a signal (someone's SIGTERM or Ctrl+C) put its run back in the
      // queue: it stays there for `fathom sweep --resume`, as a scancel'd Slurm task's does,
      // rather than being started again at once by this launch.
      if (WIFEXITED(status) && WEXITSTATUS(status) == kWorkerRequeued)
        stopped_.push_back(it->second.run);
      std::replace(slots_.begin(), slots_.end(), it->first, 0);  // every slot its ranks held
      it = running_.erase(it);
      drained_ = false;  // a worker that ended frees a slot for the next queued run
    }
    // Claims are write transactions: when the queue was empty, look again only now and then.
    const auto now = std::chrono::steady_clock::now();
    if (drained_ && now - last_claim_ < std::chrono::seconds(2)) return ended;
    // Nor while another process holds the store's write lock (a worker frozen inside a
    // transaction): a claim would wait on it, and the scheduler calling this is the one to put
    // that worker down (experiments/scheduler.cpp). The next poll claims.
    if (store.write_lock_holder()) return ended;
    while (std::count(slots_.begin(), slots_.end(), 0) > 0) {
      const int slot =
          static_cast<int>(std::find(slots_.begin(), slots_.end(), 0) - slots_.begin());
      const std::string device =
          request_.devices.empty() ? "" : request_.devices[slot % request_.devices.size()];
      last_claim_ = now;
      auto run = store.claim_next_run(request_.sweep, host_name(), device, stopped_);
      drained_ = !run;
      if (!run) break;
      const db::Lease lease{run->id, run->lease};
      std::vector<std::string> argv{request_.fathom_binary,
                                    "worker",
                                    "--run",
                                    std::to_string(run->id),
                                    "--lease",
                                    std::to_string(lease.generation),
                                    "--threads",
                                    std::to_string(request_.threads_per_worker),
                                    "--heartbeat",
                                    format_number(request_.heartbeat_s),
                                    "--no-progress"};
      if (!device.empty() && !cpu_only(*run)) argv.insert(argv.end(), {"--device", device});
      const std::string log = worker_log_path(request_.run_dir(run->id));
      pid_t child;
      try {
        child = start_process(argv, env_, log);
      } catch (const std::exception& e) {
        ended.push_back({run->id, e.what(), lease.generation});  // the scheduler marks it
        break;
      }
      slots_[slot] = child;
      // A data-parallel run's other ranks take free slots too (as many as there are: a run of
      // more processes than --jobs still runs, with the machine to itself once they free up).
      for (int more = processes_of(*run) - 1; more > 0; --more) {
        const auto free = std::find(slots_.begin(), slots_.end(), 0);
        if (free == slots_.end()) break;
        *free = child;
      }
      running_[child] = {run->id, slot, lease.generation};
      claimed_.insert({run->id, lease.generation});
      // What the worker records too, written here first so the run is never without a way to
      // stop its worker. Under the claim's lease: a run cancelled meanwhile keeps its end (and
      // its worker stops at its first write).
      try {
        record_worker_tags(store, lease, holder_tags(name(), child, log));
      } catch (const db::LeaseLost&) {
      }
    }
    return ended;
  }

  bool active() const override { return !running_.empty() || !drained_; }

  bool ran(int64_t run, int64_t lease) const override { return claimed_.count({run, lease}) > 0; }

  ChildWorker child_worker(int64_t run, int64_t lease) const override {
    for (const auto& [pid, child] : running_) {
      if (child.run != run || child.lease != lease) continue;
      const char state = process_state(pid);  // the leader's; '\0' once it has no /proc entry
      return state == 'Z' || state == 'X' || state == '\0' ? ChildWorker::kDying
                                                           : ChildWorker::kLiving;
    }
    return ChildWorker::kNone;
  }

 private:
  struct Child {
    int64_t run;
    int slot;
    int64_t lease;  // the generation its claim got
  };
  LaunchRequest request_;
  std::vector<pid_t> slots_;  // 0: free
  std::map<pid_t, Child> running_;
  std::set<std::pair<int64_t, int64_t>> claimed_;  // (run, lease) of every worker it started
  std::vector<int64_t> stopped_;  // runs whose worker was stopped by a signal: not reclaimed
  std::vector<std::string> env_;
  // The last claim found no queued run; before launch() there is nothing to start (a resumed
  // sweep whose remaining runs all have live workers elsewhere is only followed).
  bool drained_ = true;
  std::chrono::steady_clock::time_point last_claim_{};
};

// The process a local worker recorded in its run's tags (worker.pid, worker.host -- the run's
// host for tags from before it -- and worker.started); nullopt when it recorded no pid.
struct RecordedProcess {
  std::string pid_text, where, start_ticks;
  pid_t pid() const { return static_cast<pid_t>(std::stoll(pid_text)); }
  bool here() const { return where == host_name(); }
};

std::optional<RecordedProcess> recorded_process(const db::RunRecord& run, const WorkerTags& tags) {
  auto pid = tags.find(worker_tag::kPid);
  if (pid == tags.end()) return std::nullopt;
  auto host = tags.find(worker_tag::kHost);
  auto started = tags.find(worker_tag::kStarted);
  return RecordedProcess{pid->second, host != tags.end() ? host->second : run.host,
                         started != tags.end() ? started->second : ""};
}

std::optional<std::string> stop_local(const db::RunRecord& run, const WorkerTags& tags) {
  const auto worker = recorded_process(run, tags);
  if (!worker) return std::nullopt;
  if (!worker->here())
    return "run " + std::to_string(run.id) + "'s worker runs on " + worker->where +
           ", not here: it stops at its next update after seeing the run cancelled";
  if (process_alive(worker->pid(), "fathom")) kill(worker->pid(), SIGTERM);
  return std::nullopt;
}

std::optional<std::string> gone_local(const db::RunRecord& run, const WorkerTags& tags) {
  const auto worker = recorded_process(run, tags);
  if (!worker || !worker->here()) return std::nullopt;  // only the heartbeat knows
  if (process_alive(worker->pid(), "fathom")) return std::nullopt;
  return "its worker (pid " + worker->pid_text + " on " + worker->where + ") is gone";
}

// SIGKILL, not SIGTERM: a frozen process runs no handler until it is woken, and a lost worker's
// run is no longer its own to checkpoint. Its locks go when its last thread has exited, which
// may be after its leader is a zombie: the wait is for that.
std::optional<std::string> put_down_local(const db::RunRecord& run, const WorkerTags& tags) {
  const auto worker = recorded_process(run, tags);
  if (!worker || !worker->here()) return std::nullopt;
  const auto alive = [&] {
    return same_process_alive(worker->pid(), worker->start_ticks, "fathom");
  };
  if (!alive() || kill(worker->pid(), SIGKILL) != 0) return std::nullopt;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while ((alive() || any_thread_left(worker->pid())) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return "its process (pid " + worker->pid_text + " on " + worker->where + ") was killed";
}

std::vector<std::string> cancel_pending_local(const std::vector<WorkerTags>&) { return {}; }

// A local worker's state is its run's status; nothing to add.
std::map<std::string, std::string> states_local(const std::vector<WorkerTags>&) { return {}; }

std::string job_local(const WorkerTags& tags) {
  auto pid = tags.find(worker_tag::kPid);
  return pid == tags.end() ? "" : "pid " + pid->second;
}

std::string queued_state_local(const WorkerTags&) { return ""; }

// worker.host and worker.pid, which every worker records, are all a local worker needs.
WorkerTags this_worker_tags_local() { return {}; }

// Its threads come from the sweep (`fathom worker --threads`: cores / jobs).
int this_worker_cores_local() { return 0; }

std::string after_requeue_local(int) { return ""; }

}  // namespace

LauncherEntry local_launcher_entry() {
  LauncherEntry e;
  e.name = kLocalName;
  e.make = [](const SweepSpec&) -> std::unique_ptr<Launcher> {
    return std::make_unique<LocalLauncher>();
  };
  e.follows_until_done = true;  // its workers are this process's children
  e.uses_local_devices = true;
  e.stop = stop_local;
  e.gone = gone_local;
  e.put_down = put_down_local;
  e.cancel_pending = cancel_pending_local;
  e.states = states_local;
  e.job_of = job_local;
  e.queued_state = queued_state_local;
  e.started_this_process = nullptr;  // the launcher a worker belongs to when no other claims it
  e.this_worker_tags = this_worker_tags_local;
  e.this_worker_cores = this_worker_cores_local;
  e.after_requeue = after_requeue_local;
  return e;
}

}  // namespace fathom::experiments
