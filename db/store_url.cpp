#include "db/store_url.h"

#include <algorithm>
#include <cctype>

#include "base/util/error.h"
#include "db/store_backends.h"

namespace fathom::db {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

std::string redact_url(const std::string& text) {
  std::string out = text;
  // scheme://user:password@host -- the password is between the first ':' after "://" and the
  // last '@' of the authority (a password may itself contain '@' when not percent-encoded).
  if (const auto scheme_end = out.find("://"); scheme_end != std::string::npos) {
    const size_t start = scheme_end + 3;
    size_t authority_end = out.find_first_of("/?#", start);
    if (authority_end == std::string::npos) authority_end = out.size();
    const size_t at = out.rfind('@', authority_end);
    if (at != std::string::npos && at > start) {
      const size_t colon = out.find(':', start);
      if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
    }
  }
  // ?password=... or key=value connection strings.
  for (size_t pos = 0; (pos = lower(out).find("password=", pos)) != std::string::npos;) {
    const size_t value = pos + 9;
    size_t end = out.find_first_of("& ", value);
    if (end == std::string::npos) end = out.size();
    out.replace(value, end - value, "***");
    pos = value + 3;
  }
  return out;
}

StoreUrl parse_store_url(const std::string& text, const std::string& field) {
  StoreUrl url;
  url.shown = redact_url(text);
  if (text.empty()) throw InputError("", 0, field, "empty run store location");
  const auto scheme_end = text.find("://");
  if (scheme_end == std::string::npos) {
    if (lower(text.substr(0, 7)) == "sqlite:") {  // sqlite:relative.db
      url.scheme = "sqlite";
      url.connect = text.substr(7);
    } else {
      url.scheme = "sqlite";  // a plain path
      url.connect = text;
    }
  } else {
    url.scheme = lower(text.substr(0, scheme_end));
    if (url.scheme == "postgres") url.scheme = "postgresql";
    url.connect = url.scheme == "sqlite" ? text.substr(scheme_end + 3) : text;
  }
  if (url.connect.empty()) throw InputError(url.shown, 0, field, "the URL names no database file");
  if (!has_store_backend(url.scheme))
    throw InputError(url.shown, 0, field,
                     "unknown run store scheme '" + url.scheme + "://'; this build knows " +
                         known_store_schemes());
  return url;
}

}  // namespace fathom::db
