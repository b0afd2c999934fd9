// A forward + loss + backward captured as a CUDA graph and replayed (core/train/graphed_pass.h)
// against the same pass run eagerly: same losses, same gradients, dropout drawn afresh from
// each replay's seed, inputs really copied in; the trainer's cache of them
// (core/train/graphed_updates.h) when a capture fails. The CUDA tests skip without a GPU
// (scripts/gpu/lease.sh's tests phase runs them).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/data/batch.h"
#include "core/data/example.h"
#include "core/model/transformer.h"
#include "core/train/graphed_pass.h"
#include "core/train/graphed_updates.h"
#include "core/train/loss.h"
#include "tests/support/trainer_test_fixture.h"

namespace fathom {
namespace test_graphed_pass {

constexpr int64_t kVocab = 17;

// The trainer tests' tiny model (d 16, 2 heads, ff 32), two layers a stack, Post-LN.
RunConfig small_config(double dropout) {
  RunConfig c = testing::tiny_config();
  c.model.encoder_layers = 2;
  c.model.decoder_layers = 2;
  c.model.dropout = dropout;
  c.model.attention_dropout = dropout;
  c.model.activation_dropout = dropout;
  c.model.norm = "post";
  return c;
}

// `rows` pairs with lengths that vary by row (padding in both sides), ids from `seed`.
Batch batch_of(int64_t rows, int64_t src_len, int64_t tgt_len, int seed) {
  torch::manual_seed(seed);
  std::vector<Example> examples;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t s = src_len - 1 - (r % 3), t = tgt_len - 1 - (r % 2);
    auto ids = [](const torch::Tensor& x) {
      return std::vector<int64_t>(x.data_ptr<int64_t>(), x.data_ptr<int64_t>() + x.numel());
    };
    examples.push_back(make_example(ids(torch::randint(4, kVocab, {s}, torch::kLong)),
                                    ids(torch::randint(4, kVocab, {t}, torch::kLong))));
  }
  std::vector<size_t> order(examples.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  return collate(examples, order).to(torch::kCUDA);
}

Transformer cuda_model(double dropout) {
  Transformer model = build_model(small_config(dropout), kVocab, /*seed=*/3);
  model->to(torch::kCUDA);
  model->train();
  for (auto& p : model->parameters()) p.mutable_grad() = torch::zeros_like(p);
  return model;
}

// What the trainer's update does: the label-smoothed loss's sum, its gradient scaled by
// `scale` (1 / the update's tokens); the sums come back for reading.
GraphedPass::Pass pass_of(Transformer& model) {
  return [&model](const Batch& b, const torch::Tensor& scale) {
    LossSums sums = label_smoothed_loss(model->forward(b.src, b.tgt_in), b.tgt_out, 0.1,
                                        /*count_tokens=*/false);
    (sums.smoothed * scale).backward();
    return std::vector<torch::Tensor>{sums.smoothed.detach(), sums.nll};
  };
}

void zero_grads(Transformer& model) {
  for (auto& p : model->parameters()) p.mutable_grad().zero_();
}

void sgd(Transformer& model, double lr) {
  torch::NoGradGuard no_grad;
  for (auto& p : model->parameters()) p.sub_(lr * p.grad());
}

double eager_loss(Transformer& model, const Batch& b, uint64_t seed) {
  torch::manual_seed(seed);
  zero_grads(model);
  const double scale = 1.0 / static_cast<double>(b.tgt_tokens);
  const auto out =
      pass_of(model)(b, torch::full({}, scale, torch::TensorOptions().device(torch::kCUDA)));
  return out[0].item<double>();
}

double graphed_loss(GraphedPass& graph, Transformer& model, const Batch& b, uint64_t seed) {
  torch::manual_seed(seed);
  zero_grads(model);
  return graph.replay(b, 1.0 / static_cast<double>(b.tgt_tokens))[0].item<double>();
}

TEST(GraphedPass, RefusesADeviceItCannotCapture) {
  Transformer model = build_model(small_config(0.0), kVocab, 3);
  std::vector<Example> one{make_example({5, 6}, {7})};
  const Batch b = collate(one, {0});
  try {
    GraphedPass graph(pass_of(model), b, torch::kCPU);
    FAIL() << "captured on the CPU";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("needs a CUDA device"), std::string::npos) << e.what();
  }
}

// A capture that fails (here: the CPU) turns graphs off for good: every batch is then the
// caller's to run eagerly, the gradients untouched, and the summary says so.
TEST(GraphedUpdates, ACaptureThatFailsLeavesEveryBatchToTheEagerPass) {
  Transformer model = build_model(small_config(0.0), kVocab, 3);
  std::vector<Example> pairs{make_example({5, 6}, {7}), make_example({8}, {9, 10})};
  const Batch b = collate(pairs, {0, 1});
  GraphedUpdates graphs(model, AutocastSetting{}, 0.1, 0.0, torch::kCPU);
  EXPECT_FALSE(graphs.replay(b, b.tgt_tokens).has_value());  // first met: eager, then captured
  ::testing::internal::CaptureStderr();
  graphs.capture_pending();
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("train.cuda_graphs: a CUDA graph needs a CUDA device"), std::string::npos)
      << said;
  EXPECT_FALSE(graphs.replay(b, b.tgt_tokens).has_value());
  graphs.capture_pending();  // says nothing more
  EXPECT_EQ(graphs.batches(), 2);
  EXPECT_EQ(graphs.replayed_batches(), 0);
  EXPECT_EQ(graphs.summary(), "0 shapes captured, 0 of 2 batches replayed (capture failed)");
  for (const auto& p : model->parameters())  // made to exist for the capture, and still zero
    EXPECT_EQ(p.grad().abs().sum().item<double>(), 0.0);
}

// Three updates with dropout on, alternating two batches of one shape: the graph's losses and
// the parameters it trains are the eager pass's.
TEST(GraphedPass, TrainsAsTheEagerPassOnCuda) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA GPU (scripts/gpu/lease.sh)";
  const std::vector<Batch> batches{batch_of(6, 9, 7, 1), batch_of(6, 9, 7, 2)};
  Transformer eager = cuda_model(0.1), graphed = cuda_model(0.1);
  GraphedPass graph(pass_of(graphed), batches[0], torch::kCUDA);
  for (int u = 1; u <= 3; ++u) {
    const Batch& b = batches[u % 2];
    const double want = eager_loss(eager, b, 100 + u);
    const double got = graphed_loss(graph, graphed, b, 100 + u);
    EXPECT_NEAR(got, want, 1e-5 * std::abs(want)) << "update " << u;
    sgd(eager, 0.05);
    sgd(graphed, 0.05);
  }
  const auto e = eager->named_parameters(), g = graphed->named_parameters();
  for (const auto& p : e) {
    const torch::Tensor q = g[p.key()];
    EXPECT_TRUE(torch::allclose(q, p.value(), 1e-4, 1e-6)) << p.key();
  }
}

// The masks come from each replay's seed: the same seed draws the same loss, another seed
// another one (they are not frozen at capture); a batch copied in is the one scored.
TEST(GraphedPass, DrawsDropoutFromEachReplaysSeedOnCuda) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA GPU (scripts/gpu/lease.sh)";
  const Batch a = batch_of(4, 8, 6, 1), b = batch_of(4, 8, 6, 2);
  Transformer model = cuda_model(0.3);
  GraphedPass graph(pass_of(model), a, torch::kCUDA);
  const double first = graphed_loss(graph, model, a, 7);
  EXPECT_EQ(graphed_loss(graph, model, a, 7), first);
  EXPECT_NE(graphed_loss(graph, model, a, 8), first);
  EXPECT_NEAR(graphed_loss(graph, model, b, 7), eager_loss(model, b, 7), 1e-5 * first);
}

// Two shapes captured in one memory pool, replayed in turn: each output read after its replay
// is the eager loss of that batch; a batch of another shape is refused.
TEST(GraphedPass, GraphsOfOnePoolReplayInTurnOnCuda) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA GPU (scripts/gpu/lease.sh)";
  const Batch small = batch_of(3, 6, 5, 1), large = batch_of(5, 10, 9, 2);
  Transformer model = cuda_model(0.0);
  GraphedPass first(pass_of(model), small, torch::kCUDA);
  GraphedPass second(pass_of(model), large, torch::kCUDA, /*warmups=*/2, &first);
  EXPECT_TRUE(first.fits(small));
  EXPECT_FALSE(first.fits(large));
  EXPECT_THROW(first.replay(large, 1.0), std::invalid_argument);
  for (int round = 0; round < 2; ++round) {
    const double s = graphed_loss(first, model, small, 1);
    const double l = graphed_loss(second, model, large, 1);
    EXPECT_NEAR(s, eager_loss(model, small, 1), 1e-5 * s) << "round " << round;
    EXPECT_NEAR(l, eager_loss(model, large, 1), 1e-5 * l) << "round " << round;
  }
}

}  // namespace test_graphed_pass
}  // namespace fathom
