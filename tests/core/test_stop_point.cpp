// Stop points (core/model/stop_point.h): with ModelHooks::stop set, a training forward throws
// UpdateAbandoned at its first layer; with the flag raised after the forward, the backward
// throws it at the first layer output it reaches -- the autograd engine hands the exception's
// own type to backward()'s caller -- for every stack connection, the recomputed layers of
// activation checkpointing included. Without the pointer nothing changes.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "base/config/config.h"
#include "core/model/stop_point.h"
#include "core/model/transformer.h"
#include "tests/support/test_device.h"

namespace fathom {
namespace test_stop_point {

RunConfig stop_config(const std::string& connection) {
  RunConfig c;
  c.model.d_model = 16;
  c.model.heads = 2;
  c.model.d_ff = 32;
  c.model.encoder_layers = 2;
  c.model.decoder_layers = 2;
  c.model.connection = connection;
  if (connection == "hyper") c.model.hc_streams = 2, c.model.norm = "pre";
  return c;
}

struct Batch2 {
  torch::Tensor src, tgt;
};
Batch2 small_batch() {
  torch::manual_seed(5);
  return {torch::randint(4, 11, {2, 5}, torch::kLong).to(test_device()),
          torch::randint(4, 11, {2, 4}, torch::kLong).to(test_device())};
}

TEST(StopPoint, AStopAbandonsTheForwardOrTheBackwardOfEveryConnection) {
  for (const std::string connection : {"residual", "depthwise_lstm", "hyper"}) {
    for (const bool checkpointed : {false, true}) {
      if (checkpointed && connection != "residual") continue;  // checkpointing is residual's
      SCOPED_TRACE(connection + (checkpointed ? " checkpointed" : ""));
      Transformer model = build_model(stop_config(connection), 11, 3);
      model->to(test_device());
      model->train();
      model->hooks().checkpoint_layers = checkpointed;
      const Batch2 b = small_batch();
      std::atomic<bool> stop{true};
      model->hooks().stop = &stop;
      EXPECT_THROW(model->forward(b.src, b.tgt), UpdateAbandoned);

      stop = false;
      torch::Tensor out = model->forward(b.src, b.tgt).sum();
      stop = true;  // the request arrives during the backward
      try {
        out.backward();
        FAIL() << "the backward ran to its end";
      } catch (const UpdateAbandoned& e) {
        EXPECT_NE(std::string(e.what()).find("backward"), std::string::npos) << e.what();
      }

      model->hooks().stop = nullptr;  // unset: a full step, every parameter a gradient
      model->zero_grad();
      model->forward(b.src, b.tgt).sum().backward();
      for (const auto& p : model->named_parameters())
        if (p.value().requires_grad()) {
          EXPECT_TRUE(p.value().grad().defined()) << p.key();
        }
    }
  }
}

// The flag down, stop points change nothing: the same loss and gradients as without them.
TEST(StopPoint, AnUnsetFlagChangesNothing) {
  const Batch2 b = small_batch();
  auto step = [&](const std::atomic<bool>* stop) {
    Transformer model = build_model(stop_config("residual"), 11, 3);
    model->to(test_device());
    model->eval();  // no dropout: the two steps are comparable
    model->hooks().stop = stop;
    model->forward(b.src, b.tgt).pow(2).sum().backward();
    std::vector<torch::Tensor> grads;
    for (const auto& p : model->parameters())
      if (p.grad().defined()) grads.push_back(p.grad().clone());
    return grads;
  };
  std::atomic<bool> down{false};
  const auto with = step(&down), without = step(nullptr);
  ASSERT_EQ(with.size(), without.size());
  for (size_t i = 0; i < with.size(); ++i) EXPECT_TRUE(torch::equal(with[i], without[i]));
}

}  // namespace test_stop_point
}  // namespace fathom
