// Renderers of a ComparisonTable and of a plain TextTable: CSV, Markdown, LaTeX (booktabs).
#include <cstdio>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "base/util/csv_field.h"
#include "experiments/comparison_table.h"
#include "experiments/text_table.h"

namespace fathom::experiments {
namespace {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// Full information, no thousands separators or trailing zeros: a spreadsheet parses it.
std::string plain_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string markdown_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|' || c == '*' || c == '_' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string corner(const ComparisonTable& t) {
  return t.col_key.empty() ? t.row_key : t.row_key + " \\ " + t.col_key;
}

// What follows the mean: the std or the 95 % interval's half-width, as the table asks.
std::optional<double> spread_of(const ComparisonTable& t, const TableCell& c) {
  if (t.spread == Spread::Std) return c.std;
  if (t.spread == Spread::Ci95) return c.ci95;
  return std::nullopt;
}

// A cell's text in Markdown or LaTeX; `pm` and `dagger` are the format's symbols, `escape`
// its escaping of free text (the variant's values).
std::string cell_text(const ComparisonTable& t, const TableCell& c, const std::string& pm,
                      const std::string& dagger, std::string (*escape)(const std::string&)) {
  if (!c.value) return c.status.empty() ? "--" : c.status;
  std::string s = fixed(*c.value, t.digits);
  if (const auto spread = spread_of(t, c)) s += pm + fixed(*spread, t.digits);
  if (t.show_n) s += " (n=" + std::to_string(c.used) + ")";
  if (c.diverged > 0) s += dagger;
  if (t.show_variant) s += " [" + escape(c.variant) + "]";
  if (const std::string p = p_value_text(c); !p.empty()) s += " (" + p + ")";
  return s;
}

}  // namespace

std::string latex_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
      case '%':
      case '$':
      case '#':
      case '_':
      case '{':
      case '}':
        out += '\\';
        out += c;
        break;
      case '~':
        out += "\\textasciitilde{}";
        break;
      case '^':
        out += "\\textasciicircum{}";
        break;
      case '\\':
        out += "\\textbackslash{}";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string p_value_text(const TableCell& c) {
  if (c.p_needs_seeds) return "n < 2";
  if (!c.p) return "";
  if (*c.p < 0.001) return "p<0.001";
  char buf[32];
  std::snprintf(buf, sizeof buf, "p=%.3f", *c.p);
  return buf;
}

std::string table_to_csv(const ComparisonTable& t) {
  std::ostringstream out;
  out << csv_field(t.row_key);
  for (const auto& col : t.col_labels) {
    out << ',' << csv_field(col);
    if (t.spread == Spread::Std) out << ',' << csv_field(col + " std");
    if (t.spread == Spread::Ci95) out << ',' << csv_field(col + " ci95");
    if (t.show_n) out << ',' << csv_field(col + " n");
    if (t.show_variant) out << ',' << csv_field(col + " variant");
    if (!t.versus.empty()) out << ',' << csv_field(col + " p");
    if (!t.versus.empty() && t.p_adjust == PAdjust::Holm)
      out << ',' << csv_field(col + " p unadjusted");
  }
  out << "\r\n";  // RFC 4180 line ends
  for (size_t r = 0; r < t.row_labels.size(); ++r) {
    out << csv_field(t.row_labels[r]);
    for (const auto& c : t.cells[r]) {
      out << ',' << csv_field(c.value ? plain_number(*c.value) : c.status);
      if (t.spread != Spread::None) {
        const auto spread = spread_of(t, c);
        out << ',' << (spread ? plain_number(*spread) : "");
      }
      if (t.show_n) out << ',' << (c.value ? std::to_string(c.used) : "");
      if (t.show_variant) out << ',' << csv_field(c.variant);
      if (!t.versus.empty())
        out << ',' << (c.p ? plain_number(*c.p) : c.p_needs_seeds ? "n < 2" : "");
      if (!t.versus.empty() && t.p_adjust == PAdjust::Holm)
        out << ',' << (c.p_raw ? plain_number(*c.p_raw) : c.p_needs_seeds ? "n < 2" : "");
    }
    out << "\r\n";
  }
  return out.str();
}

std::string table_to_markdown(const ComparisonTable& t) {
  std::ostringstream out;
  out << "| " << markdown_escape(corner(t));
  for (const auto& col : t.col_labels) out << " | " << markdown_escape(col);
  out << " |\n|---";
  for (size_t i = 0; i < t.col_labels.size(); ++i) out << "|---:";
  out << "|\n";
  for (size_t r = 0; r < t.row_labels.size(); ++r) {
    out << "| " << markdown_escape(t.row_labels[r]);
    for (const auto& c : t.cells[r]) {
      const std::string text = cell_text(t, c, " ± ", "†", markdown_escape);
      out << " | " << (c.best ? "**" + text + "**" : text);
    }
    out << " |\n";
  }
  out << "\n";
  for (const auto& note : t.notes) out << "*" << markdown_escape(note) << "*  \n";
  return out.str();
}

std::string table_to_latex(const ComparisonTable& t) {
  std::ostringstream out;
  const size_t n = t.col_labels.size();
  out << "% " << latex_escape(t.metric) << " by " << latex_escape(t.row_key)
      << (t.col_key.empty() ? "" : " and " + latex_escape(t.col_key))
      << "; needs \\usepackage{booktabs}\n";
  out << "\\begin{tabular}{l" << std::string(n, 'r') << "}\n\\toprule\n";
  if (!t.col_key.empty()) {
    out << " & \\multicolumn{" << n << "}{c}{" << latex_escape(t.col_key) << "} \\\\\n";
    out << "\\cmidrule(lr){2-" << n + 1 << "}\n";
  }
  out << latex_escape(t.row_key);
  for (const auto& col : t.col_labels) out << " & " << latex_escape(col);
  out << " \\\\\n\\midrule\n";
  for (size_t r = 0; r < t.row_labels.size(); ++r) {
    out << latex_escape(t.row_labels[r]);
    for (const auto& c : t.cells[r]) {
      const std::string text =
          c.value            ? cell_text(t, c, " $\\pm$ ", "\\textsuperscript{\\dag}", latex_escape)
          : c.status.empty() ? "--"
                             : latex_escape(c.status);
      out << " & " << (c.best ? "\\textbf{" + text + "}" : text);
    }
    out << " \\\\\n";
  }
  out << "\\bottomrule\n\\end{tabular}\n";
  for (const auto& note : t.notes) out << "% " << note << "\n";  // comments: no escaping
  return out.str();
}

namespace {

std::string cell(const TextTable& t, size_t row, size_t col) {
  return col < t.rows[row].size() ? t.rows[row][col] : std::string();
}

}  // namespace

std::string text_table_to_csv(const TextTable& t) {
  std::ostringstream out;
  for (size_t c = 0; c < t.header.size(); ++c) out << (c ? "," : "") << csv_field(t.header[c]);
  out << "\r\n";
  for (size_t r = 0; r < t.rows.size(); ++r) {
    for (size_t c = 0; c < t.header.size(); ++c) out << (c ? "," : "") << csv_field(cell(t, r, c));
    out << "\r\n";
  }
  return out.str();
}

std::string text_table_to_markdown(const TextTable& t) {
  std::ostringstream out;
  out << "|";
  for (const auto& h : t.header) out << " " << markdown_escape(h) << " |";
  out << "\n|";
  for (size_t c = 0; c < t.header.size(); ++c) out << "---|";
  out << "\n";
  for (size_t r = 0; r < t.rows.size(); ++r) {
    out << "|";
    for (size_t c = 0; c < t.header.size(); ++c)
      out << " " << markdown_escape(cell(t, r, c)) << " |";
    out << "\n";
  }
  return out.str();
}

std::string text_table_to_latex(const TextTable& t) {
  std::ostringstream out;
  out << "% needs \\usepackage{booktabs}\n";
  out << "\\begin{tabular}{" << std::string(t.header.size(), 'l') << "}\n\\toprule\n";
  for (size_t c = 0; c < t.header.size(); ++c) out << (c ? " & " : "") << latex_escape(t.header[c]);
  out << " \\\\\n\\midrule\n";
  for (size_t r = 0; r < t.rows.size(); ++r) {
    for (size_t c = 0; c < t.header.size(); ++c)
      out << (c ? " & " : "") << latex_escape(cell(t, r, c));
    out << " \\\\\n";
  }
  out << "\\bottomrule\n\\end{tabular}\n";
  return out.str();
}

std::string format_text_table(const TextTable& t, const std::string& format) {
  if (format == "csv") return text_table_to_csv(t);
  if (format == "md") return text_table_to_markdown(t);
  if (format == "tex") return text_table_to_latex(t);
  throw std::invalid_argument("table format '" + format + "': expected csv, md or tex");
}

}  // namespace fathom::experiments
