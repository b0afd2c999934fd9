#include "core/data/word_vocab.h"

#include <stdexcept>

namespace fathom {
namespace {
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
}  // namespace

WordVocab::WordVocab(std::vector<std::string> symbols) : pieces_{"<pad>", "<unk>", "<s>", "</s>"} {
  for (auto& s : symbols) {
    if (s.empty()) throw std::invalid_argument("WordVocab: empty symbol");
    for (char c : s)
      if (is_space(c)) throw std::invalid_argument("WordVocab: symbol with whitespace: " + s);
    pieces_.push_back(std::move(s));
  }
  for (std::size_t i = 0; i < pieces_.size(); ++i)
    if (!ids_.emplace(pieces_[i], static_cast<std::int64_t>(i)).second)
      throw std::invalid_argument("WordVocab: duplicate symbol: " + pieces_[i]);
}

std::vector<std::int64_t> WordVocab::encode(const std::string& text) const {
  std::vector<std::int64_t> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    std::size_t j = i;
    while (j < text.size() && !is_space(text[j])) ++j;
    if (j > i) {
      auto it = ids_.find(text.substr(i, j - i));
      out.push_back(it == ids_.end() ? kUnkId : it->second);
    }
    i = j;
  }
  return out;
}

std::string WordVocab::decode(const std::vector<std::int64_t>& ids) const {
  std::string out;
  for (std::int64_t id : content_ids(ids)) {
    if (!out.empty()) out += ' ';
    out += piece(id);
  }
  return out;
}

std::string WordVocab::piece(std::int64_t id) const {
  if (id < 0 || id >= size()) return pieces_[kUnkId];
  return pieces_[static_cast<std::size_t>(id)];
}

std::string WordVocab::describe() const {
  return "word vocabulary, " + std::to_string(size()) + " symbols (4 special)";
}

}  // namespace fathom
