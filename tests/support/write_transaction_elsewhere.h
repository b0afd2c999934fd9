#pragma once
// Test support: another process holding a SQLite store's write lock -- a real second process,
// as a frozen worker or a tool's long transaction would be (db/sqlite_write_lock.h). Header-only.
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

namespace fathom::testing {

// Another process inside a write transaction on the store at `path` from construction until
// commit(), then idle with its connection open until destroyed.
class WriteTransactionElsewhere {
 public:
  explicit WriteTransactionElsewhere(const std::string& path) {
    if (::pipe(ready_) != 0 || ::pipe(go_) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      sqlite3* db = nullptr;
      char byte = 0;
      if (sqlite3_open(path.c_str(), &db) != SQLITE_OK ||
          sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK)
        ::_exit(1);
      (void)!::write(ready_[1], "x", 1);
      (void)!::read(go_[0], &byte, 1);
      sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
      (void)!::write(ready_[1], "x", 1);
      (void)!::read(go_[0], &byte, 1);
      sqlite3_close(db);
      ::_exit(0);
    }
    char byte = 0;
    started_ = pid_ > 0 && ::read(ready_[0], &byte, 1) == 1;
  }
  ~WriteTransactionElsewhere() {
    if (pid_ > 0) {
      (void)!::write(go_[1], "x", 1);
      (void)!::write(go_[1], "x", 1);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
    for (int fd : {ready_[0], ready_[1], go_[0], go_[1]}) ::close(fd);
  }
  bool started() const { return started_; }
  pid_t pid() const { return pid_; }
  bool commit() {
    char byte = 0;
    return ::write(go_[1], "x", 1) == 1 && ::read(ready_[0], &byte, 1) == 1;
  }

 private:
  int ready_[2] = {-1, -1}, go_[2] = {-1, -1};
  pid_t pid_ = -1;
  bool started_ = false;
};

}  // namespace fathom::testing
