// Cost of the analyses (issue 7, item 7): seconds for output change vs depth
// (analysis/output_shift.h) at encoder depths up to 96, and for the layer-dependency matrix
// beta (analysis/beta.h) of an 18L-18L model, each at initialization on the quickstart shape
// (d 64, 4 heads, d_ff 256; synthetic task, first training batch), as `fathom analyze` runs
// them. Run by hand (never in ctest):
//   bench_analysis [depths=1,2,4,8,16,32,64,96] [norm=post] [threads=1] [draws=3]
// Prints one line per depth (build + init + analysis, seconds), then beta's time.
//
// beta's memory at a paper's shape (d 512, 8 heads, d_ff 2048; N encoder and M decoder layers)
// on one batch of `tokens`, the whole batch at once against chunks of sentences within each
// budget (compute_beta's component_bytes), each in a child process of its own (peak RSS):
//   bench_analysis beta-memory [layers=60,12] [tokens=4096] [budgets_mib=0,512,128] [threads=2]
// budget 0 = the whole batch at once. Prints seconds, peak RSS and the largest difference of any
// share from the whole batch's.
//
// block-hessian (analysis/block_hessian.cpp) at init on the quickstart shape, N + N layers
// each, in a child process of its own (peak RSS): blocks x steps Hessian-vector products:
//   bench_analysis block-hessian [depths=2,4,8] [steps=20] [sentences=16] [threads=2]
//
// noise-scale (analysis/noise_scale.cpp) likewise, against depth and the number of batches K
// (2 K backward passes; memory independent of K):
//   bench_analysis noise-scale [depths=2,8] [batches=8,32,128] [threads=2]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "analysis/beta.h"
#include "analysis/output_shift.h"
#include "analysis/registry.h"
#include "analysis/subject.h"
#include "base/util/blas_setup.h"
#include "base/util/strings.h"
#include "bench/bench_program.h"
#include "bench/child_process.h"
#include "core/data/batch.h"
#include "core/data/dataset.h"
#include "core/train/device.h"

namespace fathom::bench::bench_analysis {

using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

RunConfig quickstart_shape(const std::string& norm) {
  RunConfig c;
  c.model.d_model = 64;
  c.model.heads = 4;
  c.model.d_ff = 256;
  c.model.encoder_layers = 2;
  c.model.decoder_layers = 2;
  c.model.norm = norm;
  c.data.task = "synthetic";
  c.data.synthetic.vocab = 16;
  c.data.synthetic.min_len = 4;
  c.data.synthetic.max_len = 12;
  c.data.synthetic.train_size = 2000;
  c.data.synthetic.valid_size = 10;
  c.data.synthetic.test_size = 10;
  c.data.max_tokens = 2048;
  return c;
}

std::string arg(int argc, char** argv, const std::string& key, const std::string& fallback) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind(key + "=", 0) == 0) return a.substr(key.size() + 1);
  }
  return fallback;
}

// The child of beta-memory: builds the model at init, runs beta once within `budget_mib` (0:
// unbounded), prints its seconds and every share on one line.
int beta_child(int argc, char** argv) {
  const auto layers = split(arg(argc, argv, "layers", "60,12"), ',');
  RunConfig c = quickstart_shape("post");
  c.model.d_model = 512;
  c.model.heads = 8;
  c.model.d_ff = 2048;
  c.model.encoder_layers = std::stoi(layers.at(0));
  c.model.decoder_layers = std::stoi(layers.at(1));
  c.data.max_tokens = std::stoi(arg(argc, argv, "tokens", "4096"));
  c.data.synthetic.train_size = 4 * c.data.max_tokens;
  const Dataset data = load_dataset(c.data, "/tmp", "");
  const Batch batch = analysis::first_training_batch(c, data.train);
  Transformer model = analysis::model_at_init(c, data.vocab->size(), batch);
  const int64_t mib = std::stoll(arg(argc, argv, "budget", "0"));
  const int64_t bytes = mib > 0 ? mib << 20 : std::numeric_limits<int64_t>::max();
  const auto start = Clock::now();
  const analysis::BetaResult r = analysis::compute_beta(*model, batch, nullptr, bytes);
  std::printf("%.3f %ld %ld", seconds_since(start), long(batch.rows()), long(batch.src.size(1)));
  for (const auto* m : {&r.encoder, &r.decoder})
    for (const auto& row : m->beta)
      for (double b : row) std::printf(" %.17g", b);
  std::printf("\n");
  return 0;
}

int beta_memory(int argc, char** argv) {
  const std::string layers = arg(argc, argv, "layers", "60,12");
  const std::string tokens = arg(argc, argv, "tokens", "4096");
  const std::string threads = arg(argc, argv, "threads", "2");
  std::printf("beta memory: %s layers, d 512, 8 heads, ff 2048, %s-token batch, %s thread(s)\n",
              layers.c_str(), tokens.c_str(), threads.c_str());
  std::vector<double> whole;
  for (const auto& budget : split(arg(argc, argv, "budgets_mib", "0,512,128"), ',')) {
    fathom::bench::ChildProcess child({argv[0], "beta-child", "layers=" + layers,
                                       "tokens=" + tokens, "threads=" + threads,
                                       "budget=" + budget});
    std::string line;
    if (!child.read_line(line)) {
      std::fprintf(stderr, "beta-memory: the child for budget %s printed nothing\n",
                   budget.c_str());
      return 1;
    }
    const long peak_kib = child.finish();
    const auto fields = split(line, ' ');
    std::vector<double> shares;
    for (size_t i = 3; i < fields.size(); ++i) shares.push_back(std::stod(fields[i]));
    if (whole.empty()) whole = shares;
    double worst = 0;
    for (size_t i = 0; i < shares.size() && i < whole.size(); ++i)
      worst = std::max(worst, std::abs(shares[i] - whole[i]));
    std::printf(
        "budget %5s MiB: %8.2f s, peak RSS %7.0f MiB, batch %s x %s, max |share - "
        "first budget's| %.2g\n",
        budget == "0" ? "whole" : budget.c_str(), std::stod(fields.at(0)), peak_kib / 1024.0,
        fields.at(1).c_str(), fields.at(2).c_str(), worst);
  }
  return 0;
}

// The child of block-hessian and noise-scale: the registered analysis NAME on an N + N-layer
// model at init, as `fathom analyze NAME` runs it; prints its seconds and its units of work
// (block-hessian: blocks and Hessian-vector products; noise-scale: batches and target tokens).
int analysis_child(int argc, char** argv) {
  const std::string name = arg(argc, argv, "analysis", "block-hessian");
  analysis::Subject s;
  s.config = quickstart_shape(arg(argc, argv, "norm", "post"));
  s.config.model.encoder_layers = s.config.model.decoder_layers =
      std::stoi(arg(argc, argv, "depth", "6"));
  if (name == "noise-scale") {  // the depth study's batches, and enough of them for K = 128
    s.config.data.max_tokens = 512;
    s.config.data.synthetic.train_size = 20000;
  }
  s.data = std::make_shared<Dataset>(load_dataset(s.config.data, "/tmp", ""));
  s.batch = analysis::first_training_batch(s.config, s.data->train);
  s.model = analysis::model_at_init(s.config, s.data->vocab->size(), s.batch);
  analysis::AnalysisParams params;
  params.lanczos_steps = std::stoi(arg(argc, argv, "steps", "20"));
  params.sentences = std::stoi(arg(argc, argv, "sentences", "16"));
  params.batches = std::stoi(arg(argc, argv, "batches", "32"));
  params.progress = false;
  std::vector<analysis::Subject> subjects{std::move(s)};
  const auto start = Clock::now();
  const nlohmann::json r = analysis::find_analysis(name).run(subjects, params);
  const double seconds = seconds_since(start);
  if (name == "noise-scale") {
    std::printf("%.3f %d %.0f\n", seconds, params.batches, r.at("target_tokens").get<double>());
    return 0;
  }
  long products = 0;
  for (const auto& b : r.at("blocks")) products += b.at("steps").get<long>();
  std::printf("%.3f %zu %ld\n", seconds, r.at("blocks").size(), products);
  return 0;
}

// Runs analysis_child with these arguments; its printed fields and its peak RSS in KiB.
bool child_run(char* self, const std::vector<std::string>& args, std::vector<std::string>& fields,
               long& peak_kib) {
  std::vector<std::string> argv{self, "analysis-child"};
  argv.insert(argv.end(), args.begin(), args.end());
  fathom::bench::ChildProcess child(argv);
  std::string line;
  if (!child.read_line(line)) {
    std::fprintf(stderr, "bench_analysis: the child (%s) printed nothing\n",
                 join(args, " ").c_str());
    return false;
  }
  peak_kib = child.finish();
  fields = split(line, ' ');
  return true;
}

// block-hessian's time and peak memory against depth, each depth in a child process.
int block_hessian(int argc, char** argv) {
  const std::string steps = arg(argc, argv, "steps", "20");
  const std::string sentences = arg(argc, argv, "sentences", "16");
  const std::string threads = arg(argc, argv, "threads", "2");
  std::printf(
      "block-hessian at init: d 64, 4 heads, ff 256, post, %s sentences, %s steps a "
      "block, %s thread(s)\n",
      sentences.c_str(), steps.c_str(), threads.c_str());
  for (const auto& depth : split(arg(argc, argv, "depths", "2,4,8"), ',')) {
    std::vector<std::string> f;
    long peak_kib = 0;
    if (!child_run(argv[0],
                   {"analysis=block-hessian", "depth=" + depth, "steps=" + steps,
                    "sentences=" + sentences, "threads=" + threads},
                   f, peak_kib))
      return 1;
    const double seconds = std::stod(f.at(0));
    std::printf(
        "%3s+%-3s layers: %4s blocks, %6s products, %8.2f s (%.1f ms a product), "
        "peak RSS %6.0f MiB\n",
        depth.c_str(), depth.c_str(), f.at(1).c_str(), f.at(2).c_str(), seconds,
        1000 * seconds / std::stod(f.at(2)), peak_kib / 1024.0);
  }
  return 0;
}

// noise-scale's time and peak memory against depth and the number of batches: 2 K backward
// passes, so time linear in K; memory two models' worth plus one batch's graph, whatever K.
int noise_scale(int argc, char** argv) {
  const std::string threads = arg(argc, argv, "threads", "2");
  std::printf("noise-scale at init: d 64, 4 heads, ff 256, post, 512-token batches, %s thread(s)\n",
              threads.c_str());
  for (const auto& depth : split(arg(argc, argv, "depths", "2,8"), ','))
    for (const auto& batches : split(arg(argc, argv, "batches", "8,32,128"), ',')) {
      std::vector<std::string> f;
      long peak_kib = 0;
      if (!child_run(argv[0],
                     {"analysis=noise-scale", "depth=" + depth, "batches=" + batches,
                      "threads=" + threads},
                     f, peak_kib))
        return 1;
      const double seconds = std::stod(f.at(0));
      std::printf(
          "%3s+%-3s layers, %4s batches (%7s target tokens): %8.2f s (%.0f ms a batch), peak "
          "RSS %6.0f MiB\n",
          depth.c_str(), depth.c_str(), f.at(1).c_str(), f.at(2).c_str(), seconds,
          1000 * seconds / std::stod(f.at(1)), peak_kib / 1024.0);
    }
  return 0;
}

}  // namespace

int bench_main(int argc, char** argv) {
  ensure_fast_blas(argv);
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "beta-memory" || mode == "beta-child" || mode == "block-hessian" ||
      mode == "noise-scale" || mode == "analysis-child")
    configure_threads(std::stoi(arg(argc, argv, "threads", "2")));
  if (mode == "beta-memory") return beta_memory(argc, argv);
  if (mode == "beta-child") return beta_child(argc, argv);
  if (mode == "block-hessian") return block_hessian(argc, argv);
  if (mode == "noise-scale") return noise_scale(argc, argv);
  if (mode == "analysis-child") return analysis_child(argc, argv);
  std::vector<int> depths;
  for (const auto& d : split(arg(argc, argv, "depths", "1,2,4,8,16,32,64,96"), ','))
    depths.push_back(std::stoi(d));
  const std::string norm = arg(argc, argv, "norm", "post");
  configure_threads(std::stoi(arg(argc, argv, "threads", "1")));

  const RunConfig base = quickstart_shape(norm);
  const Dataset data = load_dataset(base.data, "/tmp", "");
  const Batch batch = analysis::first_training_batch(base, data.train);
  const int64_t vocab = data.vocab->size();
  std::printf("bench_analysis: d 64, 4 heads, ff 256, norm %s, batch %ld x %ld, %d thread(s)\n",
              norm.c_str(), long(batch.rows()), long(batch.src.size(1)), torch::get_num_threads());

  analysis::ShiftOptions options;
  options.draws = std::stoi(arg(argc, argv, "draws", "3"));
  double total = 0;
  for (int n : depths) {
    const auto start = Clock::now();
    RunConfig config = base;
    config.model.encoder_layers = n;
    Transformer model = analysis::model_at_init(config, vocab, batch);
    const analysis::ShiftResult r = analysis::output_shift(*model, batch, options);
    const double s = seconds_since(start);
    total += s;
    std::printf("output-shift N=%-3d %8.3f s  (shift %.4g)\n", n, s, r.mean);
  }
  std::printf("output-shift total %.3f s over %zu depths, %d draws each\n", total, depths.size(),
              options.draws);

  RunConfig deep = base;
  deep.model.encoder_layers = 18;
  deep.model.decoder_layers = 18;
  const auto start = Clock::now();
  Transformer model = analysis::model_at_init(deep, vocab, batch);
  const double build_s = seconds_since(start);
  const auto beta_start = Clock::now();
  const analysis::BetaResult beta = analysis::compute_beta(*model, batch);
  std::printf("beta 18L-18L %8.3f s  (model build + init %.3f s; %zu x %zu encoder matrix)\n",
              seconds_since(beta_start), build_s, beta.encoder.rows.size(),
              beta.encoder.labels.size());
  return 0;
}

}  // namespace fathom::bench::bench_analysis

FATHOM_BENCH_PROGRAM(
    bench_analysis,
    "the analyses' cost: output change vs depth, beta, beta's memory, block-hessian and "
    "noise-scale against depth");
