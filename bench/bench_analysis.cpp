// Cost of the analyses (issue 7, item 7): seconds for output change vs depth
// (analysis/output_shift.h) at encoder depths up to 96, and for the layer-dependency matrix
// beta (analysis/beta.h) of an 18L-18L model, each at initialization on the quickstart shape
// (d 64, 4 heads, d_ff 256; synthetic task, first training batch), as `fathom analyze` runs
// them. Run by hand (never in ctest):
//   bench_analysis [depths=1,2,4,8,16,32,64,96] [norm=post] [threads=1] [draws=3]
// Prints one line per depth (build + init + analysis, seconds), then beta's time.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "analysis/beta.h"
#include "analysis/output_shift.h"
#include "analysis/subject.h"
#include "base/util/blas_setup.h"
#include "base/util/strings.h"
#include "core/data/dataset.h"
#include "core/train/device.h"

using namespace fathom;
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

}  // namespace

int main(int argc, char** argv) {
  ensure_fast_blas(argv);
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
