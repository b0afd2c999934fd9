// The progress bar's last line says where the work ended: a run stopped after update 1 of 40
// printed "40/40 (100%) stopped after update 1" (issue 57 item 12).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "base/util/progress.h"
#include "tests/support/temp_dir.h"

namespace test_progress_bar {

// What `body` writes to stderr (a file, so the bar draws its plain, non-terminal lines).
template <typename F>
std::string stderr_of(F body) {
  fathom::testing::TempDir dir;
  const std::string path = (dir.path() / "err.txt").string();
  std::fflush(stderr);
  const int saved = dup(fileno(stderr));
  FILE* file = std::fopen(path.c_str(), "w");
  dup2(fileno(file), fileno(stderr));
  body();
  std::fflush(stderr);
  dup2(saved, fileno(stderr));
  close(saved);
  std::fclose(file);
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(ProgressBar, AStopEndsTheLineWhereTheWorkStopped) {
  const std::string out = stderr_of([] {
    fathom::ProgressBar bar("train", 40, true, 1e9);
    bar.update(1, "loss 3.2");
    bar.stop(1, "stopped after update 1");
  });
  EXPECT_NE(out.find("train 1/40 (2%) stopped after update 1"), std::string::npos) << out;
  EXPECT_EQ(out.find("40/40"), std::string::npos) << out;
}

TEST(ProgressBar, AFinishedBarIsWhole) {
  const std::string out = stderr_of([] {
    fathom::ProgressBar bar("eval", 8, true, 1e9);
    bar.finish("done");
  });
  EXPECT_NE(out.find("eval 8/8 (100%) done"), std::string::npos) << out;
}

size_t lines_of(const std::string& text) {
  size_t n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

// Off a terminal, a line at most every log interval (10 s unless said): three quick updates
// print nothing before the end -- unless $FATHOM_PROGRESS_INTERVAL_S asks for every one, as the
// desktop app does for the commands it shows the progress of.
TEST(ProgressBar, TheEnvironmentMayAskForALineAtEveryUpdate) {
  auto three_updates = [] {
    fathom::ProgressBar bar("translate", 4);
    for (int i = 1; i <= 3; ++i) bar.update(i, "");
    bar.finish("");
  };
  unsetenv("FATHOM_PROGRESS_INTERVAL_S");
  const std::string quiet = stderr_of(three_updates);
  EXPECT_EQ(lines_of(quiet), 2u) << quiet;  // the first update, then the end
  setenv("FATHOM_PROGRESS_INTERVAL_S", "0", 1);
  const std::string each = stderr_of(three_updates);
  setenv("FATHOM_PROGRESS_INTERVAL_S", "soon", 1);  // not a number: the caller's interval
  const std::string unread = stderr_of(three_updates);
  unsetenv("FATHOM_PROGRESS_INTERVAL_S");
  EXPECT_EQ(lines_of(each), 4u) << each;
  EXPECT_NE(each.find("translate 2/4 (50%)"), std::string::npos) << each;
  EXPECT_EQ(lines_of(unread), 2u) << unread;
}

}  // namespace test_progress_bar
