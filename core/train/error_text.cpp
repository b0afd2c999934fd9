#include "core/train/error_text.h"

#include <c10/util/Exception.h>

namespace fathom {

std::string error_text(const std::exception& e) {
  if (const auto* torch_error = dynamic_cast<const c10::Error*>(&e)) {
    std::string text = torch_error->what_without_backtrace();
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
  }
  return e.what();
}

}  // namespace fathom
