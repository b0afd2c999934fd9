#include "base/config/yaml_file.h"

#include <yaml-cpp/depthguard.h>

#include <filesystem>
#include <fstream>
#include <vector>

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

YAML::Node load_one_yaml_document(const std::string& yaml, const std::string& origin) {
  std::vector<YAML::Node> given;
  for (const auto& d : YAML::LoadAll(yaml))
    if (!d.IsNull()) given.push_back(d);
  if (given.size() > 1) {
    // Its `---` line: the document's first node is on the line after (or on the same line).
    const int line = given[1].Mark().line + 1;
    throw InputError(origin, line, "",
                     "a second YAML document starts here (after a '---' line); a file holds one "
                     "config: remove the '---' and merge the keys, or split the file");
  }
  return given.empty() ? YAML::Node() : given.front();
}

std::string yaml_parse_error_text(const YAML::ParserException& e) {
  if (const auto* deep = dynamic_cast<const YAML::DeepRecursion*>(&e))
    return "lists or mappings nested at least " + std::to_string(deep->depth()) +
           " levels deep, more than a YAML file here may hold (no config or sweep comes close)";
  return e.msg;
}

}  // namespace fathom
