#pragma once
// The text of an error for a message or a run's stored error: LibTorch's errors (c10::Error)
// without the C++ stack trace their what() carries ("frame #0: ..."), which says nothing to a
// user and would fill the run's error field.
#include <exception>
#include <string>

namespace fathom {

std::string error_text(const std::exception& e);

}  // namespace fathom
