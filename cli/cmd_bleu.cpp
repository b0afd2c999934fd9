// `fathom bleu REF HYP [--json]`: corpus BLEU of a hypothesis file, as sacreBLEU 2.x computes it
// by default, so numbers are comparable with published sacreBLEU scores. With a second
// hypothesis file, `fathom bleu REF HYP_A HYP_B`: the paired bootstrap of B against A
// (base/metrics/bleu_bootstrap.h) -- both scores, the difference with its 95 % interval, and the
// two-sided p -- so anyone can test two systems' outputs.
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "base/metrics/bleu.h"
#include "base/metrics/bleu_bootstrap.h"
#include "base/metrics/bleu_corpus.h"
#include "cli/commands.h"

namespace fathom::cli {

namespace {

struct BleuArgs {
  std::string ref, hyp, hyp_b;
  int width = 2;
  int samples = 1000;
  std::uint64_t seed = 12345;
};

// The paired bootstrap of HYP_B against HYP (the baseline), printed or as JSON.
void print_paired(const BleuArgs& args, const GlobalOptions& options) {
  const BleuCorpus a = read_bleu_corpus(args.ref, args.hyp);
  const BleuCorpus b = read_bleu_corpus(args.ref, args.hyp_b);
  const PairedBootstrap r = paired_bootstrap_bleu(a.hyps, b.hyps, a.refs, args.samples, args.seed);
  if (options.json) {
    const nlohmann::ordered_json j = {
        {"baseline", {{"file", args.hyp}, {"bleu", r.baseline.score}, {"ci95", r.baseline.ci}}},
        {"system", {{"file", args.hyp_b}, {"bleu", r.system.score}, {"ci95", r.system.ci}}},
        {"difference", r.difference},
        {"difference_ci95", {r.difference_low, r.difference_high}},
        {"p", r.p},
        {"samples", r.samples},
        {"seed", args.seed},
        {"test", "paired bootstrap resampling (Koehn 2004), two-sided, shift method"}};
    std::cout << j.dump(1) << "\n";
    return;
  }
  const int w = args.width;
  std::printf("A %s: BLEU %.*f (95 %% CI +- %.*f)\n", args.hyp.c_str(), w, r.baseline.score, w,
              r.baseline.ci);
  std::printf("B %s: BLEU %.*f (95 %% CI +- %.*f)\n", args.hyp_b.c_str(), w, r.system.score, w,
              r.system.ci);
  std::printf("B - A = %+.*f, 95 %% interval [%+.*f, %+.*f], p = %.4f (two-sided)\n", w,
              r.difference, w, r.difference_low, w, r.difference_high, r.p);
  std::printf("paired bootstrap resampling of %zu segments, %d draws, seed %llu\n", a.refs.size(),
              r.samples, static_cast<unsigned long long>(args.seed));
}

// sacreBLEU's JSON fields (score rounded to the width, the signature split into keys), plus the
// unrounded numbers and the sufficient statistics so results can be aggregated later.
nlohmann::ordered_json to_json(const BleuScore& s, int width) {
  nlohmann::ordered_json j;  // keeps sacreBLEU's key order
  j["name"] = "BLEU";
  char rounded[64];
  std::snprintf(rounded, sizeof rounded, "%.*f", width, s.score);
  j["score"] = std::stod(rounded);
  j["signature"] = s.signature;
  j["verbose_score"] = s.verbose();
  for (std::size_t start = 0; start < s.signature.size();) {
    std::size_t end = s.signature.find('|', start);
    if (end == std::string::npos) end = s.signature.size();
    const std::string pair = s.signature.substr(start, end - start);
    const std::size_t colon = pair.find(':');
    j[pair.substr(0, colon)] = pair.substr(colon + 1);
    start = end + 1;
  }
  j["score_exact"] = s.score;
  j["precisions"] = s.precisions;
  j["bp"] = s.bp;
  j["ratio"] = s.ratio;
  j["hyp_len"] = s.hyp_len;
  j["ref_len"] = s.ref_len;
  j["counts"] = s.stats.matches;
  j["totals"] = s.stats.totals;
  return j;
}

}  // namespace

void add_bleu_command(CLI::App& app, GlobalOptions& options) {
  auto args = std::make_shared<BleuArgs>();
  CLI::App* cmd = app.add_subcommand(
      "bleu",
      "Corpus BLEU of HYP against REF (sacreBLEU 2.x defaults; plain text or .gz); with HYP_B, "
      "the paired bootstrap test of HYP_B against HYP");
  cmd->add_option("REF", args->ref, "reference file, one segment per line")->required();
  cmd->add_option("HYP", args->hyp, "hypothesis file, line i translates REF line i")->required();
  cmd->add_option("HYP_B", args->hyp_b,
                  "a second system's hypotheses: the paired bootstrap of HYP_B against HYP");
  cmd->add_option("--samples", args->samples, "bootstrap draws (with HYP_B)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--seed", args->seed, "the draws' seed (with HYP_B; sacreBLEU's default)")
      ->capture_default_str();
  cmd->add_option("-w,--width", args->width, "decimals of the score")
      ->capture_default_str()
      ->check(CLI::Range(0, 10));
  cmd->callback([args, &options] {
    if (!args->hyp_b.empty()) return print_paired(*args, options);
    const BleuCorpus corpus = read_bleu_corpus(args->ref, args->hyp);
    if (corpus.tokenized_looking_hyps() >= 100) {
      std::cerr << "warning: " << corpus.tokenized_looking_hyps()
                << " hypothesis lines end in a tokenized period (' .'); BLEU expects "
                   "detokenized text\n";
    }
    const BleuScore score = corpus_bleu(corpus.hyps, corpus.refs);
    if (options.json) {
      std::cout << to_json(score, args->width).dump(1) << "\n";
    } else {
      std::cout << score.format(args->width) << "\n" << score.signature << "\n";
    }
  });
}

}  // namespace fathom::cli
