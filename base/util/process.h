#pragma once
// Small POSIX process helpers shared by the scheduler's launchers, the worker and the CLI:
// this host's name, environments for execve, and running a program to completion with its
// output captured (sbatch, squeue, scancel, scontrol).
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace fathom {

// gethostname(), "unknown" when it fails.
std::string host_name();

// This process's environment with `extra` (NAME=value) set, replacing earlier values.
std::vector<std::string> environment_with(const std::vector<std::string>& extra);

// The absolute path of `program` found on $PATH (or `program` itself when it holds a '/' and
// is executable); nullopt when there is none.
std::optional<std::string> find_on_path(const std::string& program);

struct ProgramResult {
  int exit_code = -1;    // -1: could not start; 128+N: killed by signal N
  std::string out, err;  // stdout and stderr, whole
  bool timed_out = false;
};

// Runs argv[0] (looked up on $PATH) with `env` (empty: this process's environment), `input`
// written to its stdin, and waits for it, at most `timeout_s` seconds (then SIGKILL). The
// program starts with `ignored_signals` ignored (SIG_IGN outlives execve): a program that ends
// the job it runs in (scontrol requeue) must not be killed by that job's end before it answers.
ProgramResult run_program(const std::vector<std::string>& argv, const std::string& input = "",
                          const std::vector<std::string>& env = {}, double timeout_s = 60,
                          const std::vector<int>& ignored_signals = {});

// How a program ended, for a person: "exit 1", "killed by signal 15 (Terminated)", "timed out",
// "not started".
std::string program_end(const ProgramResult& result);

// Whether process `pid` exists on this host and its command line contains `needle` (a pid may
// be reused by an unrelated process after the one we started is gone).
bool process_alive(pid_t pid, const std::string& needle);

// When process `pid` started, in clock ticks after boot (starttime in /proc/PID/stat), as
// text; "" when unknown. With the pid it names one process for good: a pid is reused by
// later processes, the pair is not.
std::string process_start_ticks(pid_t pid);

// The state letter of process (or thread) `pid` in /proc (R running, S sleeping, T stopped,
// Z zombie, ...); '\0' when there is no such process.
char process_state(pid_t pid);

// Whether the process `pid` that started at `start_ticks` (process_start_ticks) still exists
// and is not a zombie; with `start_ticks` "" (not recorded), process_alive(pid, needle).
bool same_process_alive(pid_t pid, const std::string& start_ticks, const std::string& needle);

// The arguments process `pid` on this host was started with (/proc/PID/cmdline); empty when
// there is no such process or it may not be read. They may hold secrets: print the program's
// name, not them.
std::vector<std::string> process_arguments(pid_t pid);

// Process `pid` for a person, without its arguments (which may hold a password): "pid 812
// (sqlite3, stopped)", "pid 812 (python3 train.py)" -- an interpreter's script named --, "pid
// 812 (not a process of this machine)" where /proc does not show it (another host, another
// container).
std::string process_summary(pid_t pid);

// Whether a thread of process `pid` has yet to exit (is in neither state Z nor X). A killed
// multi-threaded process's leader is a zombie before its other threads are done, and what the
// process holds -- its file locks, a SQLite store's write lock among them -- goes only with the
// last of them.
bool any_thread_left(pid_t pid);

}  // namespace fathom
