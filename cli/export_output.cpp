#include "cli/export_output.h"

#include <fstream>
#include <iostream>

#include "base/util/error.h"

namespace fathom::cli {

std::string with_notes(std::string text, const std::vector<std::string>& notes,
                       const std::string& format) {
  if (format == "md") text += "\n";
  for (const auto& note : notes) {
    if (format == "md") text += "*" + note + "*  \n";
    if (format == "tex") text += "% " + note + "\n";
  }
  return text;
}

void write_export(const std::string& text, const std::string& out, const std::string& detail) {
  if (out.empty()) {
    std::cout << text;
    return;
  }
  std::ofstream file(out, std::ios::binary);
  file << text;
  if (!file.flush()) throw InputError(out, 0, "--out", "cannot write the file");
  std::cerr << "wrote " << out << (detail.empty() ? "" : " " + detail) << "\n";
}

}  // namespace fathom::cli
