#pragma once
// Alert commands (experiments/notify.h) in child processes that nobody waits for: each starts
// with /bin/sh -c in a process group of its own, its stdout discarded and its stderr kept in a
// scratch file; poll() reaps those that ended (never blocking) and kills the group of any past
// its time limit. What each ended as is handed to a callback: exit status 0, a failure (its
// status and the tail of its stderr), or killed at the limit.
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace fathom::experiments {

struct CommandEnd {
  std::string label;    // what the caller named it ("run 12 diverged")
  bool ok = false;      // exited 0
  std::string outcome;  // "ok", "exited with status 3: <stderr tail>",
                        // "was killed after 30 s (its time limit)"
};

class CommandRunner {
 public:
  using OnEnd = std::function<void(const CommandEnd&)>;
  explicit CommandRunner(OnEnd on_end) : on_end_(std::move(on_end)) {}
  // Kills what still runs (their groups), reporting each as killed.
  ~CommandRunner();
  CommandRunner(const CommandRunner&) = delete;
  CommandRunner& operator=(const CommandRunner&) = delete;

  // Starts `command` with this process's environment plus `env` (NAME=value). A command that
  // cannot start at all (no fork) ends at once, reported through the callback.
  void start(const std::string& command, const std::vector<std::string>& env, double timeout_s,
             const std::string& label);
  // Reaps the commands that ended and kills those past their limit; returns at once.
  void poll();
  // Polls until every command has ended (each is killed at its limit, so this is bounded).
  void wait_all();
  size_t running() const { return children_.size(); }

 private:
  struct Child {
    pid_t pid;
    std::string label, err_path;
    std::chrono::steady_clock::time_point deadline;
    double timeout_s;
    bool killed = false;
  };
  void ended(const Child& child, int status);

  OnEnd on_end_;
  std::vector<Child> children_;
};

}  // namespace fathom::experiments
