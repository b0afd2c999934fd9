#pragma once
// How one probe point's values are kept in the store's text column probe_points.vals: the
// float32 values, little-endian, in base64 (RFC 4648). Text because both engines store and
// compare it alike and the store's statement layer has no blob type; float32 because a
// probe is a diagnostic read at 6-7 significant digits, and 1,000 runs x 100 points x 36
// layers x 8 heads must stay a file one can copy (docs/schema.md). NaN and infinities keep.
#include <string>
#include <vector>

namespace fathom::db {

std::string encode_probe_values(const std::vector<float>& values);
// Throws std::runtime_error for text that is not such an encoding (a damaged row).
std::vector<float> decode_probe_values(const std::string& text);

}  // namespace fathom::db
