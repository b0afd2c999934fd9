#pragma once
// Any table of text cells (the GUI's runs table, a linearization result) written as CSV,
// Markdown or LaTeX with the same quoting and escaping as the comparison tables
// (experiments/table_format.cpp), so every table the app exports reads like `fathom export table`.
#include <string>
#include <vector>

namespace fathom::experiments {

struct TextTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // each as long as the header (shorter: padded)
};

std::string text_table_to_csv(const TextTable& table);       // RFC 4180, CRLF line ends
std::string text_table_to_markdown(const TextTable& table);  // a GitHub table
std::string text_table_to_latex(const TextTable& table);     // a booktabs tabular

// "csv", "md" or "tex" (a file extension); anything else -> std::invalid_argument.
std::string format_text_table(const TextTable& table, const std::string& format);

}  // namespace fathom::experiments
