#include "core/data/corpus_catalog.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>

#include "base/config/yaml_file.h"
#include "base/util/error.h"
#include "core/data/corpus_catalogs_builtin.h"

namespace fathom {
namespace {

struct CatalogReader {
  std::string origin;

  [[noreturn]] void fail(const YAML::Node& node, const std::string& key,
                         const std::string& message) const {
    throw InputError(origin, node.IsDefined() ? node.Mark().line + 1 : 0, key, message);
  }

  void only_keys(const YAML::Node& map, const std::string& where,
                 const std::set<std::string>& allowed) const {
    if (!map.IsMap()) fail(map, where, "expected a mapping");
    for (const auto& entry : map) {
      const std::string key = entry.first.as<std::string>();
      if (!allowed.count(key))
        fail(entry.first, where.empty() ? key : where + "." + key, "unknown key");
    }
  }

  std::string text(const YAML::Node& map, const std::string& key, const std::string& where,
                   bool required) const {
    const YAML::Node node = map[key];
    const std::string field = where.empty() ? key : where + "." + key;
    if (!node) {
      if (required) fail(map, field, "required");
      return "";
    }
    if (!node.IsScalar()) fail(node, field, "expected text");
    return node.Scalar();
  }

  std::string plain_name(const YAML::Node& map, const std::string& key,
                         const std::string& where) const {
    const std::string name = text(map, key, where, true);
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
      fail(map[key], where + "." + key, "'" + name + "' must be a plain file name");
    return name;
  }

  // A recorded hash as `digits` lowercase hex digits; "" when the key is absent.
  std::string hex_digest(const YAML::Node& node, const std::string& key, const std::string& where,
                         size_t digits) const {
    const std::string hash = text(node, key, where, false);
    const bool hex = std::all_of(hash.begin(), hash.end(), [](char c) {
      return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    });
    if (!hash.empty() && (hash.size() != digits || !hex))
      fail(node[key], where + "." + key,
           "expected " + std::to_string(digits) + " lowercase hex digits");
    return hash;
  }

  CorpusDownload download(const YAML::Node& node, const std::string& where) const {
    only_keys(node, where, {"file", "url", "bytes", "sha256", "md5"});
    CorpusDownload d;
    d.file = plain_name(node, "file", where);
    d.url = text(node, "url", where, true);
    if (d.url.rfind("https://", 0) != 0 && d.url.rfind("http://", 0) != 0)
      fail(node["url"], where + ".url", "'" + d.url + "' is not an http(s) address");
    d.sha256 = hex_digest(node, "sha256", where, 64);
    d.md5 = hex_digest(node, "md5", where, 32);
    if (node["bytes"]) {
      try {
        d.bytes = node["bytes"].as<uint64_t>();
      } catch (const YAML::Exception&) {
        fail(node["bytes"], where + ".bytes", "expected a byte count");
      }
    }
    return d;
  }

  CorpusPiece piece(const YAML::Node& node, const std::string& where,
                    const std::set<std::string>& downloads) const {
    only_keys(node, where, {"download", "member", "sgml"});
    CorpusPiece p;
    p.download = text(node, "download", where, true);
    if (!downloads.count(p.download))
      fail(node["download"], where + ".download",
           "'" + p.download + "' is no download of this corpus");
    p.member = text(node, "member", where, false);
    if (node["sgml"]) {
      try {
        p.sgml = node["sgml"].as<bool>();
      } catch (const YAML::Exception&) {
        fail(node["sgml"], where + ".sgml", "expected true or false");
      }
    }
    return p;
  }
};

}  // namespace

CorpusCatalog parse_corpus_catalog(const std::string& yaml, const std::string& origin) {
  CatalogReader r{origin};
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::ParserException& e) {
    throw InputError(origin, e.mark.line + 1, "", yaml_parse_error_text(e));
  }
  r.only_keys(root, "", {"name", "about", "cite", "downloads", "outputs"});
  CorpusCatalog c;
  c.origin = origin;
  c.name = r.text(root, "name", "", true);
  c.about = r.text(root, "about", "", false);
  c.cite = r.text(root, "cite", "", false);
  const YAML::Node downloads = root["downloads"];
  if (!downloads || !downloads.IsSequence() || downloads.size() == 0)
    r.fail(downloads ? downloads : root, "downloads", "expected a list of files to download");
  std::set<std::string> names;
  for (size_t i = 0; i < downloads.size(); ++i) {
    const std::string where = "downloads[" + std::to_string(i) + "]";
    c.downloads.push_back(r.download(downloads[i], where));
    if (!names.insert(c.downloads.back().file).second)
      r.fail(downloads[i]["file"], where + ".file",
             "'" + c.downloads.back().file + "' is listed twice");
  }
  const YAML::Node outputs = root["outputs"];
  if (!outputs) return c;
  if (!outputs.IsSequence()) r.fail(outputs, "outputs", "expected a list of files to make");
  std::set<std::string> made;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string where = "outputs[" + std::to_string(i) + "]";
    r.only_keys(outputs[i], where, {"file", "from"});
    CorpusOutput out;
    out.file = r.plain_name(outputs[i], "file", where);
    if (!made.insert(out.file).second)
      r.fail(outputs[i]["file"], where + ".file", "'" + out.file + "' is made twice");
    const YAML::Node from = outputs[i]["from"];
    if (!from || !from.IsSequence() || from.size() == 0)
      r.fail(from ? from : outputs[i], where + ".from", "expected a list of pieces");
    for (size_t k = 0; k < from.size(); ++k)
      out.from.push_back(r.piece(from[k], where + ".from[" + std::to_string(k) + "]", names));
    c.outputs.push_back(std::move(out));
  }
  return c;
}

std::vector<std::string> builtin_corpus_names() {
  std::vector<std::string> names;
  for (const auto& [name, text] : builtin_corpus_catalogs()) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

CorpusCatalog builtin_corpus(const std::string& name) {
  for (const auto& [file_name, text] : builtin_corpus_catalogs())
    if (file_name == name) {
      CorpusCatalog c = parse_corpus_catalog(text, "configs/corpora/" + name + ".yaml");
      if (c.name != name)
        throw InputError(c.origin, 0, "name", "'" + c.name + "' must be the file's name, " + name);
      return c;
    }
  std::string known;
  for (const auto& n : builtin_corpus_names()) known += (known.empty() ? "" : ", ") + n;
  throw InputError("fathom data get", 0, name, "no such corpus; known: " + known);
}

}  // namespace fathom
