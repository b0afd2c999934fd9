// What a store's cache costs to take over and to list at the sizes users reach
// (core/data/earlier_cache.h, core/data/cache_entries.h; docs/data.md):
//   per corpus size (WMT-shaped pairs, bench/synthetic_corpus.h): preparing it (what an analysis
//   did again before an entry was moved in) against moving the earlier folder's entry in and
//   opening it (the entry's hashes checked, as every start checks them); listing the cache while
//   the text is as it was (the remembered key: a stat) and after it changed (the text hashed
//   again); the entry's bytes and the process's peak resident memory;
//   per entry count (copies of one small entry): listing 100 .. 10,000 entries; and as many
//   working folders (a corpus preparation's or a vocabulary learning's; half in use, their lock
//   held, half a kill's leftovers).
//   bench_data_cache [--pairs 100000,1000000] [--entries 100,1000,10000] [--dir DIR]
// Run by hand (never in ctest): a few minutes at the defaults.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench_program.h"
#include "bench/size_list.h"
#include "bench/synthetic_corpus.h"
#include "core/data/cache_entries.h"
#include "core/data/prepared_corpus.h"

namespace fathom::bench::bench_data_cache {
namespace {
namespace fs = std::filesystem;

double seconds_of(const std::function<void()>& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

long peak_kib() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

VocabConfig vocab() {
  VocabConfig v;
  v.size = 8000;
  return v;
}

// A store's cache and its earlier folder, as db/run_paths.h names them.
struct Folders {
  fs::path cache, earlier;
  explicit Folders(const fs::path& dir)
      : cache(dir / "runs.cache"), earlier(dir / "runs.artifacts" / "cache") {}
};

void corpus_size(const fs::path& dir, std::size_t pairs) {
  const fs::path src = dir / ("train-" + std::to_string(pairs) + ".src"),
                 tgt = dir / ("train-" + std::to_string(pairs) + ".tgt");
  write_corpus(src.string(), tgt.string(), pairs);
  const Folders at(dir / ("store-" + std::to_string(pairs)));
  PreparedCorpus prepared;
  const double prepare_s = seconds_of(
      [&] { prepared = prepare_corpus(src.string(), tgt.string(), vocab(), at.earlier.string()); });
  std::uint64_t bytes = 0;
  for (const auto& e : cache_entries(at.cache.string())) bytes += e.bytes;
  double list_s = 0, adopt_s = 0, changed_s = 0;
  list_s = seconds_of([&] { cache_entries(at.cache.string()); });  // the earlier folder's entry
  adopt_s = seconds_of([&] {
    const auto moved = prepare_corpus(src.string(), tgt.string(), vocab(), at.cache.string());
    if (!moved.reused) std::fprintf(stderr, "not moved: prepared again\n");
  });
  std::ofstream(tgt, std::ios::app) << "";  // no byte changed, but the change time has
  fs::last_write_time(tgt, fs::file_time_type::clock::now());
  changed_s = seconds_of([&] { cache_entries(at.cache.string()); });
  std::printf("%10zu %12.1f %12.3f %12.3f %12.3f %10.1f %10ld %8.0fx\n", pairs, prepare_s, adopt_s,
              list_s, changed_s, static_cast<double>(bytes) / (1 << 20), peak_kib() / 1024,
              prepare_s / adopt_s);
}

void entry_count(const fs::path& dir, std::size_t count) {
  const fs::path src = dir / "small.src", tgt = dir / "small.tgt";
  if (!fs::exists(src)) write_corpus(src.string(), tgt.string(), 1000);
  const Folders at(dir / ("many-" + std::to_string(count)));
  const auto one = prepare_corpus(src.string(), tgt.string(), vocab(), at.cache.string());
  for (std::size_t k = 1; k < count; ++k) {  // copies under other keys: "text changed" each
    char name[40];
    std::snprintf(name, sizeof name, "corpus-%032zx", k);
    fs::copy(one.entry, at.cache / name, fs::copy_options::recursive);
  }
  std::size_t listed = 0;
  const double s = seconds_of([&] { listed = cache_entries(at.cache.string()).size(); });
  std::printf("%10zu %10zu %12.3f %12.1f\n", count, listed, s, 1e6 * s / listed);
}

// `count` working folders (one small file each), half a corpus preparation's
// (.corpus-<hash>.tmp-<suffix>), half a vocabulary learning's (.spm-<...>.tmp-<suffix>); of
// each kind half with their lock held here (the corpus's lock file, the folder itself): each
// listed costs a lock probe.
void temporary_count(const fs::path& dir, std::size_t count) {
  const fs::path cache = dir / ("temporary-" + std::to_string(count)) / "runs.cache";
  fs::create_directories(cache);
  std::vector<int> held;
  for (std::size_t k = 0; k < count; ++k) {
    const bool vocabulary = k % 4 >= 2, hold = k % 2 == 1;
    char key[48];
    std::snprintf(key, sizeof key, vocabulary ? "spm-bpe-8000-%016zx" : "corpus-%032zx", k);
    const fs::path folder = cache / ("." + std::string(key) + ".tmp-1-a");
    fs::create_directories(folder);
    std::ofstream(folder / "chunk") << "x";
    if (!hold) continue;
    const fs::path locked = vocabulary ? folder : cache / (std::string(key) + ".lock");
    const int fd = vocabulary ? ::open(locked.c_str(), O_RDONLY | O_DIRECTORY)
                              : ::open(locked.c_str(), O_CREAT | O_RDWR, 0644);
    if (fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) == 0) held.push_back(fd);
  }
  std::size_t preparing = 0, listed = 0;
  const double s = seconds_of([&] {
    const auto entries = cache_entries(cache.string());
    listed = entries.size();
    for (const auto& e : entries) preparing += e.state == "preparing" || e.state == "learning";
  });
  for (int fd : held) ::close(fd);
  std::printf("%10zu %10zu %10zu %12.3f %12.1f\n", count, listed, preparing, s,
              1e6 * s / std::max<std::size_t>(listed, 1));
}

}  // namespace

int bench_main(int argc, char** argv) {
  std::vector<long> pairs{100'000, 1'000'000}, entries{100, 1000, 10'000};
  fs::path dir = fs::temp_directory_path() / "fathom-bench-data-cache";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--pairs")
      pairs = parse_size_list(argv[i + 1]);
    else if (flag == "--entries")
      entries = parse_size_list(argv[i + 1]);
    else if (flag == "--dir")
      dir = argv[i + 1];
  }
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::printf("a corpus of N pairs in the earlier folder (vocabulary 8,000)\n");
  std::printf("%10s %12s %12s %12s %12s %10s %10s %9s\n", "pairs", "prepare s", "move+open s",
              "list s", "changed s", "entry MiB", "peak MiB", "ratio");
  for (long n : pairs) corpus_size(dir, static_cast<std::size_t>(n));
  std::printf("\nlisting a cache of N entries\n%10s %10s %12s %12s\n", "entries", "listed",
              "list s", "us an entry");
  for (long n : entries) entry_count(dir, static_cast<std::size_t>(n));
  std::printf(
      "\nlisting N working folders (half corpora, half vocabularies), half of them in use (lock "
      "held)\n%10s %10s %10s %12s %12s\n",
      "folders", "listed", "in use", "list s", "us a folder");
  for (long n : entries) temporary_count(dir, static_cast<std::size_t>(n));
  fs::remove_all(dir);
  return 0;
}

}  // namespace fathom::bench::bench_data_cache

FATHOM_BENCH_PROGRAM(bench_data_cache,
                     "a store's cache: moving an earlier entry in against preparing it, listing");
