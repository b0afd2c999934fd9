// fathom-bench: every benchmark of bench/ but the torch-free and Qt ones, one program
// (bench/bench_program.h says why). Called by a benchmark's name -- build/bench/bench_train,
// a link to this program -- it runs that benchmark with its arguments; `fathom-bench NAME
// ARGS...` does the same; with neither, it lists them.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench_program.h"

namespace {
namespace fs = std::filesystem;

const fathom::bench::BenchProgram* find_bench(const std::string& name) {
  for (const auto& program : fathom::bench::bench_programs())
    if (name == program.name) return &program;
  return nullptr;
}

// Where build/bench/NAME would be: what a benchmark started as `fathom-bench NAME` sees as its
// argv[0], as if started by its link (some start themselves again through argv[0]).
std::string link_path(const std::string& name) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? name : (self.parent_path() / name).string();
}

}  // namespace

int main(int argc, char** argv) {
  if (const auto* program = find_bench(fs::path(argv[0]).filename().string()))
    return program->main(argc, argv);
  if (argc > 1) {
    if (const auto* program = find_bench(argv[1])) {
      std::string self = link_path(argv[1]);
      std::vector<char*> args{self.data()};
      args.insert(args.end(), argv + 2, argv + argc);
      args.push_back(nullptr);
      return program->main(argc - 1, args.data());
    }
  }
  const bool asked =
      argc > 1 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0 ||
                   std::strcmp(argv[1], "--list") == 0);
  if (!asked && argc > 1) std::fprintf(stderr, "fathom-bench: no benchmark named %s\n", argv[1]);
  std::fprintf(asked ? stdout : stderr,
               "usage: fathom-bench NAME [ARGS...]  (or build/bench/NAME [ARGS...])\n"
               "benchmarks (each file's first lines say more, and its arguments):\n");
  auto programs = fathom::bench::bench_programs();
  std::sort(programs.begin(), programs.end(),
            [](const auto& a, const auto& b) { return std::strcmp(a.name, b.name) < 0; });
  for (const auto& program : programs)
    std::fprintf(asked ? stdout : stderr, "  %-28s %s\n", program.name, program.summary);
  return asked ? 0 : 2;
}
