#include "base/metrics/bleu_corpus.h"

#include "base/metrics/py_text.h"
#include "base/metrics/text_lines.h"
#include "base/util/error.h"

namespace fathom {

namespace {
void rstrip_all(std::vector<std::string>& lines) {
  for (std::string& line : lines) line.resize(py_rstrip(line).size());
}
std::string lines(std::size_t n) { return std::to_string(n) + (n == 1 ? " line" : " lines"); }
}  // namespace

std::size_t BleuCorpus::tokenized_looking_hyps() const {
  std::size_t count = 0;
  for (const std::string& h : hyps) {
    if (h.size() >= 2 && h.compare(h.size() - 2, 2, " .") == 0) ++count;
  }
  return count;
}

BleuCorpus read_bleu_corpus(const std::string& ref_path, const std::string& hyp_path) {
  BleuCorpus corpus;
  corpus.refs = read_text_lines(ref_path);
  corpus.hyps = read_text_lines(hyp_path);
  if (corpus.hyps.empty()) throw InputError(hyp_path, 0, "", "no lines to score");
  if (corpus.hyps.size() != corpus.refs.size()) {
    throw InputError(hyp_path, 0, "",
                     "has " + lines(corpus.hyps.size()) + " but reference file '" + ref_path +
                         "' has " + lines(corpus.refs.size()) +
                         "; one hypothesis per reference line is needed");
  }
  // sacreBLEU's command line strips each line's trailing whitespace before scoring.
  rstrip_all(corpus.refs);
  rstrip_all(corpus.hyps);
  for (std::size_t i = 0; i < corpus.refs.size(); ++i) {
    if (corpus.refs[i].empty()) {
      throw InputError(ref_path, static_cast<int>(i + 1), "",
                       "empty reference segment (sacreBLEU refuses empty references)");
    }
  }
  return corpus;
}

}  // namespace fathom
