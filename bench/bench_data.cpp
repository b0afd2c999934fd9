// The data pipeline at the sizes of the papers' corpora (issue 54): synthetic corpora shaped
// like WMT text (Zipf over 50,000 words, 5-60 words a sentence) of 100k, 1M and 4.5M pairs,
// each measured in fresh child processes so that one size's memory never counts in another's:
//   prepare  `fathom data prepare`'s work: read and train the vocabulary (timed apart), then
//            key, read, encode, write the shards; wall and CPU seconds, pairs per
//            core-second, peak RSS
//   start    a training process's start on the prepared corpus: hash the text files, map the
//            shards, plan the batches, collate the first one; seconds to the first batch, and
//            the private memory (RssAnon) the data added, then 200 batches' collation rate,
//            and 200 read as rank 1 of a 2-rank run (half of them only counted)
//   text     (--text) the path before prepared corpora, for comparison: every line read as a
//            string and encoded in memory (RssAnon)
// and once, the "small" model's training step (bench/train_sizes.h: 3+3 layers, d 256, 4096
// tokens a batch) on this machine, against which the loader's batches/s are compared.
//
// Usage: bench_data [--pairs 100000,1000000,4500000] [--vocab 32000] [--max-tokens 4096]
//                   [--threads 0] [--dir DIR] [--text] [--keep]
// DIR (default <tmp>/fathom-bench-data) keeps the generated corpora between runs unless
// --keep is absent, in which case everything is removed at the end.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_program.h"
#include "bench/child_process.h"
#include "bench/fathom_step.h"
#include "bench/size_list.h"
#include "bench/synthetic_corpus.h"
#include "core/data/batch.h"
#include "core/data/dataset.h"
#include "core/data/prepared_corpus.h"
#include "core/data/text_reader.h"
#include "core/train/batch_stream.h"

namespace fathom::bench::bench_data {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double cpu_seconds() {
  struct rusage u {};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// A field of /proc/self/status in KiB (RssAnon: private memory; VmHWM: peak resident).
long status_kib(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  return -1;
}

struct Options {
  std::vector<std::size_t> pairs{100'000, 1'000'000, 4'500'000};
  int vocab = 32'000;
  int max_tokens = 4096;
  int threads = 0;
  fs::path dir = fs::temp_directory_path() / "fathom-bench-data";
  bool text = false, keep = false;
};

fathom::DataConfig data_config(const std::string& src, const std::string& tgt, const Options& o) {
  fathom::DataConfig cfg;
  cfg.train_source = src;
  cfg.train_target = tgt;
  cfg.vocab.size = o.vocab;
  cfg.max_tokens = o.max_tokens;
  cfg.max_len = 0;  // keep every pair: the sizes are the corpus's
  return cfg;
}

// --- child processes: each prints one line "key value key value ..." on stdout ---------------

// The vocabulary first (read + SentencePiece training, cached), then the preparation proper
// (read, key, encode, write), so the encoding rate is not hidden behind the vocabulary's.
int child_prepare(const std::string& src, const std::string& tgt, const std::string& cache,
                  const Options& o) {
  const auto vocab_cfg = data_config(src, tgt, o).vocab;
  auto start = Clock::now();
  fathom::prepare_corpus_vocabulary(src, tgt, vocab_cfg, cache);
  const double vocab_wall = seconds_since(start), vocab_cpu = cpu_seconds();
  fathom::PrepareOptions p;
  p.threads = o.threads;
  start = Clock::now();
  const auto corpus = fathom::prepare_corpus(src, tgt, vocab_cfg, cache, p);
  std::printf("vocab %.3f wall %.3f cpu %.3f tokens %llu width %d vocab_size %lld\n", vocab_wall,
              seconds_since(start), cpu_seconds() - vocab_cpu,
              static_cast<unsigned long long>(corpus.train.stored_tokens()), corpus.train.width(),
              static_cast<long long>(corpus.vocab->size()));
  return 0;
}

int child_start(const std::string& src, const std::string& tgt, const std::string& cache,
                const Options& o) {
  const long anon_before = status_kib("RssAnon");
  const auto start = Clock::now();
  const fathom::Dataset d = fathom::load_dataset(data_config(src, tgt, o), cache, "");
  const double load = seconds_since(start);
  const fathom::BatchPlan plan = fathom::plan_batches(d.train, o.max_tokens);
  fathom::BatchStream stream(d.train, plan, /*seed=*/1, 0, 0);
  (void)stream.next();
  const double first = seconds_since(start);
  const long anon_after = status_kib("RssAnon");
  const int batches = 200;
  const auto t = Clock::now();
  std::int64_t tokens = 0;
  for (int i = 0; i < batches; ++i) tokens += stream.next().tgt_tokens;
  const double per_batch = seconds_since(t) / batches;
  // The same stream read as rank 1 of a 2-rank run, updates of 2 batches: it collates every
  // second batch and only counts the other (BatchStream::collate_only_rank_share).
  fathom::BatchStream dealt(d.train, plan, /*seed=*/1, 0, 0);
  dealt.collate_only_rank_share(2 * o.max_tokens, 1, 2);
  const auto t2 = Clock::now();
  for (int i = 0; i < batches; ++i) tokens += dealt.next().tgt_tokens;
  const double per_dealt = seconds_since(t2) / batches;
  std::printf(
      "load %.3f first_batch %.3f anon_kib %ld batches %zu batch_ms %.3f rank_ms %.3f "
      "batch_tokens %.0f\n",
      load, first, anon_after - anon_before, plan.size(), 1000 * per_batch, 1000 * per_dealt,
      static_cast<double>(tokens) / (2 * batches));
  return 0;
}

int child_text(const std::string& src, const std::string& tgt, const std::string& cache,
               const Options& o) {
  const long anon_before = status_kib("RssAnon");
  const auto start = Clock::now();
  const fathom::ParallelText text = fathom::read_parallel_text(src, tgt);
  const auto corpus = fathom::prepare_corpus(src, tgt, data_config(src, tgt, o).vocab, cache, {});
  const auto s = fathom::encode_all(*corpus.vocab, text.source, o.threads);
  const auto t = fathom::encode_all(*corpus.vocab, text.target, o.threads);
  std::printf("wall %.3f anon_kib %ld\n", seconds_since(start),
              status_kib("RssAnon") - anon_before);
  return s.size() == t.size() ? 0 : 1;
}

int child_step() {
  const auto size = fathom::bench::find_train_size("small");
  fathom::bench::FathomStep step(size, "post", torch::kCPU);
  step.run(2);  // warm-up
  const auto times = step.run(5);
  std::printf("step_ms %.1f tokens %lld\n", times.ms(times.total()),
              static_cast<long long>(times.tokens / std::max(1, times.steps)));
  return 0;
}

// Runs this program again as a child in `mode`; returns its line as key -> value.
std::vector<std::pair<std::string, double>> run_child(const std::vector<std::string>& args,
                                                      long* peak_kib = nullptr) {
  std::vector<std::string> argv{"/proc/self/exe", "bench_data"};  // fathom-bench NAME ARGS
  argv.insert(argv.end(), args.begin(), args.end());
  fathom::bench::ChildProcess child(argv);
  std::string line;
  child.read_line(line);
  const long peak = child.finish();
  if (peak_kib) *peak_kib = peak;
  if (child.exit_status() != 0) throw std::runtime_error("child " + args[1] + " failed");
  std::istringstream in(line);
  std::vector<std::pair<std::string, double>> out;
  std::string key;
  double value = 0;
  while (in >> key >> value) out.emplace_back(key, value);
  return out;
}

double get(const std::vector<std::pair<std::string, double>>& kv, const std::string& key) {
  for (const auto& [k, v] : kv)
    if (k == key) return v;
  throw std::runtime_error("no '" + key + "' in a child's line");
}

std::string options_args(const Options& o) {
  return std::to_string(o.vocab) + " " + std::to_string(o.max_tokens) + " " +
         std::to_string(o.threads);
}

}  // namespace

int bench_main(int argc, char** argv) {
  Options o;
  std::vector<std::string> args(argv + 1, argv + argc);
  // A child: --child MODE SRC TGT CACHE VOCAB MAX_TOKENS THREADS
  if (args.size() >= 1 && args[0] == "--child") {
    try {
      if (args.at(1) == "step") return child_step();
      o.vocab = std::stoi(args.at(5));
      o.max_tokens = std::stoi(args.at(6));
      o.threads = std::stoi(args.at(7));
      const std::string &src = args.at(2), &tgt = args.at(3), &cache = args.at(4);
      if (args[1] == "prepare") return child_prepare(src, tgt, cache, o);
      if (args[1] == "start") return child_start(src, tgt, cache, o);
      if (args[1] == "text") return child_text(src, tgt, cache, o);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
    }
    return 1;
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    auto value = [&] { return args.at(++i); };
    if (args[i] == "--pairs") {
      o.pairs.clear();
      for (long n : fathom::bench::parse_size_list(value().c_str()))
        o.pairs.push_back(static_cast<std::size_t>(n));
    } else if (args[i] == "--vocab") {
      o.vocab = std::stoi(value());
    } else if (args[i] == "--max-tokens") {
      o.max_tokens = std::stoi(value());
    } else if (args[i] == "--threads") {
      o.threads = std::stoi(value());
    } else if (args[i] == "--dir") {
      o.dir = value();
    } else if (args[i] == "--text") {
      o.text = true;
    } else if (args[i] == "--keep") {
      o.keep = true;
    } else {
      std::fprintf(stderr,
                   "usage: bench_data [--pairs N,N,...] [--vocab V] [--max-tokens T] "
                   "[--threads K] [--dir DIR] [--text] [--keep]\n");
      return 2;
    }
  }
  try {
    fs::create_directories(o.dir);
    const long cores = o.threads > 0 ? o.threads : sysconf(_SC_NPROCESSORS_ONLN);
    const auto step = run_child({"--child", "step"});
    const double step_ms = get(step, "step_ms");
    std::printf(
        "small model (3+3 layers, d 256), one training step of %.0f target tokens: %.1f ms\n",
        get(step, "tokens"), step_ms);
    std::printf("vocabulary %d (BPE), max_tokens %d, %ld encoding threads\n\n", o.vocab,
                o.max_tokens, cores);
    std::printf("%10s | %8s %9s %9s %12s %9s | %8s %9s %10s %9s %9s %10s%s\n", "pairs", "vocab s",
                "prepare s", "cpu s", "pairs/core-s", "peak MB", "start s", "RssAnon", "batch ms",
                "rank ms", "loader x", "shards MB", o.text ? " | text RssAnon" : "");
    std::vector<double> anon_mb;
    for (std::size_t pairs : o.pairs) {
      const std::string base = (o.dir / std::to_string(pairs)).string();
      const std::string src = base + ".src", tgt = base + ".tgt", cache = base + ".cache";
      if (!fs::exists(src) || !fs::exists(tgt)) write_corpus(src, tgt, pairs);
      fs::remove_all(cache);
      const std::string rest = options_args(o);
      auto child = [&](const std::string& mode, long* peak = nullptr) {
        std::vector<std::string> a{"--child", mode, src, tgt, cache};
        std::istringstream r(rest);
        for (std::string w; r >> w;) a.push_back(w);
        return run_child(a, peak);
      };
      long prepare_peak = 0;
      const auto prep = child("prepare", &prepare_peak);
      child("start");  // the first start after preparing reads the shards from the disk cache
      const auto start = child("start");
      std::uintmax_t shard_bytes = 0;
      for (const auto& e : fs::recursive_directory_iterator(cache))
        if (e.is_regular_file() && (e.path().extension() == ".bin")) shard_bytes += e.file_size();
      const double batch_ms = get(start, "batch_ms");
      // How much faster batches are ready than the small model consumes them at the same budget.
      const double loader_x = step_ms / batch_ms;
      anon_mb.push_back(get(start, "anon_kib") / 1024.0);
      std::string text_col;
      if (o.text) {
        const auto text = child("text");
        char buf[64];
        std::snprintf(buf, sizeof buf, " | %10.0f MB", get(text, "anon_kib") / 1024.0);
        text_col = buf;
      }
      std::printf(
          "%10zu | %8.1f %9.1f %9.1f %12.0f %9.0f | %8.2f %6.1f MB %10.3f %9.3f %9.0f %10.0f%s\n",
          pairs, get(prep, "vocab"), get(prep, "wall"), get(prep, "cpu"), pairs / get(prep, "cpu"),
          prepare_peak / 1024.0, get(start, "first_batch"), anon_mb.back(), batch_ms,
          get(start, "rank_ms"), loader_x, shard_bytes / 1e6, text_col.c_str());
      std::fflush(stdout);
      if (!o.keep) fs::remove_all(cache);
    }
    if (anon_mb.size() >= 2)
      std::printf("\nRssAnon growth from %zu to %zu pairs: %.1f MB\n", o.pairs.front(),
                  o.pairs.back(), anon_mb.back() - anon_mb.front());
    std::printf(
        "vocab s: hashing and counting the text, training the SentencePiece vocabulary (once per "
        "corpus and vocabulary); prepare s, cpu s, pairs/core-s: the rest of `fathom data "
        "prepare` (key, read, encode, write) with the vocabulary cached; peak MB: the "
        "preparing process's; "
        "start s: a training process to its first batch on the prepared corpus (hash, map, "
        "plan, collate); RssAnon: private memory the data added to it; rank ms: a batch read as "
        "rank 1 of 2 (every second one collated, the other counted); loader x: the small "
        "model's step time over one batch's collation\n");
    if (!o.keep) fs::remove_all(o.dir);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace fathom::bench::bench_data

FATHOM_BENCH_PROGRAM(bench_data,
                     "prepared corpora at 100k-4.5M pairs: preparation, start, memory, loader");
