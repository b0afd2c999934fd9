// Activation checkpointing (core/model/checkpointed_layer.h): a training step with layers
// recomputed in backward must give the same loss and the same gradient for every parameter
// as the plain step, with dropout on (so the recomputation must draw the same masks), for
// Post-LN, Pre-LN, the depth-wise LSTM and hyper-connections, must recompute every layer,
// and must leave the random stream where the plain step leaves it.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "core/model/checkpointed_layer.h"
#include "core/model/dropout.h"
#include "core/model/transformer.h"
#include "core/train/loss.h"
#include "tests/support/test_device.h"

namespace fathom {
namespace test_checkpointed_layers {

RunConfig small_config(const std::string& norm) {
  RunConfig c;
  c.model.d_model = 16;
  c.model.heads = 2;
  c.model.d_ff = 32;
  c.model.encoder_layers = 3;
  c.model.decoder_layers = 2;
  c.model.dropout = 0.3;
  c.model.attention_dropout = 0.2;
  c.model.activation_dropout = 0.1;
  c.model.norm = norm;
  return c;
}

struct StepResult {
  torch::Tensor loss;
  std::map<std::string, torch::Tensor> grads;
  torch::Tensor next_draw;    // what the generator gives after the step
  int recomputed_layers = 0;  // checkpointed layers in the loss's graph
};

// The checkpointed layers in the graph behind `root`: nodes of checkpointed_layer's autograd
// function (its name carries the type's). A stack that ignored the switch would have none.
int checkpoint_nodes(const torch::Tensor& root) {
  std::set<torch::autograd::Node*> seen;
  std::vector<torch::autograd::Node*> todo{root.grad_fn().get()};
  int found = 0;
  while (!todo.empty()) {
    torch::autograd::Node* node = todo.back();
    todo.pop_back();
    if (!node || !seen.insert(node).second) continue;
    if (node->name().find("CheckpointFunction") != std::string::npos) ++found;
    for (const auto& edge : node->next_edges()) todo.push_back(edge.function.get());
  }
  return found;
}

// One forward/backward on a fixed batch with padding, dropout seeded identically.
StepResult train_step(const RunConfig& config, bool checkpoint) {
  const int64_t vocab = 11;
  Transformer model = build_model(config, vocab, /*seed=*/3);
  model->to(test_device());  // on CUDA the recomputation must restore the CUDA generator too
  model->train();
  model->hooks().checkpoint_layers = checkpoint;
  torch::manual_seed(7);
  torch::Tensor src = torch::randint(4, vocab, {3, 6}, torch::kLong);
  torch::Tensor tgt = torch::randint(4, vocab, {3, 5}, torch::kLong);
  src.index_put_({0, torch::indexing::Slice(4, torch::indexing::None)}, 0);  // padding
  tgt.index_put_({1, torch::indexing::Slice(3, torch::indexing::None)}, 0);
  src = src.to(test_device()), tgt = tgt.to(test_device());
  torch::manual_seed(99);
  LossSums sums = label_smoothed_loss(model->forward(src, tgt), tgt, 0.1);
  StepResult r;
  r.recomputed_layers = checkpoint_nodes(sums.smoothed);
  sums.smoothed.backward();
  r.loss = sums.smoothed.detach();
  for (const auto& p : model->named_parameters())
    if (p.value().grad().defined()) r.grads[p.key()] = p.value().grad().clone();
  r.next_draw = torch::rand({4}, torch::TensorOptions().device(test_device()));
  return r;
}

void expect_same_step(const RunConfig& config) {
  const StepResult plain = train_step(config, false);
  const StepResult recomputed = train_step(config, true);
  // Every encoder and decoder layer was recomputed, none in the plain step.
  EXPECT_EQ(plain.recomputed_layers, 0);
  EXPECT_EQ(recomputed.recomputed_layers,
            config.model.encoder_layers + config.model.decoder_layers);
  EXPECT_TRUE(torch::allclose(recomputed.loss, plain.loss, 0, 1e-6))
      << recomputed.loss.item<double>() << " vs " << plain.loss.item<double>();
  ASSERT_EQ(recomputed.grads.size(), plain.grads.size());
  for (const auto& [name, grad] : plain.grads) {
    ASSERT_TRUE(recomputed.grads.count(name)) << name;
    const double difference = (recomputed.grads.at(name) - grad).abs().max().item<double>();
    EXPECT_LE(difference, 1e-6) << name;
    // Hyper-connections start their dynamic weights at zero (Zhu et al.), so the gates and the
    // norm that feeds them get no gradient at the first step.
    const bool zero_at_init = name.find("hc_gate_") != std::string::npos ||
                              name.find("hc_stream_norm") != std::string::npos;
    if (!zero_at_init) {
      EXPECT_GT(grad.abs().max().item<double>(), 0) << name << ": no gradient at all";
    }
  }
  // The generator continues where the plain step leaves it (later dropout unaffected).
  EXPECT_TRUE(torch::equal(recomputed.next_draw, plain.next_draw));
}

TEST(CheckpointedLayers, PostNormStepHasTheSameLossAndGradients) {
  expect_same_step(small_config("post"));
}
TEST(CheckpointedLayers, PreNormStepHasTheSameLossAndGradients) {
  expect_same_step(small_config("pre"));
}

// The depth-wise LSTM's layers carry two tensors (o, c) and the decoder's take the encoder's
// memory: both must reach the recomputation and its gradients (the stack ignored the switch).
TEST(CheckpointedLayers, DepthwiseLstmStepHasTheSameLossAndGradients) {
  RunConfig config = small_config("pre");
  config.model.connection = "depthwise_lstm";
  expect_same_step(config);
}

// Hyper-connections' layers carry their streams as one flattened tensor.
TEST(CheckpointedLayers, HyperConnectionStepHasTheSameLossAndGradients) {
  RunConfig config = small_config("pre");
  config.model.connection = "hyper";
  config.model.hc_streams = 2;
  expect_same_step(config);
}

// Without the restored generator state the recomputed dropout masks would differ: check that
// the test above would notice (the layer's output in backward depends on the masks).
TEST(CheckpointedLayers, RecomputationRedrawsTheSameDropoutMask) {
  const auto on_device = torch::TensorOptions().device(test_device());
  torch::Tensor w = torch::ones({8}, on_device.requires_grad(true));
  torch::Tensor x = torch::linspace(1, 2, 8, on_device).requires_grad_(true);
  const LayerFunction layer = [&](const torch::Tensor& in, const torch::Tensor&) {
    return fathom::dropout(in * w, 0.5, /*training=*/true);
  };
  torch::manual_seed(5);
  torch::Tensor plain = layer(x, {});
  plain.sum().backward();
  const torch::Tensor plain_grad = w.grad().clone();
  w.mutable_grad().zero_();
  torch::manual_seed(5);
  torch::Tensor recomputed = checkpointed_layer(layer, x, {});
  EXPECT_TRUE(torch::equal(recomputed, plain));
  EXPECT_FALSE(recomputed.grad_fn() == nullptr);
  torch::rand({3}, on_device);  // other draws between forward and backward must not matter
  recomputed.sum().backward();
  EXPECT_TRUE(torch::equal(w.grad(), plain_grad));
  // Half the mask is zero: the gradient d/dw (x * w * mask / 0.5) = 2 x mask.
  const torch::Tensor expected = torch::where(plain != 0, 2 * x.detach(), torch::zeros_like(x));
  EXPECT_TRUE(torch::allclose(w.grad(), expected));
}

// Evaluation and no-grad forwards never checkpoint (nothing to recompute).
TEST(CheckpointedLayers, EvalForwardIsUnchanged) {
  const RunConfig config = small_config("post");
  Transformer model = build_model(config, 11, 3);
  model->eval();
  torch::manual_seed(1);
  torch::Tensor src = torch::randint(4, 11, {2, 4}, torch::kLong);
  torch::Tensor tgt = torch::randint(4, 11, {2, 3}, torch::kLong);
  const torch::Tensor plain = model->forward(src, tgt);
  model->hooks().checkpoint_layers = true;
  const torch::Tensor with_flag = model->forward(src, tgt);
  EXPECT_TRUE(torch::equal(plain, with_flag));
}

}  // namespace test_checkpointed_layers
}  // namespace fathom
