#include "core/data/sentencepiece_runtime.h"

#include <dlfcn.h>

#include <mutex>
#include <new>
#include <stdexcept>

namespace sentencepiece::util {
// The status type's few out-of-line members, defined here because the library is not linked.
// The layout mirrors SentencePiece's src/common.cc, so statuses it returns are freed correctly.
struct Status::Rep {
  StatusCode code;
  std::string error_message;
};
Status::~Status() = default;
const char* Status::error_message() const { return rep_ ? rep_->error_message.c_str() : ""; }
StatusCode Status::code() const { return rep_ ? rep_->code : StatusCode::kOk; }
std::string Status::ToString() const {
  if (!rep_) return "OK";
  return "SentencePiece error " + std::to_string(static_cast<int>(rep_->code)) + ": " +
         rep_->error_message;
}
}  // namespace sentencepiece::util

namespace fathom::spm {
namespace {

// Itanium-ABI names of the non-virtual entry points used (stable across 0.1.9x releases).
constexpr const char* kProcessorCtor = "_ZN13sentencepiece22SentencePieceProcessorC1Ev";
constexpr const char* kTrainWithMap =
    "_ZN13sentencepiece20SentencePieceTrainer5TrainERKSt13unordered_mapINSt7__cxx1112basic_"
    "stringIcSt11char_traitsIcESaIcEEES7_St4hashIS7_ESt8equal_toIS7_ESaISt4pairIKS7_S7_EEEPNS_"
    "16SentenceIteratorEPS7_";
constexpr const char* kSetSeed = "_ZN13sentencepiece22SetRandomGeneratorSeedEj";
constexpr const char* kSetMinLogLevel = "_ZN13sentencepiece7logging14SetMinLogLevelEi";

struct Library {
  void* handle = nullptr;
  void (*construct)(void*) = nullptr;  // a constructor takes `this` as its only argument
  sentencepiece::util::Status (*train)(const std::unordered_map<std::string, std::string>&,
                                       sentencepiece::SentenceIterator*, std::string*) = nullptr;
  void (*set_seed)(unsigned) = nullptr;
};

void* symbol(void* handle, const char* name) {
  void* p = dlsym(handle, name);
  if (!p) throw std::runtime_error(std::string("SentencePiece library lacks symbol ") + name);
  return p;
}

Library open_library() {
  const int flags = RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND;
  std::string errors;
  Library lib;
  // The soname first (runtime package), then the unversioned name (development package).
  for (const char* name : {"libsentencepiece_train.so.0", "libsentencepiece_train.so"}) {
    lib.handle = dlopen(name, flags);
    if (lib.handle) break;
    errors += std::string("\n  ") + dlerror();
  }
  if (!lib.handle)
    throw std::runtime_error(
        "cannot load the SentencePiece library (libsentencepiece-dev / "
        "libsentencepiece0):" +
        errors);
  lib.construct = reinterpret_cast<void (*)(void*)>(symbol(lib.handle, kProcessorCtor));
  lib.train = reinterpret_cast<decltype(lib.train)>(symbol(lib.handle, kTrainWithMap));
  lib.set_seed = reinterpret_cast<void (*)(unsigned)>(symbol(lib.handle, kSetSeed));
  // Above LOG_FATAL (3): no SentencePiece message ever reaches its (dead) std::cerr.
  reinterpret_cast<void (*)(int)>(symbol(lib.handle, kSetMinLogLevel))(100);
  return lib;
}

const Library& library() {
  static const Library lib = open_library();  // thread-safe one-time load
  return lib;
}

}  // namespace

std::unique_ptr<sentencepiece::SentencePieceProcessor> new_processor() {
  const Library& lib = library();
  // The library constructs the object in our storage; from then on only virtual members are
  // called, and the virtual destructor frees it with the same global operator delete.
  void* storage = ::operator new(sizeof(sentencepiece::SentencePieceProcessor));
  lib.construct(storage);
  return std::unique_ptr<sentencepiece::SentencePieceProcessor>(
      static_cast<sentencepiece::SentencePieceProcessor*>(storage));
}

sentencepiece::util::Status train(const std::unordered_map<std::string, std::string>& args,
                                  unsigned seed) {
  const Library& lib = library();
  // Training mutates SentencePiece globals (seed, flags); one at a time per process.
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  lib.set_seed(seed);
  return lib.train(args, nullptr, nullptr);
}

}  // namespace fathom::spm
