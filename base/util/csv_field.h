#pragma once
// One CSV field as RFC 4180 writes it: as it is, or in double quotes (inner quotes doubled)
// where it holds a comma, a quote or a line break.
#include <string>

namespace fathom {

std::string csv_field(const std::string& s);

}  // namespace fathom
