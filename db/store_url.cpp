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

namespace {

// Each password's [begin, end) in `text`.
std::vector<std::pair<size_t, size_t>> password_spans(const std::string& text) {
  std::vector<std::pair<size_t, size_t>> spans;
  // scheme://user:password@host -- the password is between the first ':' after "://" and the
  // last '@' of the whole text: a password that is not percent-encoded may hold '@', '/', '?'
  // and '#' ("u:ab/Secret1@host", "u:p@ss@Secret6@host"), which libpq then reads as the end of
  // the user part or of the host. Taking the last '@' hides such a password whole; when an '@'
  // only appears later (a query value), more than the password is hidden, never less.
  if (const auto scheme_end = text.find("://"); scheme_end != std::string::npos) {
    const size_t start = scheme_end + 3;
    const size_t at = text.rfind('@');
    if (at != std::string::npos && at > start) {
      const size_t colon = text.find(':', start);
      if (colon != std::string::npos && colon < at) spans.emplace_back(colon + 1, at);
    }
  }
  // ?password=... or key=value connection strings.
  const std::string lowered = lower(text);
  for (size_t pos = 0; (pos = lowered.find("password=", pos)) != std::string::npos;) {
    const size_t value = pos + 9;
    size_t end = text.find_first_of("& ", value);
    if (end == std::string::npos) end = text.size();
    spans.emplace_back(value, end);
    pos = end;
  }
  return spans;
}

}  // namespace

std::string redact_url(const std::string& text) {
  std::string out = text;
  auto spans = password_spans(text);
  // From the last: replacing one span must not move the ones before it.
  std::sort(spans.begin(), spans.end());
  for (auto it = spans.rbegin(); it != spans.rend(); ++it)
    out.replace(it->first, it->second - it->first, "***");
  return out;
}

std::vector<std::string> url_passwords(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& [begin, end] : password_spans(text))
    if (end > begin) out.push_back(text.substr(begin, end - begin));
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
