#pragma once
// What the table exports (`fathom export table|lr-sensitivity|lr-transfer|importance|
// verdicts`) share: the notes under a table, and writing to --out or stdout.
#include <string>
#include <vector>

namespace fathom::cli {

// `text` with the notes that say how it was computed: under a Markdown table (after a blank
// line), as LaTeX comments; CSV stays data only.
std::string with_notes(std::string text, const std::vector<std::string>& notes,
                       const std::string& format);

// `text` to stdout, or to the file `out` (InputError at --out when it cannot be written), then
// "wrote OUT DETAIL" on stderr.
void write_export(const std::string& text, const std::string& out, const std::string& detail = "");

}  // namespace fathom::cli
