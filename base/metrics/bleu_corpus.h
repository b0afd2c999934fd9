#pragma once
// Loading a hypothesis/reference file pair for corpus BLEU, with the checks sacreBLEU's
// command line makes, reported as InputError so `fathom bleu` can name the offending file.
#include <string>
#include <vector>

namespace fathom {

struct BleuCorpus {
  std::vector<std::string> hyps, refs;  // segments, trailing whitespace removed as sacreBLEU does

  // Lines ending in " ." -- sacreBLEU warns at 100 or more that the input looks tokenized.
  std::size_t tokenized_looking_hyps() const;
};

// Reads REF and HYP (plain or .gz, see read_text_lines). Throws InputError naming HYP when it has
// no lines or a different number of lines than REF, and naming REF and the line for an empty
// reference segment.
BleuCorpus read_bleu_corpus(const std::string& ref_path, const std::string& hyp_path);

}  // namespace fathom
