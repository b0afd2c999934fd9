#include "experiments/notify_command.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/util/process.h"

namespace fathom::experiments {
namespace {

// The last `limit` bytes of the file, on one line.
std::string tail_of(const std::string& path, size_t limit = 300) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  if (s.size() > limit) s = "..." + s.substr(s.size() - limit);
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// In the child: its own process group (so a timeout kills what the shell started too),
// stdout to /dev/null, stderr to `err_path`, then the shell. Only async-signal-safe calls.
[[noreturn]] void exec_child(const char* command, int err_fd, char* const* envp) {
  setpgid(0, 0);
  const int null_fd = open("/dev/null", O_RDWR);
  if (null_fd >= 0) {
    dup2(null_fd, STDIN_FILENO);
    dup2(null_fd, STDOUT_FILENO);
  }
  if (err_fd >= 0) dup2(err_fd, STDERR_FILENO);
  char* const argv[] = {const_cast<char*>("/bin/sh"), const_cast<char*>("-c"),
                        const_cast<char*>(command), nullptr};
  execve("/bin/sh", argv, envp);
  _exit(127);
}

}  // namespace

CommandRunner::~CommandRunner() {
  for (auto& c : children_) {
    kill(-c.pid, SIGKILL);
    int status = 0;
    waitpid(c.pid, &status, 0);
    c.killed = true;
    ended(c, status);
  }
}

void CommandRunner::start(const std::string& command, const std::vector<std::string>& env,
                          double timeout_s, const std::string& label) {
  const std::vector<std::string> environment = environment_with(env);
  std::vector<char*> envp;
  for (const auto& e : environment) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  std::string err_path = (std::filesystem::temp_directory_path() / "fathom-notify-XXXXXX").string();
  const int err_fd = mkstemp(err_path.data());
  const pid_t pid = fork();
  if (pid == 0) exec_child(command.c_str(), err_fd, envp.data());
  if (err_fd >= 0) close(err_fd);
  if (pid < 0) {
    std::remove(err_path.c_str());
    on_end_(CommandEnd{label, false, "could not start: fork failed"});
    return;
  }
  setpgid(pid, pid);  // also here: the group exists before any kill, whoever runs first
  children_.push_back(Child{pid, label, err_fd >= 0 ? err_path : "",
                            std::chrono::steady_clock::now() +
                                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(timeout_s)),
                            timeout_s});
}

void CommandRunner::poll() {
  const auto now = std::chrono::steady_clock::now();
  for (size_t i = 0; i < children_.size();) {
    Child& c = children_[i];
    if (!c.killed && now >= c.deadline) {
      kill(-c.pid, SIGKILL);  // the shell and whatever it started
      c.killed = true;
    }
    int status = 0;
    const pid_t reaped = waitpid(c.pid, &status, WNOHANG);
    if (reaped < 0 && errno == ECHILD) {  // reaped by someone else (a waitpid(-1) elsewhere)
      const Child done = c;
      children_.erase(children_.begin() + static_cast<long>(i));
      on_end_(CommandEnd{done.label, false, "ended; its exit status was collected elsewhere"});
      if (!done.err_path.empty()) std::remove(done.err_path.c_str());
      continue;
    }
    if (reaped == c.pid) {
      const Child done = c;
      children_.erase(children_.begin() + static_cast<long>(i));
      ended(done, status);
      continue;
    }
    ++i;
  }
}

void CommandRunner::wait_all() {
  while (!children_.empty()) {
    poll();
    if (!children_.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void CommandRunner::ended(const Child& child, int status) {
  CommandEnd end{child.label, false, ""};
  char limit[64];
  std::snprintf(limit, sizeof limit, "was killed after %g s (its time limit)", child.timeout_s);
  const std::string err = child.err_path.empty() ? "" : tail_of(child.err_path);
  if (!child.err_path.empty()) std::remove(child.err_path.c_str());
  if (child.killed) {
    end.outcome = limit;
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    end.ok = true;
    end.outcome = "ok";
  } else if (WIFEXITED(status)) {
    end.outcome = "exited with status " + std::to_string(WEXITSTATUS(status));
  } else {
    end.outcome = "was killed by signal " + std::to_string(WTERMSIG(status));
  }
  if (!end.ok && !err.empty()) end.outcome += ": " + err;
  on_end_(end);
}

}  // namespace fathom::experiments
