#include "base/util/blas_setup.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace fathom {

const char* blas_core_name() {
  using CoreName = char* (*)();
  auto corename = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  return corename ? corename() : "";
}

std::string blas_core_history(const std::string& recorded, const std::string& now,
                              long long update) {
  if (recorded.empty()) return now;
  const std::string then = ", then ";
  const auto last_start = recorded.rfind(then);
  std::string last =
      last_start == std::string::npos ? recorded : recorded.substr(last_start + then.size());
  last = last.substr(0, last.find(" from update "));
  if (last == now) return recorded;
  return recorded + then + now + " from update " + std::to_string(update);
}

bool set_blas_threads(int threads) {
  using SetThreads = void (*)(int);
  auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  if (!set || threads < 1) return false;
  set(threads);
  return true;
}

int blas_threads() {
  using GetThreads = int (*)();
  auto get = reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  return get ? get() : 0;
}

bool blas_threads_from_environment() {
  for (const char* name : {"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"})
    if (const char* value = std::getenv(name); value && std::atoi(value) > 0) return true;
  return false;
}

void ensure_fast_blas(char** argv) {
  if (std::getenv("OPENBLAS_CORETYPE") || std::getenv("FATHOM_KEEP_BLAS")) return;
  const char* current = blas_core_name();
  if (!*current) return;  // not OpenBLAS (e.g. MKL in a PyTorch wheel)
  // Kernels older than Haswell cannot use AVX2/FMA.
  const bool old_core = !std::strcmp(current, "Prescott") || !std::strcmp(current, "Core2") ||
                        !std::strcmp(current, "Penryn") || !std::strcmp(current, "Dunnington") ||
                        !std::strcmp(current, "Nehalem") || !std::strcmp(current, "Sandybridge") ||
                        !std::strcmp(current, "Atom") || !std::strcmp(current, "Katmai");
  if (!old_core) return;
  const char* wanted = nullptr;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
    wanted = "SkylakeX";
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    wanted = "Haswell";
  if (!wanted) return;
  setenv("OPENBLAS_CORETYPE", wanted, 1);
  execv("/proc/self/exe", argv);
  // exec failed: carry on with the slow kernels rather than fail.
}

}  // namespace fathom
