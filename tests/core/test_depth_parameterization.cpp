// Depth-wise parameterizations (core/model/depth_parameterization.h; Dey et al. 2025 table 1,
// alpha = 1/2 depth-muP, alpha = 1 CompleteP): the multipliers at depths 2, 4, 8 worked by
// hand, the branch multiplier as it meets the stream, the optimizer's groups and the learning
// rate and epsilon an Adam step actually uses in each, and the combinations refused.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "base/config/config_io.h"
#include "core/model/depth_parameterization.h"
#include "core/model/registry.h"
#include "core/model/transformer.h"
#include "core/train/optimizer.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom {
namespace test_depth_parameterization {
using testing::tiny_config;
using testing::TrainerTest;

RunConfig pre_ln(const std::string& parameterization, int encoder_layers, int decoder_layers) {
  RunConfig c = tiny_config();
  c.model.norm = "pre";
  c.model.parameterization = parameterization;
  c.model.base_depth = 2;
  c.model.encoder_layers = encoder_layers;
  c.model.decoder_layers = decoder_layers;
  return c;
}

// L_base = 2, m_L = L / 2 = 1, 2, 4:
//   completep (alpha 1):    branch 1/m_L = 1, 1/2, 1/4; lr m_L^0 = 1;     eps 1/m_L
//   depth_mup (alpha 1/2):  branch m_L^-1/2 = 1, 1/sqrt2, 1/2; lr m_L^-1/2; eps m_L^-1/2
struct Expected {
  double branch, lr, eps;
};
const std::map<std::string, std::map<int, Expected>> kByHand = {
    {"completep", {{2, {1, 1, 1}}, {4, {0.5, 1, 0.5}}, {8, {0.25, 1, 0.25}}}},
    {"depth_mup",
     {{2, {1, 1, 1}},
      {4, {0.70710678118654752, 0.70710678118654752, 0.70710678118654752}},
      {8, {0.5, 0.5, 0.5}}}},
    {"standard", {{2, {1, 1, 1}}, {4, {1, 1, 1}}, {8, {1, 1, 1}}}}};

TEST(DepthParameterization, MultipliersAtDepthsTwoFourEightByHand) {
  for (const auto& [name, depths] : kByHand)
    for (const auto& [L, e] : depths) {
      const ModelConfig m = pre_ln(name, L, L).model;
      EXPECT_NEAR(branch_multiplier(m, L), e.branch, 1e-15) << name << " L=" << L;
      EXPECT_NEAR(stack_lr_scale(m, L), e.lr, 1e-15) << name << " L=" << L;
      EXPECT_NEAR(stack_eps_scale(m, L), e.eps, 1e-15) << name << " L=" << L;
    }
  EXPECT_THROW(parameterization_alpha("mup"), std::invalid_argument);
}

struct FirstBranch : SublayerObserver {
  void on_sublayer(const SublayerId& id, const SublayerTrace& trace) override {
    if (id.stack == Stack::Encoder && id.index == 0 && !branch.defined()) {
      branch = trace.branch.clone();
      step = (trace.output - trace.input).clone();
    }
  }
  torch::Tensor branch, step;
};

TEST(DepthParameterization, TheStreamGetsTheBranchTimesTheMultiplier) {
  // The same parameters with and without CompleteP at L = 8: the first encoder sub-layer reads
  // the same embedding, so its branch as it meets the stream is 1/4 of the standard one's.
  RunConfig scaled = pre_ln("completep", 8, 2), plain = pre_ln("standard", 8, 2);
  Transformer a = build_model(scaled, 12, 7), b = build_model(plain, 12, 7);
  a->eval();
  b->eval();
  FirstBranch seen_a, seen_b;
  a->hooks().observer = &seen_a;
  b->hooks().observer = &seen_b;
  torch::NoGradGuard no_grad;
  const torch::Tensor src = torch::randint(4, 12, {2, 6}, torch::kInt64);
  const torch::Tensor tgt = torch::randint(4, 12, {2, 5}, torch::kInt64);
  a->forward(src, tgt);
  b->forward(src, tgt);
  ASSERT_TRUE(seen_a.branch.defined() && seen_b.branch.defined());
  EXPECT_TRUE(torch::allclose(seen_a.branch, 0.25 * seen_b.branch, 1e-6, 1e-7));
  EXPECT_TRUE(torch::allclose(seen_a.step, seen_a.branch, 1e-5, 1e-6));
  EXPECT_GT(seen_b.branch.abs().max().item<double>(), 1e-3);
}

std::map<std::string, Optimizer::Group> groups_by_name(const Optimizer& optimizer) {
  std::map<std::string, Optimizer::Group> out;
  for (const auto& g : optimizer.groups()) out.emplace(g.name, g);
  return out;
}

TEST(DepthParameterization, OptimizerGroupsCarryTheHandWorkedRates) {
  for (const std::string name : {"completep", "depth_mup"})
    for (const int L : {2, 4, 8}) {
      RunConfig c = pre_ln(name, L, L);
      c.train.eps = 1e-8;
      Transformer model = build_model(c, 12, 1);
      const Optimizer optimizer(parameter_groups(*model, c.model), c.train);
      const auto groups = groups_by_name(optimizer);
      ASSERT_EQ(groups.size(), 3u);
      const Expected& e = kByHand.at(name).at(L);
      for (const std::string stack : {"encoder", "decoder"}) {
        EXPECT_NEAR(groups.at(stack).lr_scale * c.train.lr, e.lr * c.train.lr, 1e-15) << name << L;
        EXPECT_NEAR(groups.at(stack).eps, e.eps * 1e-8, 1e-22) << name << L;
        for (const auto& p : groups.at(stack).parameters) {
          EXPECT_EQ(p.rfind(stack + ".", 0), 0u) << p;
          EXPECT_EQ(p.find("final_norm"), std::string::npos) << p;
        }
      }
      EXPECT_EQ(groups.at("outside").lr_scale, 1.0);
      EXPECT_NEAR(groups.at("outside").eps, e.eps * 1e-8, 1e-22);
      // Every parameter in exactly one group.
      size_t grouped = 0;
      for (const auto& [n, g] : groups) grouped += g.parameters.size();
      EXPECT_EQ(grouped, model->parameters().size());
    }
  // Stacks of different depth: depth_mup with N = 8, M = 2 scales the encoder only.
  RunConfig c = pre_ln("depth_mup", 8, 2);
  Transformer model = build_model(c, 12, 1);
  const auto groups = groups_by_name(Optimizer(parameter_groups(*model, c.model), c.train));
  EXPECT_NEAR(groups.at("encoder").lr_scale, 0.5, 1e-15);
  EXPECT_NEAR(groups.at("decoder").lr_scale, 1.0, 1e-15);
  // standard: one group, everything at the scheduled rate.
  RunConfig s = pre_ln("standard", 8, 8);
  Transformer plain = build_model(s, 12, 1);
  const Optimizer one(parameter_groups(*plain, s.model), s.train);
  ASSERT_EQ(one.groups().size(), 1u);
  EXPECT_EQ(one.groups()[0].lr_scale, 1.0);
  EXPECT_EQ(one.groups()[0].eps, s.train.eps);
}

TEST(DepthParameterization, AnAdamStepMovesEachGroupAtItsOwnRateAndEpsilon) {
  // First Adam step with gradient g everywhere: m_hat = g, sqrt(v_hat) = |g|, so each
  // parameter moves by -lr_g * g / (|g| + eps_g). With g = 1e-8 = train.eps the epsilon shows:
  // depth_mup at L = 8 (m_L = 4): in-stack lr/2 and eps/2 -> -(lr/2) * 1 / 1.5 = -lr/3;
  // outside: lr, eps/2 -> -lr / 1.5.
  RunConfig c = pre_ln("depth_mup", 8, 8);
  c.train.eps = 1e-8;
  c.train.weight_decay = 0;
  Transformer model = build_model(c, 12, 1);
  Optimizer optimizer(parameter_groups(*model, c.model), c.train);
  std::map<std::string, torch::Tensor> before;
  for (const auto& p : model->named_parameters()) {
    before[p.key()] = p.value().detach().clone();
    p.value().mutable_grad() = torch::full_like(p.value(), 1e-8);
  }
  const double lr = 1e-3;
  optimizer.step(lr);
  const std::map<std::string, double> expected = {
      {"encoder", -lr / 3}, {"decoder", -lr / 3}, {"outside", -lr / 1.5}};
  for (const auto& g : optimizer.groups())
    for (const auto& name : g.parameters) {
      const torch::Tensor p = model->named_parameters()[name];
      const double moved = (p.detach() - before[name]).mean().item<double>();
      EXPECT_NEAR(moved, expected.at(g.name), 1e-4 * lr) << g.name << " " << name;
    }
}

// Through the trainer, whose optimizer takes parameter_groups(): CompleteP and depth-muP
// runs of 4-layer stacks train to the end, and resume from their checkpoint to the same losses
// as without the interruption (each group's Adam state is saved under its parameter's name).
TEST_F(TrainerTest, ParameterizedRunsTrainAndResumeExactly) {
  for (const std::string name : {"completep", "depth_mup"}) {
    RunConfig config = pre_ln(name, 4, 4);
    config.train.log_every = 5;
    const int64_t whole = new_run(config);
    ASSERT_EQ(train(config, whole).status, "finished") << name;
    RunConfig first = config;
    first.train.max_updates = 10;
    const int64_t split = new_run(first);
    ASSERT_EQ(train(first, split).status, "finished") << name;
    ASSERT_EQ(train(config, split, /*resume=*/true).status, "finished") << name;
    const auto a = testing::series(*store_, whole, "train_loss");
    const auto b = testing::series(*store_, split, "train_loss");
    ASSERT_EQ(a.size(), 5u) << name;
    for (const auto& [step, loss] : a) {
      ASSERT_TRUE(b.count(step)) << name << " " << step;
      EXPECT_EQ(b.at(step), loss) << name << " at " << step;
    }
  }
}

void expect_refused(const std::string& yaml, const std::string& key, const std::string& word) {
  try {
    check_model_methods(load_config_string(yaml, "depth.yaml", "."));
    FAIL() << "accepted:\n" << yaml;
  } catch (const std::exception& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("depth.yaml"), std::string::npos) << what;
    EXPECT_NE(what.find(key), std::string::npos) << what;
    EXPECT_NE(what.find(word), std::string::npos) << what;
  }
}

TEST(DepthParameterization, CombinationsItCannotApplyToAreRefused) {
  expect_refused("model:\n  parameterization: completep\n", "model.norm", "Pre-LN");
  expect_refused("model:\n  parameterization: depth_mup\n  norm: pre\n  init: ds_init\n",
                 "model.init", "ds_init");
  expect_refused(
      "model:\n  parameterization: completep\n  norm: pre\n  connection: depthwise_lstm\n",
      "model.connection", "residual");
  expect_refused("model:\n  parameterization: depth_mup\n  norm: pre\ntrain:\n  optimizer: muon\n",
                 "train.optimizer", "Muon");
  EXPECT_NO_THROW(check_model_methods(
      load_config_string("model:\n  parameterization: completep\n  norm: pre\n", "ok.yaml", ".")));
}

}  // namespace test_depth_parameterization
}  // namespace fathom
