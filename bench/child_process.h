#pragma once
// A child process spoken to line by line over pipes (its stdin and stdout; stderr is
// shared with ours), whose peak RSS is collected with wait4() when it ends.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace fathom::bench {

class ChildProcess {
 public:
  explicit ChildProcess(const std::vector<std::string>& argv) {
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      dup2(to_child[0], STDIN_FILENO);
      dup2(from_child[1], STDOUT_FILENO);
      close(to_child[0]), close(to_child[1]), close(from_child[0]), close(from_child[1]);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execvp(args[0], args.data());
      std::perror(("exec " + argv[0]).c_str());
      _exit(127);
    }
    close(to_child[0]), close(from_child[1]);
    in_ = fdopen(to_child[1], "w");
    out_ = fdopen(from_child[0], "r");
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() {
    if (pid_ > 0) finish();
  }

  void send(const std::string& line) {
    std::fputs((line + "\n").c_str(), in_);
    std::fflush(in_);
  }

  // The next line without its newline; false at end of output (the child exited).
  bool read_line(std::string& line) {
    line.clear();
    for (int c; (c = std::fgetc(out_)) != EOF;) {
      if (c == '\n') return true;
      line.push_back(static_cast<char>(c));
    }
    return !line.empty();
  }

  // Closes its stdin and waits; returns its peak resident set in KiB (ru_maxrss).
  long finish() {
    if (in_) std::fclose(in_), in_ = nullptr;
    if (out_) std::fclose(out_), out_ = nullptr;
    int status = 0;
    struct rusage usage {};
    wait4(pid_, &status, 0, &usage);
    pid_ = -1;
    exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return usage.ru_maxrss;
  }
  int exit_status() const { return exit_status_; }

 private:
  pid_t pid_ = -1;
  FILE* in_ = nullptr;
  FILE* out_ = nullptr;
  int exit_status_ = 0;
};

}  // namespace fathom::bench
