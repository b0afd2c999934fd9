#pragma once
// OpenBLAS (DYNAMIC_ARCH) picks its kernels from CPUID when it is loaded. On some virtual
// machines it misreads the CPU and falls back to its oldest kernels ("Prescott", SSE3): on the
// 2-core AVX-512 development machine that made large GEMMs 5x slower. The choice can only be
// changed through OPENBLAS_CORETYPE before the library loads, so a program calls this first
// thing in main(): when OpenBLAS is loaded, reports an old core, and the CPU supports AVX2 or
// AVX-512, it sets OPENBLAS_CORETYPE and re-executes itself (once; nothing has happened yet).
// Set OPENBLAS_CORETYPE yourself to choose, or FATHOM_KEEP_BLAS=1 to leave OpenBLAS alone.

#include <string>

namespace fathom {

void ensure_fast_blas(char** argv);

// The core OpenBLAS is using ("SkylakeX", "Haswell", ...), or "" when OpenBLAS is not loaded.
const char* blas_core_name();

// A run's tag blas.core once it (re)starts at `update` on kernels `now`, given the tag
// `recorded` so far: the kernels of each stretch in order, so a run resumed on another kind of
// machine says so -- "Haswell", then "Haswell, then Cooperlake from update 400". Unchanged when
// the last stretch's kernels are `now`'s. The tag libtorch keeps the LibTorch versions so too.
std::string blas_core_history(const std::string& recorded, const std::string& now,
                              long long update);

// Limits OpenBLAS to `threads` threads; false when OpenBLAS is not loaded. Processes that
// share a machine (sweep workers) must limit it: two processes with one OpenBLAS thread per
// core each spin against each other (600k context switches/s, 5x slower, measured).
bool set_blas_threads(int threads);

// The threads OpenBLAS computes on now; 0 when OpenBLAS is not loaded.
int blas_threads();

// True where OPENBLAS_NUM_THREADS, GOTO_NUM_THREADS or OMP_NUM_THREADS names a number above 0:
// OpenBLAS took its thread count from it when it loaded.
bool blas_threads_from_environment();

}  // namespace fathom
