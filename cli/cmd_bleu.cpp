// `fathom bleu REF HYP [--json]`: corpus BLEU of a hypothesis file, as sacreBLEU 2.x computes it
// by default, so numbers are comparable with published sacreBLEU scores.
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "base/metrics/bleu.h"
#include "base/metrics/bleu_corpus.h"
#include "cli/commands.h"

namespace fathom::cli {

namespace {

struct BleuArgs {
  std::string ref, hyp;
  int width = 2;
};

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
      "bleu", "Corpus BLEU of HYP against REF (sacreBLEU 2.x defaults; plain text or .gz)");
  cmd->add_option("REF", args->ref, "reference file, one segment per line")->required();
  cmd->add_option("HYP", args->hyp, "hypothesis file, line i translates REF line i")->required();
  cmd->add_option("-w,--width", args->width, "decimals of the score")
      ->capture_default_str()
      ->check(CLI::Range(0, 10));
  cmd->callback([args, &options] {
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
