#pragma once
// The output format of a figure file, from its extension (no Qt: the CLI checks it early).
#include <string>

namespace fathom::plot {

enum class Format { Png, Pdf, Svg };

// .png, .pdf or .svg, any case; anything else throws fathom::InputError naming `field`.
Format format_for_path(const std::string& path, const std::string& field = "--out");

}  // namespace fathom::plot
