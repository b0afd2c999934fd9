#pragma once
// "500,1000,4000" as numbers: the size lists the benches take on their command lines.
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace fathom::bench {

// Anything else is refused: it used to loop, appending zeros until memory ran out.
inline std::vector<long> parse_size_list(const char* text) {
  std::vector<long> out;
  for (const char* p = text; *p;) {
    char* end = nullptr;
    out.push_back(std::strtol(p, &end, 10));
    if (end == p || (*end != ',' && *end != '\0'))
      throw std::invalid_argument(std::string("expected sizes like 1000,10000, got '") + text +
                                  "'");
    p = *end == ',' ? end + 1 : end;
  }
  return out;
}

}  // namespace fathom::bench
