// The analyses that take --device, on a GPU against the CPU (skipped without CUDA;
// scripts/gpu/lease.sh's tests phase runs them): the same subject analysed on both gives the
// same figures within float32 reassociation. output-shift is left out (its random directions
// come from the device's generator: other draws) and linearize has its own
// (Linearize.OnCudaFollowsTheCpu).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "analysis/registry.h"
#include "analysis/subject.h"
#include "tests/support/analysis_fixture.h"

namespace fathom::analysis {
namespace test_analyses_on_cuda {

// Every number of `gpu` against `cpu` at the same place: whole numbers equal (counts, shapes),
// the others within `rel` of the CPU's value plus `abs`; text, flags and nulls equal.
void expect_same_figures(const nlohmann::json& gpu, const nlohmann::json& cpu,
                         const std::string& where, double rel = 2e-3, double abs = 1e-6) {
  if (cpu.is_number_float() || gpu.is_number_float()) {
    ASSERT_TRUE(gpu.is_number()) << where << ": " << gpu.dump();
    const double want = cpu.get<double>();
    EXPECT_NEAR(gpu.get<double>(), want, rel * std::abs(want) + abs) << where;
  } else if (cpu.is_object() || cpu.is_array()) {
    ASSERT_EQ(gpu.type(), cpu.type()) << where;
    ASSERT_EQ(gpu.size(), cpu.size()) << where;
    if (cpu.is_array()) {
      for (size_t i = 0; i < cpu.size(); ++i)
        expect_same_figures(gpu[i], cpu[i], where + "[" + std::to_string(i) + "]", rel, abs);
    } else {
      for (const auto& [key, value] : cpu.items()) {
        ASSERT_TRUE(gpu.contains(key)) << where << "." << key;
        expect_same_figures(gpu[key], value, where + "." + key, rel, abs);
      }
    }
  } else {
    EXPECT_EQ(gpu, cpu) << where;
  }
}

nlohmann::json analysed_on(const std::string& name, const std::string& device,
                           AnalysisParams params = {}) {
  params.progress = false;
  params.device = device;
  std::vector<Subject> subjects{subject_with_data(small_config("pre", "xavier", 2, 2), "pre")};
  const nlohmann::json result = find_analysis(name).run(subjects, params);
  EXPECT_EQ(subjects[0].model->parameters().front().device().type(),
            device == "cpu" ? torch::kCPU : torch::kCUDA)
      << name;
  return result;
}

TEST(AnalysesOnCuda, BetaGradNormsLnScaleAndLayerSkipFollowTheCpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA GPU (scripts/gpu/lease.sh)";
  for (const std::string name : {"beta", "grad-norms", "ln-scale", "layer-skip"}) {
    SCOPED_TRACE(name);
    expect_same_figures(analysed_on(name, "cuda"), analysed_on(name, "cpu"), name);
  }
}

// Lanczos starts from a random vector drawn where the model is: the GPU's steps differ, the
// converged lambda_max does not (beyond the 1e-4 residual the iteration stops at).
TEST(AnalysesOnCuda, SharpnessFindsTheCpusLambdaMax) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA GPU (scripts/gpu/lease.sh)";
  AnalysisParams p;
  p.iterations = 60;
  const nlohmann::json cpu = analysed_on("sharpness", "cpu", p);
  const nlohmann::json gpu = analysed_on("sharpness", "cuda", p);
  ASSERT_TRUE(cpu["converged"].get<bool>()) << cpu.dump();
  EXPECT_TRUE(gpu["converged"].get<bool>()) << gpu.dump();
  const double lambda = cpu["sharpness"].get<double>();
  EXPECT_NEAR(gpu["sharpness"].get<double>(), lambda, 1e-2 * std::abs(lambda));
  EXPECT_EQ(gpu["sentences"], cpu["sentences"]);
  EXPECT_EQ(gpu["target_tokens"], cpu["target_tokens"]);
}

}  // namespace test_analyses_on_cuda
}  // namespace fathom::analysis
