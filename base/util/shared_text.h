#pragma once
// An immutable string that its copies share. A run's config (JSON and YAML, ~4.5 KB a run) is
// read from the store once and then copied into every view's list of runs: by value it was the
// desktop app's largest cost at 100,000 runs (~10 copies of every config, 5 GB). A copy here is
// one reference count; the text is never changed in place, so threads may share it freely.
// Reads as a `const std::string&` wherever one is taken.
#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace fathom {

class SharedText {
 public:
  SharedText() = default;
  SharedText(std::string text)  // NOLINT(google-explicit-constructor): a string's stand-in
      : text_(text.empty() ? nullptr : std::make_shared<const std::string>(std::move(text))) {}
  SharedText(const char* text) : SharedText(std::string(text)) {}  // NOLINT

  const std::string& str() const { return text_ ? *text_ : none(); }
  operator const std::string&() const { return str(); }  // NOLINT
  operator std::string_view() const { return str(); }    // NOLINT

  bool empty() const { return !text_; }
  std::size_t size() const { return str().size(); }
  const char* c_str() const { return str().c_str(); }
  char back() const { return str().back(); }
  // Its characters, for what reads a container (nlohmann::json::parse).
  std::string::const_iterator begin() const { return str().begin(); }
  std::string::const_iterator end() const { return str().end(); }
  std::size_t find(std::string_view what, std::size_t from = 0) const {
    return str().find(what, from);
  }
  // Whether the two are copies of one text (then equal without reading it).
  bool shares(const SharedText& other) const { return text_ == other.text_; }

  friend bool operator==(const SharedText& a, const SharedText& b) {
    return a.shares(b) || a.str() == b.str();
  }
  // Exact matches for a string's and a literal's, so neither converts (ambiguously) first.
  friend bool operator==(const SharedText& a, const std::string& b) { return a.str() == b; }
  friend bool operator==(const std::string& a, const SharedText& b) { return a == b.str(); }
  friend bool operator==(const SharedText& a, const char* b) { return a.str() == b; }
  friend bool operator==(const char* a, const SharedText& b) { return a == b.str(); }
  friend bool operator!=(const SharedText& a, const SharedText& b) { return !(a == b); }
  friend bool operator!=(const SharedText& a, const std::string& b) { return !(a == b); }
  friend bool operator!=(const std::string& a, const SharedText& b) { return !(a == b); }
  friend bool operator!=(const SharedText& a, const char* b) { return !(a == b); }
  friend bool operator!=(const char* a, const SharedText& b) { return !(a == b); }
  friend std::ostream& operator<<(std::ostream& out, const SharedText& t) { return out << t.str(); }

 private:
  static const std::string& none() {
    static const std::string empty;
    return empty;
  }
  std::shared_ptr<const std::string> text_;
};

}  // namespace fathom
