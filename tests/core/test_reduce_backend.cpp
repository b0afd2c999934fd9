// train.reduce_backend (core/train/reduce_backend.h): which collective library a rank uses, and
// when a run trains in a rank group at all; nccl refused with the key named where it cannot be
// had (this CPU build has no NCCL, and a CPU rank never takes it).
#include "core/train/reduce_backend.h"

#include <gtest/gtest.h>

#include "base/util/error.h"

namespace test_reduce_backend {
using fathom::ReduceBackend;
using fathom::TrainConfig;

TrainConfig with(const std::string& backend, int processes = 1) {
  TrainConfig train;
  train.reduce_backend = backend;
  train.processes = processes;
  return train;
}

TEST(ReduceBackend, CpuRanksReduceWithGlooWhateverIsAvailable) {
  const torch::Device cpu(torch::kCPU);
  if (!fathom::gloo_built()) {
    // A PyTorch wheel's LibTorch: no Gloo, so no CPU ranks -- said before training, naming the key.
    for (const char* backend : {"auto", "gloo"}) {
      try {
        fathom::resolve_reduce_backend(with(backend, 2), cpu);
        ADD_FAILURE() << backend << " accepted for a CPU rank without Gloo";
      } catch (const fathom::InputError& e) {
        EXPECT_EQ(e.field(), "train.reduce_backend");
        EXPECT_NE(e.message().find("no Gloo"), std::string::npos) << e.message();
      }
    }
    return;
  }
  EXPECT_EQ(fathom::resolve_reduce_backend(with("auto"), cpu), ReduceBackend::kGloo);
  EXPECT_EQ(fathom::resolve_reduce_backend(with("gloo"), cpu), ReduceBackend::kGloo);
}

TEST(ReduceBackend, NcclIsRefusedForACpuRankNamingTheKey) {
  try {
    fathom::resolve_reduce_backend(with("nccl", 2), torch::Device(torch::kCPU));
    FAIL() << "nccl accepted for a CPU rank";
  } catch (const fathom::InputError& e) {
    EXPECT_EQ(e.field(), "train.reduce_backend");
    // The reason given is the one that applies first: a build without NCCL, else the device.
    const std::string why = fathom::nccl_built() ? "device is cpu" : "has no NCCL";
    EXPECT_NE(e.message().find(why), std::string::npos) << e.message();
  }
}

TEST(ReduceBackend, GpuRanksTakeNcclOnlyWhereTheBuildHasIt) {
  const torch::Device gpu(torch::kCUDA, 0);  // resolving never touches the device
  if (fathom::nccl_built() || fathom::gloo_built()) {
    EXPECT_EQ(fathom::resolve_reduce_backend(with("auto"), gpu),
              fathom::nccl_built() ? ReduceBackend::kNccl : ReduceBackend::kGloo);
  }
  if (fathom::gloo_built()) {
    EXPECT_EQ(fathom::resolve_reduce_backend(with("gloo"), gpu), ReduceBackend::kGloo);
  } else {
    EXPECT_THROW(fathom::resolve_reduce_backend(with("gloo"), gpu), fathom::InputError);
  }
  if (fathom::nccl_built())
    EXPECT_EQ(fathom::resolve_reduce_backend(with("nccl"), gpu), ReduceBackend::kNccl);
  else
    EXPECT_THROW(fathom::resolve_reduce_backend(with("nccl"), gpu), fathom::InputError);
}

TEST(ReduceBackend, AGroupForSeveralProcessesOrANamedBackend) {
  EXPECT_FALSE(fathom::needs_rank_group(with("auto", 1)));  // the plain run
  EXPECT_TRUE(fathom::needs_rank_group(with("auto", 2)));
  EXPECT_TRUE(fathom::needs_rank_group(with("gloo", 1)));  // a one-rank group, to compare
  EXPECT_TRUE(fathom::needs_rank_group(with("nccl", 1)));
}

}  // namespace test_reduce_backend
