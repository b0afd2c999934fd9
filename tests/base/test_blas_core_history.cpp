// blas_core_history (base/util/blas_setup.h): a run's tag blas.core names the OpenBLAS kernels
// of each stretch it trained, so a run resumed on another kind of CPU says where its numbers
// changed kernels (they round differently: README, "Reproducibility").
#include <gtest/gtest.h>

#include <string>

#include "base/util/blas_setup.h"

namespace test_blas_core_history {
using fathom::blas_core_history;

TEST(BlasCoreHistory, AFreshRunNamesItsKernels) {
  EXPECT_EQ(blas_core_history("", "Haswell", 0), "Haswell");
}

TEST(BlasCoreHistory, AResumeOnTheSameKernelsChangesNothing) {
  EXPECT_EQ(blas_core_history("Haswell", "Haswell", 400), "Haswell");
  const std::string moved = "Haswell, then Cooperlake from update 400";
  EXPECT_EQ(blas_core_history(moved, "Cooperlake", 700), moved);
}

TEST(BlasCoreHistory, AResumeOnOtherKernelsAddsThemFromItsUpdate) {
  const std::string once = blas_core_history("Haswell", "Cooperlake", 400);
  EXPECT_EQ(once, "Haswell, then Cooperlake from update 400");
  // Back on the first machine: a stretch of its own, compared with the last one only.
  EXPECT_EQ(blas_core_history(once, "Haswell", 900),
            "Haswell, then Cooperlake from update 400, then Haswell from update 900");
}

}  // namespace test_blas_core_history
