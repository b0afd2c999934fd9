#pragma once
// Small string helpers shared by config parsing and command-line output.
#include <cstdint>
#include <string>
#include <vector>

namespace fathom {

// Levenshtein edit distance; used to suggest the closest valid key for a typo.
int edit_distance(const std::string& a, const std::string& b);

// The candidate closest to `word`, or "" when none is reasonably close.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

std::vector<std::string> split(const std::string& text, char separator);
std::string join(const std::vector<std::string>& parts, const std::string& separator);
std::string trim(const std::string& text);
// A number as a person writes it: 20, 0.5, 1e-05 (printf's %g).
std::string format_number(double value);
// A size as a person reads it: 812 B, 481.2 KiB, 1.4 MiB, 2.31 GiB (powers of 1024).
std::string format_bytes(std::uintmax_t bytes);
// One word for /bin/sh in single quotes (a quote inside as '\''): a batch script's path, a
// suggested command's filter.
std::string shell_quote(const std::string& word);
// The same, left as it is where it needs no quotes (letters, digits and ._-=,/+:@%): a command
// printed for a person to copy.
std::string shell_word(const std::string& word);

}  // namespace fathom
