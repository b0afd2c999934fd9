#include "plot/output_format.h"

#include <algorithm>
#include <cctype>

#include "base/util/error.h"

namespace fathom::plot {

Format format_for_path(const std::string& path, const std::string& field) {
  const auto dot = path.rfind('.');
  std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (ext == "png") return Format::Png;
  if (ext == "pdf") return Format::Pdf;
  if (ext == "svg") return Format::Svg;
  throw InputError(path, 0, field,
                   "the output format comes from the extension: .png, .pdf or .svg");
}

}  // namespace fathom::plot
