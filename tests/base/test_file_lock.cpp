// One process at a time makes a shared thing (base/util/file_lock.h): a corpus being fetched,
// the fault tests' uninterrupted reference. flock locks belong to an open file, so two locks
// in one process exclude each other as two processes' do.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "base/util/file_lock.h"
#include "tests/support/temp_dir.h"

namespace test_file_lock {
using fathom::FileLock;

TEST(FileLock, ATryFailsWhileAnotherHoldsItAndTakesItOnceFree) {
  fathom::testing::TempDir dir;
  const auto path = dir.path() / "entry.lock";
  {
    const FileLock first(path, FileLock::Mode::kWait);
    ASSERT_TRUE(first.held());
    EXPECT_FALSE(FileLock(path, FileLock::Mode::kTry).held());
  }
  EXPECT_TRUE(FileLock(path, FileLock::Mode::kTry).held());
  EXPECT_FALSE(FileLock(dir.path() / "no-such-folder" / "x.lock", FileLock::Mode::kWait).held());
}

// A holder that dies (SIGKILL: no destructor runs) leaves the lock free; a waiter gets it then.
TEST(FileLock, AWaiterGetsTheLockWhenItsHolderIsKilled) {
  fathom::testing::TempDir dir;
  const auto path = dir.path() / "entry.lock";
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t holder = fork();
  if (holder == 0) {
    const FileLock lock(path, FileLock::Mode::kWait);
    char held = lock.held() ? 'y' : 'n';
    (void)!write(ready[1], &held, 1);
    pause();
    _exit(0);
  }
  char held = 0;
  ASSERT_EQ(read(ready[0], &held, 1), 1);
  ASSERT_EQ(held, 'y');
  EXPECT_FALSE(FileLock(path, FileLock::Mode::kTry).held());
  std::thread killer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    kill(holder, SIGKILL);
  });
  const auto asked = std::chrono::steady_clock::now();
  const FileLock waited(path, FileLock::Mode::kWait);
  const double waited_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
  killer.join();
  waitpid(holder, nullptr, 0);
  EXPECT_TRUE(waited.held());
  EXPECT_GE(waited_s, 0.15) << "it did not wait for the holder";
  close(ready[0]);
  close(ready[1]);
}

}  // namespace test_file_lock
