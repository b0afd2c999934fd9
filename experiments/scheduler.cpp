#include "experiments/scheduler.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <thread>

namespace fathom {
namespace {
namespace fs = std::filesystem;

// fork + exec of one worker, its stdout and stderr appended to `log_path`.
pid_t start_worker(const std::vector<std::string>& argv, const std::string& log_path) {
  fs::create_directories(fs::path(log_path).parent_path());
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      close(fd);
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
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

}  // namespace

SweepCounts run_workers(db::Store& store, const std::vector<int64_t>& runs,
                        const SchedulerOptions& options,
                        const std::function<std::string(int64_t)>& artifacts_dir) {
  std::map<pid_t, int64_t> running;  // worker pid -> run
  size_t next = 0;
  const auto start = std::chrono::steady_clock::now();
  SweepCounts counts;
  while (next < runs.size() || !running.empty()) {
    while (static_cast<int>(running.size()) < options.jobs && next < runs.size()) {
      const int64_t run = runs[next++];
      auto record = store.find_run(std::to_string(run));
      // Cancelled (or already ended by someone else) while it waited: skip it.
      if (!record || (record->status != "queued" && record->status != "crashed")) continue;
      const std::vector<std::string> argv{
          options.fathom_binary, "--db", options.db_path, "train", "--resume", std::to_string(run),
          "--no-progress", "--set", "train.threads=" + std::to_string(options.threads_per_worker)};
      const pid_t pid = start_worker(argv, (fs::path(artifacts_dir(run)) / "worker.log").string());
      store.set_tag(run, "worker.pid", std::to_string(pid));
      running[pid] = run;
    }
    int status = 0;
    const pid_t done = waitpid(-1, &status, WNOHANG);
    if (done > 0 && running.count(done)) {
      const int64_t run = running[done];
      running.erase(done);
      auto record = store.find_run(std::to_string(run));
      // Still running or queued in the store: the worker died before it could record an end.
      if (record && (record->status == "running" || record->status == "queued")) {
        store.finish_run(run, "crashed", exit_reason(status));
        record = store.find_run(std::to_string(run));
      }
      if (record) count(counts, record->status);
      continue;
    }
    if (options.progress) {
      int64_t updates = 0;
      for (const auto& [pid, run] : running)
        if (auto r = store.find_run(std::to_string(run))) updates += r->updates;
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::fprintf(stderr, "\rsweep: %zu ended, %zu running, %zu waiting | running runs at %lld updates | %.0fs  ",
                   static_cast<size_t>(counts.finished + counts.diverged + counts.failed +
                                       counts.crashed + counts.cancelled + counts.other),
                   running.size(), runs.size() - next, static_cast<long long>(updates), elapsed);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  if (options.progress) std::fprintf(stderr, "\n");
  return counts;
}

}  // namespace fathom
