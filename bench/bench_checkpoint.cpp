// What a checkpoint costs to write and read at Transformer-base size (d 512, 6+6 layers, a 32k
// vocabulary, Adam moments), and the share of it the tensors' checksum takes
// (core/train/checkpoint_checksum.h): serializing to memory, reading back from memory (the file
// system's time left out), and the checksum alone over the same tensors, side by side in one run.
//   bench_checkpoint [d_model=512] [layers=6] [vocab=32000] [repeats=3]
// Then, from a file (in the page cache after its write), what a fork or a prune asks of every
// kept checkpoint -- does it hold the optimizer state -- read from the archive's index
// (core/train/checkpoint_contents.h) beside a load of the whole archive, and a stored run's
// model rebuilt from a checkpoint alone, in one read beside the three piecewise reads.
// Run by hand (never in ctest).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <unistd.h>

#include "base/config/config_io.h"

#include "base/config/config.h"
#include "bench/bench_program.h"
#include "core/model/depth_parameterization.h"
#include "core/model/transformer.h"
#include "core/train/checkpoint.h"
#include "core/train/checkpoint_checksum.h"
#include "core/train/checkpoint_contents.h"
#include "core/train/optimizer.h"
#include "core/train/trainer.h"

namespace fathom::bench::bench_checkpoint {

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

// The file reads of the header, side by side, `repeats` times.
void file_reads(TransformerImpl& model, Optimizer& optimizer, const TrainerState& state,
                const RunConfig& config, int repeats) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("bench_checkpoint." + std::to_string(getpid()) + ".pt"))
                               .string();
  save_checkpoint(path, model, &optimizer, state, config_to_yaml(config));
  std::printf("\nfrom a file: %.1f MiB\n%16s %12s %14s %14s %12s\n",
              static_cast<double>(std::filesystem::file_size(path)) / (1 << 20), "index s",
              "whole load s", "one read s", "piecewise s", "saved");
  for (int r = 0; r < repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    const bool indexed = checkpoint_has_optimizer_state(path);
    const double index_s = since(start);
    start = std::chrono::steady_clock::now();
    torch::serialize::InputArchive archive;
    archive.load_from(path);
    torch::Tensor step;
    const bool loaded = archive.try_read("optimizer_step", step);
    const double whole_s = since(start);
    start = std::chrono::steady_clock::now();
    const CheckpointContents one = read_checkpoint(path);
    const double one_s = since(start);
    start = std::chrono::steady_clock::now();
    const RunConfig read_config = load_config_string(checkpoint_config(path), path, "");
    Transformer piecewise(read_config.model, checkpoint_vocab_size(path));
    load_checkpoint(path, *piecewise, nullptr, nullptr);
    const double piecewise_s = since(start);
    std::printf("%10.4f (%s) %12.3f %14.3f %14.3f %11.1fx\n", index_s,
                indexed == loaded ? "same" : "DIFF", whole_s, one_s, piecewise_s,
                piecewise_s / one_s);
  }
  std::filesystem::remove(path);
}

}  // namespace

int bench_main(int argc, char** argv) {
  torch::set_num_threads(1);
  ModelConfig mc;
  mc.d_model = argc > 1 ? std::atoi(argv[1]) : 512;
  mc.heads = 8;
  mc.d_ff = 4 * mc.d_model;
  mc.encoder_layers = mc.decoder_layers = argc > 2 ? std::atoi(argv[2]) : 6;
  const int64_t vocab = argc > 3 ? std::atol(argv[3]) : 32000;
  const int repeats = argc > 4 ? std::atoi(argv[4]) : 3;
  RunConfig config;
  config.model = mc;
  const TrainConfig& tc = config.train;
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
  file_reads(*model, optimizer, state, config, repeats);
  return 0;
}

}  // namespace fathom::bench::bench_checkpoint

FATHOM_BENCH_PROGRAM(bench_checkpoint,
                     "writing and reading a Transformer-base checkpoint, its checksum's share");
