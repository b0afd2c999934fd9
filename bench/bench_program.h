#pragma once
// The benchmarks are one program, fathom-bench (bench/fathom_bench.cpp): each bench_<name>.cpp
// keeps its code in namespace fathom::bench::bench_<name>, its main() there named bench_main,
// and ends with FATHOM_BENCH_PROGRAM (below). Compiled in unity batches, they pay LibTorch's
// per-file cost (~12 s of GCC instantiating the precompiled header's pending templates) once a
// batch, not once a file (docs/performance.md, "Clean build time"). The build links
// build/bench/bench_<name> to fathom-bench, which runs the benchmark its name says, so each is
// still run by its own name.
#include <vector>

namespace fathom::bench {

using BenchMain = int (*)(int argc, char** argv);

struct BenchProgram {
  const char* name;  // "bench_train": the file's name and the command's
  BenchMain main;
  const char* summary;  // what it measures, in a line (`fathom-bench --list`)
};

// Every registered benchmark, in the order their files were compiled.
inline std::vector<BenchProgram>& bench_programs() {
  static std::vector<BenchProgram> programs;
  return programs;
}

struct RegisterBench {
  RegisterBench(const char* name, BenchMain main, const char* summary) {
    bench_programs().push_back({name, main, summary});
  }
};

}  // namespace fathom::bench

// At the end of bench_<name>.cpp, outside its namespace: registers
// fathom::bench::bench_<name>::bench_main under the file's name, with what it measures.
#define FATHOM_BENCH_PROGRAM(name, summary)                           \
  static const ::fathom::bench::RegisterBench fathom_register_##name( \
      #name, ::fathom::bench::name::bench_main, summary)
