#include "base/util/error.h"

namespace fathom {
namespace {
std::string format_location(const std::string& file, int line, const std::string& field,
                            const std::string& message) {
  std::string out = file.empty() ? std::string("<input>") : file;
  if (line > 0) out += ":" + std::to_string(line);
  out += ": ";
  if (!field.empty()) out += "'" + field + "': ";
  return out + message;
}
}  // namespace

InputError::InputError(std::string file, int line, std::string field, std::string message)
    : std::runtime_error(format_location(file, line, field, message)),
      file_(std::move(file)),
      line_(line),
      field_(std::move(field)),
      message_(std::move(message)) {}

}  // namespace fathom
