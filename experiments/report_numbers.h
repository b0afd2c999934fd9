#pragma once
// How a report writes numbers: a lone value with 4 significant digits, and a column of values
// with the same decimals, so that they line up and compare at a glance.
#include <string>
#include <vector>

namespace fathom::experiments {

// 4 significant digits ("%.4g"), whole from 1000 on ("12345", not "1.234e+04"); "nan" when
// not finite.
std::string report_number(double v);

// A table cell's number in printf `format`; "-" where it is not finite (none, or unbounded).
std::string cell_number(double v, const char* format = "%.4g");

// One column's values with the same decimals, enough for 4 significant digits of its largest
// value (BLEU 69.55 and 29.50, not 29.5; perplexity 2.180 beside 2.152); report_number's
// where even the largest is below 0.001.
std::vector<std::string> column_numbers(const std::vector<double>& values);

}  // namespace fathom::experiments
