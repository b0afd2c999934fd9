#include "base/util/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "base/util/strings.h"

namespace fathom {

std::string host_name() {
  char buffer[256] = {0};
  if (gethostname(buffer, sizeof buffer - 1) != 0) return "unknown";
  return buffer;
}

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

namespace {
bool executable_file(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}
}  // namespace

std::optional<std::string> find_on_path(const std::string& program) {
  if (program.empty()) return std::nullopt;
  if (program.find('/') != std::string::npos)
    return executable_file(program) ? std::optional<std::string>(program) : std::nullopt;
  const char* path = std::getenv("PATH");
  for (const std::string& dir : split(path ? path : "/usr/bin:/bin", ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (executable_file(candidate)) return candidate;
  }
  return std::nullopt;
}

namespace {
// Feeds `input` to the child's stdin and drains its stdout and stderr into `result` together
// (a child that fills a pipe must not deadlock), until both close or the deadline passes
// (then the child is killed). Closes `in_fd`.
void feed_and_drain(pid_t pid, int in_fd, int out_fd, int err_fd, const std::string& input,
                    double timeout_s, ProgramResult& result) {
  size_t written = 0;
  if (input.empty()) {
    close(in_fd);
    in_fd = -1;
  }
  signal(SIGPIPE, SIG_IGN);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  bool out_open = true, err_open = true;
  char buffer[4096];
  while (out_open || err_open || in_fd >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      result.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    pollfd fds[3];
    int n = 0;
    if (out_open) fds[n++] = {out_fd, POLLIN, 0};
    if (err_open) fds[n++] = {err_fd, POLLIN, 0};
    if (in_fd >= 0) fds[n++] = {in_fd, POLLOUT, 0};
    if (poll(fds, n, static_cast<int>(std::min<long long>(left, 1000))) < 0 && errno != EINTR)
      break;
    for (int i = 0; i < n; ++i) {
      if (!fds[i].revents) continue;
      if (fds[i].fd == in_fd) {
        const ssize_t w = write(in_fd, input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<size_t>(w);
        if (w < 0 || written == input.size()) {
          close(in_fd);
          in_fd = -1;
        }
        continue;
      }
      const ssize_t r = read(fds[i].fd, buffer, sizeof buffer);
      if (r > 0) {
        (fds[i].fd == out_fd ? result.out : result.err).append(buffer, static_cast<size_t>(r));
      } else if (r == 0 || errno != EINTR) {
        (fds[i].fd == out_fd ? out_open : err_open) = false;
      }
    }
  }
  if (in_fd >= 0) close(in_fd);
}
}  // namespace

ProgramResult run_program(const std::vector<std::string>& argv, const std::string& input,
                          const std::vector<std::string>& env, double timeout_s,
                          const std::vector<int>& ignored_signals) {
  ProgramResult result;
  if (argv.empty()) return result;
  const auto program = find_on_path(argv[0]);
  if (!program) {
    result.err = argv[0] + ": not found on PATH";
    return result;
  }
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0) return result;
  if (pipe2(out, O_CLOEXEC) != 0) return result;
  if (pipe2(err, O_CLOEXEC) != 0) return result;
  // Everything execve needs is built before fork: the child only calls async-signal-safe code.
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args[0] = const_cast<char*>(program->c_str());
  args.push_back(nullptr);
  const std::vector<std::string> environment = env.empty() ? environment_with({}) : env;
  for (const auto& e : environment) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return result;
  if (pid == 0) {
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    for (const int ignored : ignored_signals) signal(ignored, SIG_IGN);  // async-signal-safe
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  // Feed stdin and drain both outputs together: a child that fills a pipe must not deadlock.
  feed_and_drain(pid, in[1], out[0], err[0], input, timeout_s, result);
  close(out[0]);
  close(err[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status))
    result.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    result.exit_code = 128 + WTERMSIG(status);
  if (result.exit_code == 127 && result.out.empty() && result.err.empty())
    result.err = argv[0] + ": could not be started";
  return result;
}

std::string program_end(const ProgramResult& result) {
  if (result.timed_out) return "timed out";
  if (result.exit_code < 0) return "not started";
  if (result.exit_code > 128) {
    const int signal_number = result.exit_code - 128;
    return "killed by signal " + std::to_string(signal_number) + " (" + strsignal(signal_number) +
           ")";
  }
  return "exit " + std::to_string(result.exit_code);
}

namespace {

// The fields of /proc/PID/stat after the command name (which may hold spaces and parentheses):
// [0] is the state, [19] the start time. Empty when the process is gone.
std::vector<std::string> stat_fields_after_name(pid_t pid) {
  std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(stat_file)), {});
  const auto paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) return {};
  std::vector<std::string> fields;
  std::istringstream rest(stat.substr(paren + 2));
  for (std::string field; rest >> field;) fields.push_back(field);
  return fields;
}

}  // namespace

std::string process_start_ticks(pid_t pid) {
  if (pid <= 0) return "";
  const auto fields = stat_fields_after_name(pid);
  return fields.size() > 19 ? fields[19] : "";
}

char process_state(pid_t pid) {
  const auto fields = stat_fields_after_name(pid);
  return fields.empty() || fields[0].empty() ? '\0' : fields[0][0];
}

bool same_process_alive(pid_t pid, const std::string& start_ticks, const std::string& needle) {
  if (start_ticks.empty()) return process_alive(pid, needle);
  const auto fields = stat_fields_after_name(pid);
  if (fields.size() <= 19 || fields[0] == "Z" || fields[0] == "X") return false;
  return fields[19] == start_ticks;
}

bool any_thread_left(pid_t pid) {
  std::error_code ec;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
    const char state = process_state(static_cast<pid_t>(std::stol(task.path().filename())));
    if (state != '\0' && state != 'Z' && state != 'X') return true;
  }
  return false;
}

std::vector<std::string> process_arguments(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::vector<std::string> args;
  for (std::string arg; std::getline(in, arg, '\0');) args.push_back(arg);
  return args;
}

std::string process_summary(pid_t pid) {
  const std::string id = "pid " + std::to_string(pid);
  const char state = process_state(pid);
  if (state == '\0') return id + " (not a process of this machine)";
  const auto args = process_arguments(pid);
  std::string program = args.empty() ? "?" : std::filesystem::path(args[0]).filename().string();
  // `python3 train.py`: the script says more than the interpreter, and a file name is no secret.
  static const std::vector<std::string> scripts = {".py", ".sh", ".pl", ".R", ".jl"};
  if (args.size() > 1) {
    const std::filesystem::path script(args[1]);
    if (std::find(scripts.begin(), scripts.end(), script.extension().string()) != scripts.end())
      program += " " + script.filename().string();
  }
  const bool stopped = state == 'T' || state == 't';
  return id + " (" + program + (stopped ? ", stopped" : "") + ")";
}

bool process_alive(pid_t pid, const std::string& needle) {
  if (pid <= 0 || (kill(pid, 0) != 0 && errno == ESRCH)) return false;
  const std::string proc = "/proc/" + std::to_string(pid);
  // A zombie (exited, not yet reaped by its parent) is gone: its state in stat is Z (or X).
  const auto fields = stat_fields_after_name(pid);
  if (fields.empty() || fields[0] == "Z" || fields[0] == "X") return false;
  std::ifstream in(proc + "/cmdline", std::ios::binary);
  std::string cmdline((std::istreambuf_iterator<char>(in)), {});
  // Empty while the process is in the middle of execve (or re-executing itself): alive.
  if (cmdline.empty()) return true;
  std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
  return cmdline.find(needle) != std::string::npos;
}

}  // namespace fathom
