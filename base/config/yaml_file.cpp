#include "base/config/yaml_file.h"

#include <filesystem>
#include <fstream>

#include "base/util/error.h"

namespace fathom {

std::string read_yaml_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path, 0, "", "is a directory, not a " + what);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open " + what);
  std::string text(kMaxYamlFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxYamlFileBytes)
    throw InputError(path, 0, "",
                     "is larger than " + std::to_string(kMaxYamlFileBytes >> 20) + " MiB; a " +
                         what + " is a few KB -- is this the right file?");
  return text;
}

}  // namespace fathom
