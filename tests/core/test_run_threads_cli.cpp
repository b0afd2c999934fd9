// The threads a run computes on (core/train/threads.h: threads_per_process): train.threads
// where it names a number; 0 (all cores) shares this machine's cores among the run's
// processes. Each process of a `--nproc 2` run used to take every core, which left two OpenBLAS
// threads per core spinning for each other. The run's tag `threads` says what each of its
// processes computed on ("OpenBLAS 1, LibTorch 1"; "LibTorch N" without OpenBLAS).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "base/util/cpu_quota.h"
#include "base/util/process.h"
#include "base/util/usable_cores.h"
#include "db/store.h"
#include "tests/support/fathom_cli_test.h"

namespace test_run_threads_cli {
using fathom::db::OpenMode;
using fathom::db::Store;

// A few updates of a tiny model: what is asked is how it computed, not what it learned.
const char* const kConfig =
    "name: threads\n"
    "device: cpu\n"
    "model: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1, decoder_layers: 1}\n"
    "data:\n"
    "  task: synthetic\n"
    "  synthetic: {vocab: 8, train_size: 200, valid_size: 10, test_size: 4}\n"
    "  max_tokens: 256\n"
    "train: {lr: 0.005, warmup: 2, max_updates: 2, valid_every: 2, log_every: 1, "
    "update_tokens: 512}\n"
    "eval: {beam: 1, max_sentences: 2}\n";

// The threads of the tag's first library: OpenBLAS's where it is loaded, else LibTorch's.
int computing_threads(const std::string& tag) {
  const auto digit = std::find_if(tag.begin(), tag.end(), [](char c) { return std::isdigit(c); });
  return digit == tag.end() ? -1 : std::stoi(std::string(digit, tag.end()));
}

class RunThreads : public fathom::testing::FathomCliTest {
 protected:
  void SetUp() override {
    FathomCliTest::SetUp();
    std::ofstream(config_) << kConfig;
  }
  // The tag `threads` of a run trained with `args` after the config. OPENBLAS_NUM_THREADS=0 is
  // OpenBLAS's own default (every core), as outside this suite, which sets it to 1
  // (tests/support/core_test_main.cpp).
  std::string trained_threads(const std::vector<std::string>& args) {
    std::vector<std::string> argv{binary_.string(), "--db",           db(),
                                  "train",          config_.string(), "--no-progress"};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto r =
        fathom::run_program(argv, "", fathom::environment_with({"OPENBLAS_NUM_THREADS=0"}), 300);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const Store store = Store::open(db(), OpenMode::ReadOnly);
    int64_t last = 0;  // the run just trained
    for (const auto& run : store.list_runs()) last = std::max(last, run.id);
    const auto tags = store.tags(last);
    const auto tag = tags.find("threads");
    return tag == tags.end() ? "" : tag->second;
  }

  std::filesystem::path config_ = dir_ / "threads.yaml";
};

TEST_F(RunThreads, AllCoresAreSharedAmongTheRunsProcesses) {
  const int cores = fathom::usable_cores();
  const std::string alone = trained_threads({});
  const std::string two = trained_threads({"--nproc", "2"});
  std::printf("%d usable cores; one process: %s; each of two: %s\n", cores, alone.c_str(),
              two.c_str());
  EXPECT_EQ(computing_threads(two), std::max(1, cores / 2)) << two;
  EXPECT_GE(computing_threads(alone), computing_threads(two)) << alone;
  if (cores >= 2) {
    EXPECT_GT(computing_threads(alone), computing_threads(two)) << alone;
  }
}

TEST_F(RunThreads, ANumberOfThreadsIsEachProcesssWhateverTheirCount) {
  for (const int threads : {1, 3}) {
    const std::string two =
        trained_threads({"--nproc", "2", "--set", "train.threads=" + std::to_string(threads)});
    EXPECT_EQ(computing_threads(two), threads) << two;
  }
}

// A process in a cgroup whose CPU quota is one CPU (as `docker --cpus=1`) has one core at "all
// cores", whatever its affinity mask shows: OpenBLAS, which counts the mask, got every core of
// the machine. Made here as root does it: a cgroup of its own at the top of the CPU
// controller's hierarchy, the quota written, the run moved in before it starts.
TEST_F(RunThreads, ACgroupsCpuQuotaBoundsAllCores) {
  if (fathom::usable_cores() < 2) GTEST_SKIP() << "one usable core: a quota of one changes nothing";
  const auto controller = fathom::this_cpu_cgroup();
  if (!controller) GTEST_SKIP() << "no CPU controller mounted (/proc/self/mountinfo)";
  const std::string group =
      controller->mount_point + "/fathom-test-threads-" + std::to_string(getpid());
  std::error_code made;
  if (!std::filesystem::create_directory(group, made))
    GTEST_SKIP() << "cannot make a cgroup under " << controller->mount_point << " ("
                 << (made ? made.message() : "exists") << "): needs root and a writable cgroupfs";
  const auto write = [&](const std::string& file, const std::string& text) {
    std::ofstream out(file);
    out << text << std::flush;
    return static_cast<bool>(out);
  };
  const bool limited = controller->v2
                           ? (write(controller->mount_point + "/cgroup.subtree_control", "+cpu"),
                              write(group + "/cpu.max", "100000 100000"))
                           : write(group + "/cpu.cfs_period_us", "100000") &&
                                 write(group + "/cpu.cfs_quota_us", "100000");
  std::string inside;
  bool moved = false;
  if (limited) {
    // Exit 97: the shell could not move itself in (a delegated or namespaced hierarchy).
    const auto r = fathom::run_program(
        {"sh", "-c", "echo $$ > \"$0/cgroup.procs\" || exit 97; exec \"$@\"", group,
         binary_.string(), "--db", db(), "train", config_.string(), "--no-progress"},
        "", fathom::environment_with({"OPENBLAS_NUM_THREADS=0"}), 300);
    moved = r.exit_code != 97;
    if (moved) {
      EXPECT_EQ(r.exit_code, 0) << r.err;
    }
    const Store store = Store::open(db(), OpenMode::ReadOnly);
    if (!store.list_runs().empty()) inside = store.tags(store.list_runs().front().id)["threads"];
  }
  std::filesystem::remove(group, made);  // empty again: the run has ended
  if (!limited) GTEST_SKIP() << "cannot set a CPU quota in " << group;
  if (!moved) GTEST_SKIP() << "cannot move a process into " << group;
  const std::string outside = trained_threads({});
  std::printf("a 1-CPU quota: %s; outside it: %s\n", inside.c_str(), outside.c_str());
  EXPECT_EQ(computing_threads(inside), 1) << inside;
  EXPECT_EQ(computing_threads(outside), fathom::usable_cores()) << outside;
}

}  // namespace test_run_threads_cli
