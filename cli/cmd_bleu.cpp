// `fathom bleu REF HYP [--sentences] [--json]`: corpus BLEU of a hypothesis file, as sacreBLEU 2.x
// computes it by default, so numbers are comparable with published sacreBLEU scores. With a second
// hypothesis file, `fathom bleu REF HYP_A HYP_B`: the paired bootstrap of B against A
// (base/metrics/bleu_bootstrap.h) -- both scores, the difference with its 95 % interval, and the
// two-sided p -- so anyone can test two systems' outputs. More pairs, `fathom bleu REF A1 B1 A2
// B2 ...` (one pair per seed), pool the test over seeds: every pair resampled with the same
// segments, the mean difference tested. `--sentences`: each line's BLEU as sacreBLEU's
// sentence_bleu gives it (effective order), to find the sentences a system gets worst.
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/metrics/bleu.h"
#include "base/metrics/bleu_bootstrap.h"
#include "base/metrics/bleu_corpus.h"
#include "base/util/error.h"
#include "cli/commands.h"

namespace fathom::cli {

namespace {

struct BleuArgs {
  std::string ref, hyp, hyp_b;
  std::vector<std::string> more;  // further pairs A2 B2 ...
  int width = 2;
  int samples = 1000;
  std::uint64_t seed = 12345;
  bool sentences = false;
};

// The paired bootstrap of HYP_B against HYP (the baseline) -- pooled over every pair given --
// printed or as JSON.
void print_paired(const BleuArgs& args, const GlobalOptions& options) {
  if (args.more.size() % 2 != 0)
    throw InputError("fathom bleu", 0, "HYP_B",
                     "hypothesis files come in pairs (A1 B1 A2 B2 ...); " +
                         std::to_string(args.more.size() + 2) + " were given");
  std::vector<std::string> files = {args.hyp, args.hyp_b};
  files.insert(files.end(), args.more.begin(), args.more.end());
  std::vector<HypothesisPair> pairs;
  std::vector<std::string> refs;
  for (size_t i = 0; i < files.size(); i += 2) {
    BleuCorpus a = read_bleu_corpus(args.ref, files[i]);
    BleuCorpus b = read_bleu_corpus(args.ref, files[i + 1]);
    refs = a.refs;
    pairs.push_back(HypothesisPair{std::move(a.hyps), std::move(b.hyps)});
  }
  const PairedBootstrap r = pooled_paired_bootstrap_bleu(pairs, refs, args.samples, args.seed);
  const bool pooled = pairs.size() > 1;
  if (options.json) {
    nlohmann::ordered_json j;
    if (!pooled) {
      j["baseline"] = {{"file", args.hyp}, {"bleu", r.baseline.score}, {"ci95", r.baseline.ci}};
      j["system"] = {{"file", args.hyp_b}, {"bleu", r.system.score}, {"ci95", r.system.ci}};
    } else {
      nlohmann::ordered_json each = nlohmann::ordered_json::array();
      for (size_t k = 0; k < pairs.size(); ++k) {
        const double a = corpus_bleu(pairs[k].baseline, refs).score;
        const double b = corpus_bleu(pairs[k].system, refs).score;
        each.push_back({{"baseline_file", files[2 * k]},
                        {"system_file", files[2 * k + 1]},
                        {"baseline_bleu", a},
                        {"system_bleu", b},
                        {"difference", b - a}});
      }
      j["pairs"] = each;
      j["baseline"] = {{"mean_bleu", r.baseline.score}, {"ci95", r.baseline.ci}};
      j["system"] = {{"mean_bleu", r.system.score}, {"ci95", r.system.ci}};
    }
    j["difference"] = r.difference;
    j["difference_ci95"] = {r.difference_low, r.difference_high};
    j["p"] = r.p;
    j["samples"] = r.samples;
    j["seed"] = args.seed;
    j["test"] = std::string("paired bootstrap resampling (Koehn 2004), two-sided, shift method") +
                (pooled ? "; pooled over the pairs: the same segments drawn for every pair, the "
                          "mean difference tested"
                        : "");
    std::cout << j.dump(1) << "\n";
    return;
  }
  const int w = args.width;
  if (pooled) {
    for (size_t k = 0; k < pairs.size(); ++k) {
      const double a = corpus_bleu(pairs[k].baseline, refs).score;
      const double b = corpus_bleu(pairs[k].system, refs).score;
      std::printf("pair %zu: A %s BLEU %.*f, B %s BLEU %.*f, B - A = %+.*f\n", k + 1,
                  files[2 * k].c_str(), w, a, files[2 * k + 1].c_str(), w, b, w, b - a);
    }
    std::printf("A: mean BLEU %.*f (95 %% CI +- %.*f)\n", w, r.baseline.score, w, r.baseline.ci);
    std::printf("B: mean BLEU %.*f (95 %% CI +- %.*f)\n", w, r.system.score, w, r.system.ci);
  } else {
    std::printf("A %s: BLEU %.*f (95 %% CI +- %.*f)\n", args.hyp.c_str(), w, r.baseline.score, w,
                r.baseline.ci);
    std::printf("B %s: BLEU %.*f (95 %% CI +- %.*f)\n", args.hyp_b.c_str(), w, r.system.score, w,
                r.system.ci);
  }
  std::printf("B - A = %+.*f, 95 %% interval [%+.*f, %+.*f], p = %.4f (two-sided)\n", w,
              r.difference, w, r.difference_low, w, r.difference_high, r.p);
  std::printf("paired bootstrap resampling of %zu segments, %d draws, seed %llu%s\n", refs.size(),
              r.samples, static_cast<unsigned long long>(args.seed),
              pooled ? (", pooled over " + std::to_string(pairs.size()) +
                        " pairs (the same segments drawn for every pair; the mean of B - A)")
                           .c_str()
                     : "");
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

// One score a segment, in the files' order: "BLEU = ..." lines, or a JSON array of sacreBLEU's
// fields with the line number.
void print_sentences(const BleuCorpus& corpus, int width, const GlobalOptions& options) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (size_t i = 0; i < corpus.hyps.size(); ++i) {
    const BleuScore score = sentence_bleu(corpus.hyps[i], corpus.refs[i]);
    if (!options.json) {
      std::cout << score.format(width) << "\n";
      continue;
    }
    nlohmann::ordered_json j = {{"line", i + 1}};
    j.update(to_json(score, width));
    all.push_back(j);
  }
  if (options.json) std::cout << all.dump(1) << "\n";
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
  cmd->add_option("PAIRS", args->more,
                  "more pairs A2 B2 ... of the same test set (one per seed): the test pooled "
                  "over the pairs, each draw the same segments for every pair");
  cmd->add_option("--samples", args->samples, "bootstrap draws (with HYP_B)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--seed", args->seed, "the draws' seed (with HYP_B; sacreBLEU's default)")
      ->capture_default_str();
  cmd->add_option("-w,--width", args->width, "decimals of the score")
      ->capture_default_str()
      ->check(CLI::Range(0, 10));
  cmd->add_flag("--sentences", args->sentences,
                "each line's BLEU instead (sacreBLEU's sentence_bleu: effective order)");
  cmd->callback([args, &options] {
    if (args->sentences && !args->hyp_b.empty())
      throw InputError("fathom bleu", 0, "--sentences",
                       "scores one hypothesis file; the paired test takes no --sentences");
    if (!args->hyp_b.empty()) return print_paired(*args, options);
    const BleuCorpus corpus = read_bleu_corpus(args->ref, args->hyp);
    if (args->sentences) return print_sentences(corpus, args->width, options);
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
