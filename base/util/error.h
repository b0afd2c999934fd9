#pragma once
// Errors in user input (configs, corpora, databases, flags). Each names where the problem is
// -- file, line and field -- so the user can fix it without reading Fathom's source.
#include <stdexcept>
#include <string>

namespace fathom {

class InputError : public std::runtime_error {
 public:
  // line <= 0 means "no line" (e.g. a whole file is unreadable); field may be empty.
  InputError(std::string file, int line, std::string field, std::string message);

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  int line_;
  std::string field_;
  std::string message_;
};

}  // namespace fathom
