// Reading text at corpus sizes: `fathom translate`'s standard input (LineReader::StandardInput,
// plain and gzip) side by side with a file read by read_lines(), the way corpora are read, over
// the same WMT-like lines (5-60 words of 3-9 letters). Each reading runs in a child process so
// one size's memory never counts in another's: seconds, lines per second, peak RSS.
//   bench_line_reader [lines=100000,1000000,4500000]
// Run by hand (never in ctest); scratch files under $TMPDIR.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_program.h"
#include "bench/size_list.h"
#include "core/data/text_reader.h"

namespace fathom::bench::bench_line_reader {

namespace fs = std::filesystem;

namespace {

void write_corpus(const fs::path& plain, const fs::path& packed, long lines) {
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<int> words(5, 60), letters(3, 9), letter('a', 'z');
  std::ofstream out(plain);
  gzFile gz = gzopen(packed.c_str(), "wb1");
  std::string line;
  for (long i = 0; i < lines; ++i) {
    line.clear();
    for (int w = words(rng); w > 0; --w) {
      for (int l = letters(rng); l > 0; --l) line += static_cast<char>(letter(rng));
      line += w > 1 ? ' ' : '\n';
    }
    out << line;
    gzwrite(gz, line.data(), static_cast<unsigned>(line.size()));
  }
  gzclose(gz);
}

// Reads `file` in a child -- as standard input (`stdin_`) or with read_lines() -- and prints
// one row: seconds, lines/s, the child's peak RSS.
void measure(const char* how, const fs::path& file, bool stdin_, long expected) {
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::string> lines;
    if (stdin_) {
      const int fd = open(file.c_str(), O_RDONLY);
      dup2(fd, STDIN_FILENO);
      close(fd);
      LineReader reader{LineReader::StandardInput{}};
      for (std::string line; reader.next(line);) lines.push_back(std::move(line));
    } else {
      lines = read_lines(file.string());
    }
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("%10ld %-22s %8.2f %12.0f %10.0f%s\n", expected, how, s,
                static_cast<double>(lines.size()) / s, static_cast<double>(usage.ru_maxrss) / 1024,
                static_cast<long>(lines.size()) == expected ? "" : "  (line count differs!)");
    std::fflush(stdout);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
}

}  // namespace

int bench_main(int argc, char** argv) {
  const auto sizes = bench::parse_size_list(argc > 1 ? argv[1] : "100000,1000000,4500000");
  std::printf("%10s %-22s %8s %12s %10s\n", "lines", "read", "s", "lines/s", "peak MiB");
  for (long lines : sizes) {
    const fs::path dir = fs::temp_directory_path() / "bench_line_reader";
    fs::create_directories(dir);
    const fs::path plain = dir / "text.txt", packed = dir / "text.txt.gz";
    write_corpus(plain, packed, lines);
    measure("read_lines(file)", plain, false, lines);
    measure("standard input", plain, true, lines);
    measure("standard input, gzip", packed, true, lines);
    fs::remove_all(dir);
  }
  return 0;
}

}  // namespace fathom::bench::bench_line_reader

FATHOM_BENCH_PROGRAM(bench_line_reader,
                     "reading text (plain, gzip, standard input) at corpus sizes");
