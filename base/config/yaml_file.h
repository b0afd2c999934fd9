#pragma once
// Reading a config or sweep file before it is parsed: refused with the file named when it
// cannot be opened, is a directory, or is far larger than any such file (a corpus or a log
// given by mistake: a 50 MB "config" took 28 s and 4.7 GB of memory in the YAML parser before
// a misleading error). Reads at most one byte past the limit, so /dev/zero ends too.
#include <cstddef>
#include <string>

#include <yaml-cpp/yaml.h>

namespace fathom {

// A run config is a few KB and the largest preset sweep about 4 KB.
inline constexpr std::size_t kMaxYamlFileBytes = 1 << 20;

// The text of `path`; `what` names the kind in errors ("config file", "sweep file").
std::string read_yaml_file(const std::string& path, const std::string& what);

// The one YAML document of a config or sweep file. A second document (after a `---` line)
// would be silently ignored by a plain load, so it is refused at its line (InputError naming
// `origin`). A syntax error is YAML::ParserException, for the caller to locate.
YAML::Node load_one_yaml_document(const std::string& yaml, const std::string& origin);

// What a YAML::ParserException means, for an error message. yaml-cpp stops at 2,000 levels of
// lists or mappings inside each other (DeepRecursion) but says "bad file", as if the file could
// not be opened; this says what happened instead.
std::string yaml_parse_error_text(const YAML::ParserException& e);

}  // namespace fathom
