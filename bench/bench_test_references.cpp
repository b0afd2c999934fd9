// What `fathom compare` and `export verdicts --paired-bootstrap` spend reading a run's test
// references (core/data/test_references.h) against what they spent before, when they took them
// from load_dataset(): the whole training corpus prepared first where the prepared-corpus cache
// lacks it (a vocabulary trained, every pair encoded), mapped where it has it. A generated
// parallel corpus of N training pairs (words of a 5,000-word vocabulary, 5-30 a sentence) and a
// 3,000-sentence test split; both ways must give the same references ("same: yes"). Peak
// resident memory after now's way (run first) and after the loader's. Sizes run one after
// another in one process: give one size a call for each size's own peak.
//   build/bench/bench_test_references [PAIRS,... (default 30000,300000)] [THREADS (default 2)]
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "bench/size_list.h"
#include "core/data/dataset.h"
#include "core/data/test_references.h"

namespace {
namespace fs = std::filesystem;
using namespace fathom;
using Clock = std::chrono::steady_clock;

void write_side(const fs::path& path, int lines, std::uint64_t seed, const char* prefix) {
  std::mt19937_64 rng(seed);
  std::ofstream out(path);
  for (int i = 0; i < lines; ++i) {
    const int n = 5 + static_cast<int>(rng() % 26);
    for (int k = 0; k < n; ++k) out << (k ? " " : "") << prefix << rng() % 5000;
    out << "\n";
  }
}

// Peak resident set of this process so far, MB.
double peak_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const auto sizes = fathom::bench::parse_size_list(argc > 1 ? argv[1] : "30000,300000");
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  const fs::path dir = fs::temp_directory_path() / ("bench-test-refs-" + std::to_string(getpid()));
  std::printf("%9s %14s %14s %10s %12s %12s %9s %10s %5s\n", "pairs", "before cold s",
              "before warm s", "now s", "cold/now", "warm/now", "now MB", "before MB", "same");
  for (const long pairs : sizes) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    write_side(dir / "train.de", static_cast<int>(pairs), 1, "d");
    write_side(dir / "train.en", static_cast<int>(pairs), 2, "e");
    write_side(dir / "test.de", 3000, 3, "d");
    write_side(dir / "test.en", 3000, 4, "e");
    DataConfig cfg;
    cfg.task = "parallel";
    for (auto [field, file] : {std::pair{&cfg.train_source, "train.de"},
                               {&cfg.train_target, "train.en"},
                               {&cfg.test_source, "test.de"},
                               {&cfg.test_target, "test.en"}})
      *field = (dir / file).string();
    PrepareOptions prepare;
    prepare.threads = threads;
    const std::string cache = (dir / "cache").string();
    // Now's way first, so that the peak resident set after it is its own: the memory a
    // `compare` needs for the references (getrusage's maxrss only grows).
    auto start = Clock::now();
    const auto now = test_references(cfg, "");
    const double now_s = seconds_since(start);
    const double now_mb = peak_mb();
    start = Clock::now();
    const auto cold = load_dataset(cfg, cache, "", prepare).test_target;
    const double cold_s = seconds_since(start);
    start = Clock::now();
    const auto warm = load_dataset(cfg, cache, "", prepare).test_target;
    const double warm_s = seconds_since(start);
    std::printf("%9ld %14.3f %14.3f %10.4f %12.0f %12.1f %9.0f %10.0f %5s\n", pairs, cold_s, warm_s,
                now_s, cold_s / now_s, warm_s / now_s, now_mb, peak_mb(),
                cold == now && warm == now ? "yes" : "NO");
    std::fflush(stdout);
  }
  fs::remove_all(dir);
  return 0;
}
