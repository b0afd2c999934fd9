#pragma once
// A subword vocabulary backed by a trained SentencePiece model (BPE or unigram). One model is
// shared by source and target (a joint vocabulary), matching ModelConfig::share_embeddings.
// Training and the on-disk cache live in vocab_cache.h.
#include <memory>
#include <string>
#include <vector>

#include "core/data/vocab.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace fathom {

class SentencePieceVocab : public Vocab {
 public:
  // Loads a model file. Throws InputError naming the file if it cannot be read, or if its
  // special ids differ from Fathom's fixed pad=0 unk=1 bos=2 eos=3. `type` ("bpe", "unigram")
  // and `reused` (whether the model came from the cache, see vocab_cache.h) are only recorded
  // for describe() and reused(): the processor cannot report them without protobuf headers.
  explicit SentencePieceVocab(const std::string& model_path, std::string type = "",
                              bool reused = false);
  ~SentencePieceVocab() override;

  std::vector<std::int64_t> encode(const std::string& text) const override;
  std::string decode(const std::vector<std::int64_t>& ids) const override;
  std::int64_t size() const override;
  std::string piece(std::int64_t id) const override;
  std::string describe() const override;  // e.g. "sentencepiece bpe, 8000 pieces (cached: ...)"

  const std::string& model_path() const { return model_path_; }
  bool reused() const { return reused_; }            // true: loaded from an existing cache entry
  const std::string& type() const { return type_; }  // as given to the constructor

 private:
  std::string model_path_;
  std::string type_;
  bool reused_;
  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
};

}  // namespace fathom
