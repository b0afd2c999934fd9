#pragma once
// SentencePiece, loaded at run time instead of linked.
//
// Why: Debian's libsentencepiece embeds its own protobuf-lite (3.14) and exports those symbols,
// while LibTorch uses the system protobuf (3.21). Linked into one process, whichever library
// comes first in the symbol lookup order hijacks the other's protobuf calls: the process either
// crashes before main() or SentencePiece aborts with "compiled against version 3.14.0".
// Loading libsentencepiece_train.so.0 (and with it libsentencepiece.so.0) with RTLD_DEEPBIND
// makes SentencePiece bind to its own protobuf, and RTLD_LOCAL keeps its symbols from
// interposing on anyone else's. fathom_core must therefore NOT link the SentencePiece libraries.
//
// Only three things are taken from the library by name (the processor constructor, the trainer
// and two global settings); everything else is a virtual call on the processor, which needs no
// symbol. SentencePiece's own logging is switched off for good: under RTLD_DEEPBIND its
// std::cerr is libstdc++'s unconstructed original, not the program's copy, so writing to it
// would crash (errors still come back as util::Status).
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <memory>
#include <string>
#include <unordered_map>

namespace fathom::spm {

// A new, empty processor. Throws std::runtime_error if the library cannot be loaded.
std::unique_ptr<sentencepiece::SentencePieceProcessor> new_processor();

// SentencePieceTrainer::Train with keyword arguments (values passed verbatim, so paths may
// contain spaces). Seeds SentencePiece's random generator with `seed` first.
sentencepiece::util::Status train(const std::unordered_map<std::string, std::string>& args,
                                  unsigned seed);

}  // namespace fathom::spm
