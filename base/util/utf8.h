#pragma once
// Strict UTF-8 validation, as Python decodes it (and so sacreBLEU), for corpus and BLEU input:
// invalid bytes would otherwise reach the subword model as garbage pieces and surface much
// later as unreadable BLEU output.
#include <cstddef>
#include <string_view>

namespace fathom {

// Byte offset of the first invalid UTF-8 sequence in `text`, or std::string_view::npos when
// the text is valid. Rejects overlong encodings, UTF-16 surrogates and code points > U+10FFFF.
std::size_t find_invalid_utf8(std::string_view text);

}  // namespace fathom
