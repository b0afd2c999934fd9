// Fathom's training step against a plain-PyTorch reference of the same model
// (bench/reference/train_step.py, run as a child process), alternately in one invocation:
//   bench_vs_reference [size=tiny] [steps=10] [rounds=6] [threads=1] [device=cpu]
//                      [norm=post] [python=/usr/bin/python3] [script=...] [peak_tflops=0]
//                      [malloc=keep|glibc] [ref_torch_threads=0] [precision=fp32|bf16|tf32]
//                      [checkpoint=0|1] [fused_attention=auto|on|off]
//                      [reference=eager|compile|eager,compile] [graph=0|1]
// precision, checkpoint and fused_attention apply to both sides (train.precision,
// train.checkpoint_activations, model.fused_attention; the reference: torch.autocast,
// torch.utils.checkpoint, F.scaled_dot_product_attention), so the ratio compares like with like.
// reference: eager PyTorch, or its forward + loss through torch.compile (inductor), or both
// (two children; every round then runs all three sides, in a rotating order).
// graph=1: Fathom's forward, loss and backward replayed as one CUDA graph, as
// train.cuda_graphs does (core/train/graphed_updates.h); its split shows them as the forward.
// ref_torch_threads=1 gives the reference Fathom's threading policy (LibTorch 1 intra-op
// thread beside `threads` OpenBLAS threads), to tell the policy from the implementation.
// Each round runs `steps` timed steps of each (the order rotates and reverses, ABBA-style for
// two sides, so a drift in the machine's load hits all), after 3 warm-up steps each. Shared
// machines: compare the ratio, not the absolute figures. Run by hand (never in ctest).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include <torch/version.h>

#include "base/util/blas_setup.h"
#include "base/util/malloc_setup.h"
#include "bench/bench_program.h"
#include "bench/child_process.h"
#include "bench/cpu_peak.h"
#include "bench/cuda_memory.h"
#include "bench/fathom_step.h"
#include "core/train/device.h"

namespace fathom::bench::bench_vs_reference {

using nlohmann::json;

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// key=value arguments over defaults; an unknown key is an error (a typo would mislead).
std::map<std::string, std::string> parse_args(int argc, char** argv) {
  std::map<std::string, std::string> args{
      {"size", "tiny"},
      {"steps", "10"},
      {"rounds", "6"},
      {"threads", "1"},
      {"device", "cpu"},
      {"norm", "post"},
      {"python", "/usr/bin/python3"},
      {"script", FATHOM_SOURCE_DIR "/bench/reference/train_step.py"},
      {"peak_tflops", "0"},
      {"malloc", "keep"},
      {"ref_torch_threads", "0"},
      {"precision", "fp32"},
      {"checkpoint", "0"},
      {"fused_attention", "auto"},
      {"reference", "eager"},
      {"graph", "0"}};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto eq = a.find('=');
    if (eq == std::string::npos || !args.count(a.substr(0, eq)))
      throw std::invalid_argument("unknown argument '" + a +
                                  "' (see the comment atop " __FILE__ ")");
    args[a.substr(0, eq)] = a.substr(eq + 1);
  }
  return args;
}

// Reads the child's JSON lines until one with this "event"; other lines are echoed.
json expect(ChildProcess& child, const std::string& event) {
  std::string line;
  while (child.read_line(line)) {
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.value("event", "") == event) return j;
    std::printf("reference: %s\n", line.c_str());
  }
  throw std::runtime_error("the reference exited before sending '" + event + "'");
}

struct Round {
  double tokens_per_s, step_ms, forward_ms, backward_ms, update_ms, faults_per_step;
};

Round fathom_round(const StepTimes& t) {
  return {t.tokens_per_s(), t.ms(t.total()), t.ms(t.forward),
          t.ms(t.backward), t.ms(t.update),  t.steps ? double(t.minor_faults) / t.steps : 0.0};
}

Round reference_round(const json& j) {
  return {j["tokens_per_s"], j["step_ms"],
          j["forward_ms"],   j["backward_ms"],
          j["update_ms"],    j.value("minor_faults", 0.0) / std::max(1, j.value("steps", 1))};
}

void print_round(const char* who, const Round& r) {
  std::printf(
      "  %-17s %9.0f tok/s  step %8.1f ms (forward %.1f, backward %.1f, clip+adam %.1f)"
      "  %.0f page faults/step\n",
      who, r.tokens_per_s, r.step_ms, r.forward_ms, r.backward_ms, r.update_ms, r.faults_per_step);
}

Round median_round(const std::vector<Round>& rounds) {
  auto field = [&](double Round::*f) {
    std::vector<double> v;
    for (const auto& r : rounds) v.push_back(r.*f);
    return median(v);
  };
  return {field(&Round::tokens_per_s), field(&Round::step_ms),   field(&Round::forward_ms),
          field(&Round::backward_ms),  field(&Round::update_ms), field(&Round::faults_per_step)};
}

// One PyTorch child: eager or compiled.
struct Reference {
  std::string name;  // "reference" or "reference/compile"
  std::unique_ptr<ChildProcess> child;
  json config, params, ready, last_result;
  std::vector<Round> rounds;
  std::vector<double> ratios;  // fathom / this reference, per round
};

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

// Round r's order of n sides: rotated by r, reversed in every other block of n rounds; for two
// sides F R, R F, R F, F R, ...
std::vector<int> round_order(int r, int n) {
  std::vector<int> order;
  for (int i = 0; i < n; ++i) order.push_back((i + r) % n);
  if ((r / n) % 2 == 1) std::reverse(order.begin(), order.end());
  return order;
}

}  // namespace

int run_comparison(int argc, char** argv) {
  const auto args = parse_args(argc, argv);
  const TrainSize size = find_train_size(args.at("size"));
  const int steps = std::stoi(args.at("steps")), rounds = std::stoi(args.at("rounds"));
  const int threads = std::stoi(args.at("threads"));
  const std::string norm = args.at("norm");
  const torch::Device device = resolve_device(args.at("device"));
  const std::string load_start = load_average();

  // Fathom: the trainer's threading policy (LibTorch 1 thread + `threads` OpenBLAS threads
  // when OpenBLAS is loaded; for bf16 on the CPU LibTorch `threads` too: core/train/threads.h). The
  // reference: torch.set_num_threads(threads), OpenBLAS the same.
  configure_threads(threads,
                    bf16_matmuls_on_cpu(FathomStep::autocast_for(args.at("precision"), device)));
  // keep: what the trainer does (base/util/malloc_setup.h); glibc: glibc's own thresholds.
  const bool keep = args.at("malloc") == "keep";
  if (keep) keep_freed_memory();
  setenv("OPENBLAS_NUM_THREADS", std::to_string(threads).c_str(), 1);
  const bool checkpoint = args.at("checkpoint") == "1";
  const std::string fused = args.at("fused_attention");
  if (fused != "auto" && fused != "on" && fused != "off")
    throw std::invalid_argument("fused_attention: auto, on or off, got '" + fused + "'");
  // The reference: F.scaled_dot_product_attention unless off, in every precision (what a
  // PyTorch user's eager code calls); Fathom's auto leaves it under bf16 on the CPU.
  const std::string reference_fused = fused == "off" ? "off" : "auto";
  FathomStep fathom(size, norm, device, args.at("precision"), checkpoint, fused);
  fathom.use_graph(args.at("graph") == "1");

  std::vector<std::string> reference_argv{args.at("python"),
                                          args.at("script"),
                                          "--serve",
                                          "--size",
                                          size.name,
                                          "--threads",
                                          std::to_string(threads),
                                          "--device",
                                          args.at("device"),
                                          "--norm",
                                          norm,
                                          "--d-model",
                                          std::to_string(size.d_model),
                                          "--heads",
                                          std::to_string(size.heads),
                                          "--d-ff",
                                          std::to_string(size.d_ff),
                                          "--encoder-layers",
                                          std::to_string(size.encoder_layers),
                                          "--decoder-layers",
                                          std::to_string(size.decoder_layers),
                                          "--vocab",
                                          std::to_string(size.vocab),
                                          "--rows",
                                          std::to_string(size.rows),
                                          "--src-len",
                                          std::to_string(size.src_len),
                                          "--tgt-len",
                                          std::to_string(size.tgt_len),
                                          "--arch",
                                          size.decoder_only ? "decoder_only" : "encoder_decoder",
                                          "--torch-threads",
                                          args.at("ref_torch_threads"),
                                          "--precision",
                                          args.at("precision"),
                                          "--fused-attention",
                                          reference_fused};
  if (checkpoint) reference_argv.push_back("--checkpoint");
  std::vector<Reference> references;
  for (const std::string& mode : split_commas(args.at("reference"))) {
    if (mode != "eager" && mode != "compile")
      throw std::invalid_argument("reference: eager, compile or eager,compile; got '" + mode + "'");
    Reference ref;
    ref.name = mode == "eager" ? "reference" : "reference/compile";
    std::vector<std::string> argv_mode = reference_argv;
    if (mode == "compile") argv_mode.push_back("--compile");
    ref.child = std::make_unique<ChildProcess>(argv_mode);
    ref.config = expect(*ref.child, "config");
    ref.params = expect(*ref.child, "params");
    ref.ready = expect(*ref.child, "ready");  // after its 3 warm-up steps (and compilation)
    references.push_back(std::move(ref));
  }
  const json& config = references.front().config;
  fathom.run(3);  // Fathom's warm-up steps

  if (size.decoder_only)
    std::printf(
        "bench_vs_reference: size %s (d %d, %d heads, ff %d, decoder-only %dL, V %ld), batch "
        "%ld x %ld tokens, device %s, norm %s\n",
        size.name.c_str(), size.d_model, size.heads, size.d_ff, size.decoder_layers,
        long(size.vocab), long(size.rows), long(size.tgt_len), device.str().c_str(), norm.c_str());
  else
    std::printf(
        "bench_vs_reference: size %s (d %d, %d heads, ff %d, %dL-%dL, V %ld), batch "
        "%ld x %ld source -> %ld x %ld target tokens, device %s, norm %s\n",
        size.name.c_str(), size.d_model, size.heads, size.d_ff, size.encoder_layers,
        size.decoder_layers, long(size.vocab), long(size.rows), long(size.src_len), long(size.rows),
        long(size.tgt_len), device.str().c_str(), norm.c_str());
  std::printf(
      "threads: fathom LibTorch %s %d + OpenBLAS %s (%s); reference PyTorch %s: torch %d + "
      "OpenBLAS %s (%s)\n",
      TORCH_VERSION, torch::get_num_threads(),
      *blas_core_name() ? std::to_string(threads).c_str() : "-", blas_core_name(),
      config.value("torch", "?").c_str(), config.value("torch_threads", 0),
      config["blas_threads"].is_null() ? "-" : config["blas_threads"].dump().c_str(),
      config.value("blas_core", "").c_str());
  std::printf(
      "precision %s, checkpoint %d, fathom CUDA graph %d, fused attention: fathom %s, "
      "reference %s\n",
      args.at("precision").c_str(), int(checkpoint), int(fathom.graphed()), fused.c_str(),
      config.value("fused_attention", false) ? "sdpa" : "explicit");
  std::printf("fathom malloc: %s\n", keep ? "keep_freed_memory() (as the trainer)"
                                          : "glibc's dynamic thresholds (as before issue 7)");
  std::printf("load average (1/5/15 min) at start: %s on %u cores\n", load_start.c_str(),
              std::thread::hardware_concurrency());

  // Same model? Parameter counts per kind must agree exactly.
  const auto counts = fathom.model()->parameter_counts();
  bool same = true;
  std::printf("%-11s %12s %12s\n", "parameters", "fathom", "reference");
  for (const auto& [kind, n] : counts) {
    const int64_t r = references.front().params.value(kind, int64_t(-1));
    for (const Reference& ref : references) same = same && ref.params.value(kind, -1) == n;
    std::printf("%-11s %12ld %12ld%s\n", kind.c_str(), long(n), long(r),
                r == n ? "" : "  MISMATCH");
  }
  // Same seeds and draw order on the CPU: the first losses agree to rounding (on a GPU the
  // random streams differ, as do inductor's dropout masks; both should then be near ln V + the
  // smoothing term).
  for (const Reference& ref : references) {
    const double ref_first = ref.ready.value("first_loss", NAN);
    std::printf("first-step loss: fathom %.6f %s %.6f |diff| %.2g (ln V = %.4f)%s\n",
                fathom.first_loss(), ref.name.c_str(), ref_first,
                std::fabs(fathom.first_loss() - ref_first), std::log(double(size.vocab)),
                same ? "" : "  PARAMETER COUNTS DIFFER");
  }

  std::vector<Round> ours;
  const int sides = 1 + static_cast<int>(references.size());
  for (int r = 0; r < rounds; ++r) {
    Round f{};
    std::vector<Round> p(references.size());
    std::string order_text;
    for (int side : round_order(r, sides)) {
      if (side == 0) {
        f = fathom_round(fathom.run(steps));
        order_text += " fathom";
      } else {
        Reference& ref = references[side - 1];
        ref.child->send("run " + std::to_string(steps));
        ref.last_result = expect(*ref.child, "result");
        p[side - 1] = reference_round(ref.last_result);
        order_text += " " + ref.name;
      }
    }
    ours.push_back(f);
    std::printf("round %d (order:%s), %d steps each:", r + 1, order_text.c_str(), steps);
    for (size_t i = 0; i < references.size(); ++i) {
      references[i].rounds.push_back(p[i]);
      references[i].ratios.push_back(f.tokens_per_s / p[i].tokens_per_s);
      std::printf(" fathom/%s %.3f", references[i].name.c_str(), references[i].ratios.back());
    }
    std::printf("\n");
    print_round("fathom", f);
    for (size_t i = 0; i < references.size(); ++i) print_round(references[i].name.c_str(), p[i]);
  }
  std::vector<long> ref_rss_kib;
  for (Reference& ref : references) {
    ref.child->send("quit");
    ref_rss_kib.push_back(ref.child->finish());
  }
  struct rusage self {};
  getrusage(RUSAGE_SELF, &self);

  const Round fm = median_round(ours);
  std::printf("median over %d rounds of %d steps:\n", rounds, steps);
  print_round("fathom", fm);
  for (const Reference& ref : references) print_round(ref.name.c_str(), median_round(ref.rounds));
  for (const Reference& ref : references)
    std::printf(
        "ratio fathom/%s: %.3f  (median of per-round tokens/s ratios; min %.3f, "
        "max %.3f; > 1: Fathom faster)\n",
        ref.name.c_str(), median(ref.ratios),
        *std::min_element(ref.ratios.begin(), ref.ratios.end()),
        *std::max_element(ref.ratios.begin(), ref.ratios.end()));
  std::printf("peak RSS: fathom %.0f MiB (getrusage self)", self.ru_maxrss / 1024.0);
  for (size_t i = 0; i < references.size(); ++i)
    std::printf(", %s %.0f MiB", references[i].name.c_str(), ref_rss_kib[i] / 1024.0);
  std::printf(" (wait4 ru_maxrss of each child; Python + torch import included)\n");
  if (device.is_cuda()) {
    const auto peak_bytes = cuda_peak_allocated_bytes(device.has_index() ? device.index() : 0);
    if (peak_bytes)
      std::printf("fathom peak CUDA memory allocated: %.0f MiB\n", *peak_bytes / double(1 << 20));
    else
      std::printf("fathom peak CUDA memory allocated: not available (no CUDA allocator stats)\n");
  }
  for (const Reference& ref : references)
    if (ref.last_result.contains("peak_cuda_bytes"))
      std::printf("%s peak CUDA memory allocated: %.0f MiB\n", ref.name.c_str(),
                  ref.last_result["peak_cuda_bytes"].get<double>() / (1 << 20));

  const double flops = train_flops_per_target_token(size);
  std::printf("training FLOPs per target token (matmuls, 3x forward; bench/train_sizes.h): %.4g\n",
              flops);
  double peak = 0;
  std::string peak_text;
  if (device.is_cpu()) {
    const CpuPeak cpu = read_cpu_peak();
    peak = cpu.per_core() * threads;
    peak_text = std::to_string(threads) + " core(s) x " + std::to_string(cpu.flops_per_cycle) +
                " FLOP/cycle (" + cpu.isa + ", 2 FMA units assumed) x " +
                std::to_string(int(cpu.mhz)) + " MHz [" + cpu.model + "]";
  } else {
    peak = std::stod(args.at("peak_tflops")) * 1e12;
    peak_text = "peak_tflops argument";
  }
  const double fa = flops * fm.tokens_per_s;
  std::printf("achieved: fathom %.2f GFLOP/s", fa / 1e9);
  if (peak > 0) std::printf(" (%.1f%%)", 100 * fa / peak);
  for (const Reference& ref : references) {
    const double ra = flops * median_round(ref.rounds).tokens_per_s;
    std::printf(", %s %.2f GFLOP/s", ref.name.c_str(), ra / 1e9);
    if (peak > 0) std::printf(" (%.1f%%)", 100 * ra / peak);
  }
  if (peak > 0) std::printf(" of peak %.1f GFLOP/s = %s", peak / 1e9, peak_text.c_str());
  std::printf("\nload average (1/5/15 min) at end: %s\n", load_average().c_str());
  bool children_ok = true;
  for (const Reference& ref : references)
    children_ok = children_ok && ref.child->exit_status() == 0;
  return same && children_ok ? 0 : 1;
}

int bench_main(int argc, char** argv) {
  ensure_fast_blas(argv);  // the child inherits OPENBLAS_CORETYPE: both use the same kernels
  try {
    return run_comparison(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_vs_reference: %s\n", e.what());
    return 2;
  }
}

}  // namespace fathom::bench::bench_vs_reference

FATHOM_BENCH_PROGRAM(bench_vs_reference,
                     "Fathom's step against a plain-PyTorch reference, alternately");
