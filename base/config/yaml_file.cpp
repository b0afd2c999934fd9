#include "base/config/yaml_file.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <filesystem>
#include <fstream>
#include <sstream>
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

namespace {

// Ignores every event: the pass below only counts documents.
struct IgnoreEvents : YAML::EventHandler {
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// yaml-cpp 0.7 never consumes a ',' where a document begins (or after its top-level scalar):
// its parser reports empty documents without end, and LoadAll keeps them until memory runs
// out (a fuzzed sweep file took 2 GB in seconds; a config whose first line was ", lr: 1" would
// take the machine). Every document takes at least a byte, so more documents than bytes is
// that loop: refused, at the first line that starts with a ','.
void refuse_endless_documents(const std::string& yaml, const std::string& origin) {
  std::istringstream in(yaml);
  YAML::Parser parser(in);
  IgnoreEvents events;
  size_t documents = 0;
  while (parser.HandleNextDocument(events)) {
    if (++documents <= yaml.size() + 1) continue;
    int line = 0, n = 0;
    std::istringstream lines(yaml);
    for (std::string text; !line && std::getline(lines, text);) {
      ++n;
      const size_t first = text.find_first_not_of(" \t");
      if (first != std::string::npos && text[first] == ',') line = n;
    }
    throw InputError(origin, line, "",
                     "a ',' outside any [list] or {map}, where YAML cannot read it: remove it, or "
                     "put the values in brackets ([12, 18])");
  }
}

}  // namespace

YAML::Node load_one_yaml_document(const std::string& yaml, const std::string& origin) {
  refuse_endless_documents(yaml, origin);
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
