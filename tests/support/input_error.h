#pragma once
// For tests of bad input: runs `body`, which must throw fathom::InputError, and returns the
// error so the test can check its file, line, field and message. Anything else thrown, or
// nothing, is a test failure (and an empty error is returned). Header-only.
#include <gtest/gtest.h>

#include <exception>
#include <functional>

#include "base/util/error.h"

namespace fathom::testing {

inline InputError expect_input_error(const std::function<void()>& body) {
  try {
    body();
  } catch (const InputError& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected InputError, got another exception: " << e.what();
    return InputError("", 0, "", "");
  }
  ADD_FAILURE() << "expected InputError, nothing was thrown";
  return InputError("", 0, "", "");
}

}  // namespace fathom::testing
