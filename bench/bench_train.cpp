// Training-step throughput: target tokens/s, step time and the split between forward,
// backward and optimizer for a named model size on synthetic batches of a fixed token budget.
//   bench_train [size=tiny|small|base] [steps=20] [threads=0]
// Run by hand (never in ctest). Compare settings side by side in one invocation.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/config/config_io.h"
#include "core/data/batch.h"
#include "core/model/transformer.h"
#include "core/train/device.h"
#include "core/train/loss.h"
#include "core/train/optimizer.h"
#include "core/util/blas_setup.h"

using namespace fathom;
using Clock = std::chrono::steady_clock;

static double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

int main(int argc, char** argv) {
  ensure_fast_blas(argv);
  const std::string size = argc > 1 ? argv[1] : "tiny";
  const int steps = argc > 2 ? std::atoi(argv[2]) : 20;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 0;
  RunConfig config;
  int64_t vocab = 1000, length = 20, max_tokens = 2048;
  if (size == "tiny") {
    config.model.d_model = 64, config.model.heads = 4, config.model.d_ff = 256;
    config.model.encoder_layers = config.model.decoder_layers = 2;
    vocab = 40, length = 10;
  } else if (size == "small") {
    config.model.d_model = 256, config.model.heads = 4, config.model.d_ff = 1024;
    config.model.encoder_layers = config.model.decoder_layers = 3;
    vocab = 8000, length = 16, max_tokens = 4096;
  } else {  // base
    vocab = 32000, length = 32, max_tokens = 4096;
  }
  configure_threads(threads);
  Transformer model = build_model(config, vocab, 1);
  std::vector<std::pair<std::string, torch::Tensor>> named;
  std::vector<torch::Tensor> params;
  for (auto& p : model->named_parameters()) named.emplace_back(p.key(), p.value()), params.push_back(p.value());
  Optimizer optimizer(named, config.train);

  std::vector<Example> examples;
  torch::manual_seed(0);
  const int64_t rows = max_tokens / length;
  for (int64_t i = 0; i < rows; ++i) {
    auto src = torch::randint(4, vocab, {length - 1}, torch::kInt64);
    auto tgt = torch::randint(4, vocab, {length - 1}, torch::kInt64);
    examples.push_back(make_example(std::vector<int64_t>(src.data_ptr<int64_t>(), src.data_ptr<int64_t>() + src.numel()),
                                    std::vector<int64_t>(tgt.data_ptr<int64_t>(), tgt.data_ptr<int64_t>() + tgt.numel())));
  }
  std::vector<size_t> ids(examples.size());
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = i;
  Batch batch = collate(examples, ids);

  double forward = 0, backward = 0, update = 0;
  int64_t tokens = 0;
  for (int step = -3; step < steps; ++step) {  // 3 warm-up steps
    auto t0 = Clock::now();
    optimizer.zero_grad();
    LossSums sums = label_smoothed_loss(model->forward(batch.src, batch.tgt_in), batch.tgt_out, 0.1);
    torch::Tensor loss = sums.smoothed / static_cast<double>(sums.tokens);
    auto t1 = Clock::now();
    loss.backward();
    auto t2 = Clock::now();
    torch::nn::utils::clip_grad_norm_(params, 1e9);
    optimizer.step(1e-4);
    if (step < 0) continue;
    forward += std::chrono::duration<double>(t1 - t0).count();
    backward += std::chrono::duration<double>(t2 - t1).count();
    update += since(t2);
    tokens += sums.tokens;
  }
  const double total = forward + backward + update;
  std::printf("blas core %s\n", blas_core_name());
  std::printf("size %s threads %d params %ld rows %ld len %ld\n", size.c_str(), torch::get_num_threads(),
              long(model->parameter_counts()["total"]), long(rows), long(length));
  std::printf("tokens/s %.0f  step %.1f ms  (forward %.1f, backward %.1f, clip+optimizer %.1f ms)\n",
              tokens / total, 1000 * total / steps, 1000 * forward / steps, 1000 * backward / steps,
              1000 * update / steps);
  return 0;
}
