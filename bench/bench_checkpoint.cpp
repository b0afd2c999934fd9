// What a checkpoint costs to write and read at Transformer-base size (d 512, 6+6 layers, a 32k
// vocabulary, Adam moments), and the share of it the tensors' checksum takes
// (core/train/checkpoint_checksum.h): serializing to memory, reading back from memory (the file
// system's time left out), and the checksum alone over the same tensors, side by side in one run.
//   bench_checkpoint [d_model=512] [layers=6] [vocab=32000] [repeats=3]
// Run by hand (never in ctest).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/config/config.h"
#include "core/model/depth_parameterization.h"
#include "core/model/transformer.h"
#include "core/train/checkpoint.h"
#include "core/train/checkpoint_checksum.h"
#include "core/train/optimizer.h"
#include "core/train/trainer.h"

using namespace fathom;

namespace {

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The checksum of every tensor a checkpoint holds: the model's and Adam's two moments (as
// large as the parameters; zeros here, the same bytes to read).
double checksum_seconds(TransformerImpl& model) {
  const auto start = std::chrono::steady_clock::now();
  TensorChecksum sum;
  for (const auto& p : model.named_parameters()) {
    sum.add(p.key(), p.value());
    sum.add(p.key() + "m", torch::zeros_like(p.value()));
    sum.add(p.key() + "v", torch::zeros_like(p.value()));
  }
  for (const auto& b : model.named_buffers()) sum.add(b.key(), b.value());
  return since(start);
}

}  // namespace

int main(int argc, char** argv) {
  torch::set_num_threads(1);
  ModelConfig mc;
  mc.d_model = argc > 1 ? std::atoi(argv[1]) : 512;
  mc.heads = 8;
  mc.d_ff = 4 * mc.d_model;
  mc.encoder_layers = mc.decoder_layers = argc > 2 ? std::atoi(argv[2]) : 6;
  const int64_t vocab = argc > 3 ? std::atol(argv[3]) : 32000;
  const int repeats = argc > 4 ? std::atoi(argv[4]) : 3;
  TrainConfig tc;
  Transformer model(mc, vocab);
  Optimizer optimizer(parameter_groups(*model, mc), tc, {});
  TrainerState state;
  std::printf("%10s %12s %10s %10s %12s %16s\n", "MiB", "serialize s", "read s", "sum s",
              "sum/write", "sum/(write+read)");
  for (int r = 0; r < repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    const std::string bytes = checkpoint_bytes(*model, &optimizer, state, "");
    const double write_s = since(start);
    start = std::chrono::steady_clock::now();
    load_checkpoint_bytes(bytes, "bench", *model, &optimizer, &state);
    const double read_s = since(start);
    // Each of serialize and read computes the checksum once inside the times above.
    const double sum_s = checksum_seconds(*model);
    std::printf("%10.1f %12.3f %10.3f %10.3f %12.2f %16.2f\n",
                static_cast<double>(bytes.size()) / (1 << 20), write_s, read_s, sum_s,
                sum_s / write_s, 2 * sum_s / (write_s + read_s));
  }
  return 0;
}
