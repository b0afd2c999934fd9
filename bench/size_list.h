#pragma once
// "500,1000,4000" as numbers: the size lists the benches take on their command lines.
#include <cstdlib>
#include <vector>

namespace fathom::bench {

inline std::vector<long> parse_size_list(const char* text) {
  std::vector<long> out;
  for (const char* p = text; *p;) {
    out.push_back(std::strtol(p, const_cast<char**>(&p), 10));
    if (*p == ',') ++p;
  }
  return out;
}

}  // namespace fathom::bench
