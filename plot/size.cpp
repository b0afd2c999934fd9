#include "plot/size.h"

#include <cstdlib>

#include "base/util/error.h"

namespace fathom::plot {

FigureSize parse_size(const std::string& text, const std::string& field) {
  if (text == "column") return kColumnSize;
  if (text == "page") return kPageSize;
  const auto x = text.find('x');
  auto fail = [&] {
    throw InputError(
        "", 0, field,
        "expected column, page or WIDTHxHEIGHT in inches (e.g. 3.3x2.4), got '" + text + "'");
  };
  if (x == std::string::npos) fail();
  const std::string w = text.substr(0, x), h = text.substr(x + 1);
  char* end = nullptr;
  const double width = std::strtod(w.c_str(), &end);
  if (w.empty() || *end) fail();
  const double height = std::strtod(h.c_str(), &end);
  if (h.empty() || *end) fail();
  // A page is at most ~8.5 x 11 in; anything beyond that is surely a typo (e.g. pixels).
  if (!(width >= 0.5 && width <= 20 && height >= 0.5 && height <= 20))
    throw InputError("", 0, field,
                     "width and height must be between 0.5 and 20 inches, got '" + text + "'");
  return {width, height};
}

}  // namespace fathom::plot
