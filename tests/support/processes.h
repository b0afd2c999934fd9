#pragma once
// Test support for fault tests: starting `fathom` (or any program) in the background as a
// user's shell would -- its own process group, output appended to a log, extra environment --
// and waiting for processes the test did not start itself (a sweep's workers, orphaned once
// their scheduler is killed). Header-only.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/util/process.h"

namespace fathom::testing {

// argv[0] with `env` added to this process's environment (NAME=value), stdout and stderr
// appended to `log`, in a process group of its own; its pid.
inline pid_t spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                   const std::string& log) {
  const std::vector<std::string> environment = environment_with(env);
  // execve does not search $PATH: "ip" (ip netns exec ...) is found here.
  const std::string program = find_on_path(argv[0]).value_or(argv[0]);
  std::vector<char*> args, envp;
  args.push_back(const_cast<char*>(program.c_str()));
  for (size_t i = 1; i < argv.size(); ++i) args.push_back(const_cast<char*>(argv[i].c_str()));
  args.push_back(nullptr);
  for (const auto& e : environment) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  std::fflush(stdout);  // else the child's freopen writes our buffered lines again
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    FILE* out = std::freopen(log.c_str(), "a", stdout);
    FILE* err = std::freopen(log.c_str(), "a", stderr);
    (void)out;
    (void)err;
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  setpgid(pid, pid);
  return pid;
}

// The exit status of a child started by spawn(): 0-255, 128+N when killed by signal N, -1 when
// it did not end within `timeout_s` (then it is killed).
inline int wait_exit(pid_t pid, double timeout_s = 600) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    int status = 0;
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (done < 0) return -1;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// Whether process `pid` (not necessarily our child) still runs: it exists and is no zombie.
inline bool process_running(pid_t pid) {
  const char state = process_state(pid);
  return state != '\0' && state != 'Z';
}

// Waits until `pid` has ended; false when it still runs after `timeout_s`.
inline bool wait_gone(pid_t pid, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (process_running(pid)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// A command prefix that runs the command as on another machine named `host`: in a UTS namespace
// of its own (unshare(1), root only), so host_name() there says `host`, and a scheduler here
// takes its processes for a remote worker's, which it cannot signal -- only fencing stops them.
inline std::vector<std::string> as_another_host(const std::string& host) {
  return {"unshare", "--uts", "--", "sh", "-c", "hostname \"$0\" && exec \"$@\"", host};
}

// Why as_another_host() cannot work here (not root, no unshare), else nullopt.
inline std::optional<std::string> another_host_unavailable() {
  const ProgramResult r = run_program({"unshare", "--uts", "--", "hostname", "fathom-probe"});
  if (r.exit_code == 0) return std::nullopt;
  return "cannot start a process as on another host (unshare --uts, which needs root): " + r.err;
}

}  // namespace fathom::testing
