// A process named for good by its pid and start time (base/util/process.h): what a scheduler
// checks before it puts a lost worker down, so that it never kills a later process that reused
// the pid.
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <string>
#include <thread>

#include "base/util/process.h"
#include "tests/support/temp_dir.h"

namespace test_process_identity {
using fathom::any_thread_left;
using fathom::process_start_ticks;
using fathom::process_state;
using fathom::same_process_alive;

TEST(ProcessIdentity, APidAndItsStartTimeNameOneProcessUntilItEnds) {
  const std::string mine = process_start_ticks(getpid());
  ASSERT_FALSE(mine.empty());
  EXPECT_EQ(process_start_ticks(getpid()), mine);  // stable
  EXPECT_TRUE(same_process_alive(getpid(), mine, "unused"));
  // Another start time at this pid is another process: not ours to signal.
  EXPECT_FALSE(same_process_alive(getpid(), mine + "1", "unused"));

  int go[2];
  ASSERT_EQ(pipe(go), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    char byte = 0;
    (void)!read(go[0], &byte, 1);
    _exit(0);
  }
  const std::string started = process_start_ticks(child);
  ASSERT_FALSE(started.empty());
  EXPECT_TRUE(same_process_alive(child, started, "unused"));
  (void)!write(go[1], "x", 1);
  // A zombie (ended, not yet reaped) is gone already.
  for (int i = 0; i < 500 && same_process_alive(child, started, "unused"); ++i) usleep(10'000);
  EXPECT_FALSE(same_process_alive(child, started, "unused"));
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_FALSE(same_process_alive(child, started, "unused"));
  EXPECT_EQ(process_start_ticks(child), "");  // no such process
  close(go[0]);
  close(go[1]);
}

// A process whose leader thread has exited while another thread still runs: the leader is a
// zombie -- no longer "alive" -- yet the process still holds what its threads share (its file
// locks), as a killed worker does for the moment its other threads take to exit. A put-down
// waits for any_thread_left to be false.
TEST(ProcessIdentity, AZombieLeaderWithAThreadLeftIsNotGoneYet) {
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::thread([fd = go[0]] {
      char byte = 0;
      (void)!read(fd, &byte, 1);
      _exit(0);  // the whole process
    }).detach();
    syscall(SYS_exit, 0);  // the leader thread alone
  }
  const std::string started = process_start_ticks(child);
  for (int i = 0; i < 500 && process_state(child) != 'Z'; ++i) usleep(10'000);
  ASSERT_EQ(process_state(child), 'Z');
  EXPECT_FALSE(same_process_alive(child, started, "unused"));
  EXPECT_TRUE(any_thread_left(child));
  (void)!write(go[1], "x", 1);
  for (int i = 0; i < 500 && any_thread_left(child); ++i) usleep(10'000);
  EXPECT_FALSE(any_thread_left(child));
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_FALSE(any_thread_left(child));
  close(go[0]);
  close(go[1]);
}

// A lock holder named for a person: the program (an interpreter's script with it), whether it
// is stopped, and none of its arguments, which may hold a password.
TEST(ProcessIdentity, ASummaryNamesTheProgramAndItsScriptButNoArgument) {
  fathom::testing::TempDir dir;
  const std::string script = (dir.path() / "job.sh").string();
  std::ofstream(script) << "sleep 30\n";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setpgid(0, 0);  // its sleep is killed with it: left, it held ctest's output pipe for 30 s
    execlp("sh", "sh", script.c_str(), "--password", "hunter2", static_cast<char*>(nullptr));
    _exit(127);
  }
  const std::string id = "pid " + std::to_string(child);
  // Until the exec lands, the child is a copy of this program.
  for (int i = 0; i < 500 && fathom::process_summary(child) != id + " (sh job.sh)"; ++i)
    usleep(10'000);
  EXPECT_EQ(fathom::process_summary(child), id + " (sh job.sh)");
  ASSERT_EQ(kill(child, SIGSTOP), 0);
  for (int i = 0; i < 500 && process_state(child) != 'T'; ++i) usleep(10'000);
  EXPECT_EQ(fathom::process_summary(child), id + " (sh job.sh, stopped)");
  kill(-child, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  // Past the largest pid Linux allows: no process here.
  EXPECT_EQ(fathom::process_summary(4194305), "pid 4194305 (not a process of this machine)");
}

}  // namespace test_process_identity
