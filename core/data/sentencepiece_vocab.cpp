#include "core/data/sentencepiece_vocab.h"

#include <stdexcept>
#include <utility>

#include "base/util/error.h"
#include "core/data/sentencepiece_runtime.h"

namespace fathom {

SentencePieceVocab::SentencePieceVocab(const std::string& model_path, std::string type, bool reused)
    : model_path_(model_path), type_(std::move(type)), reused_(reused), sp_(spm::new_processor()) {
  const auto status = sp_->Load(model_path);
  if (!status.ok())
    throw InputError(model_path, 0, "",
                     std::string("cannot load SentencePiece model: ") + status.error_message());
  // The batcher and the model hard-code these ids; a model trained elsewhere may not match.
  if (sp_->pad_id() != kPadId || sp_->unk_id() != kUnkId || sp_->bos_id() != kBosId ||
      sp_->eos_id() != kEosId)
    throw InputError(
        model_path, 0, "",
        "SentencePiece model has special ids pad=" + std::to_string(sp_->pad_id()) +
            " unk=" + std::to_string(sp_->unk_id()) + " bos=" + std::to_string(sp_->bos_id()) +
            " eos=" + std::to_string(sp_->eos_id()) + "; Fathom needs pad=0 unk=1 bos=2 eos=3");
}

SentencePieceVocab::~SentencePieceVocab() = default;

std::vector<std::int64_t> SentencePieceVocab::encode(const std::string& text) const {
  std::vector<int> ids;
  const auto status = sp_->Encode(text, &ids);
  if (!status.ok())
    throw std::runtime_error(std::string("SentencePiece encode failed: ") + status.error_message());
  return std::vector<std::int64_t>(ids.begin(), ids.end());
}

std::string SentencePieceVocab::decode(const std::vector<std::int64_t>& ids) const {
  const std::int64_t n = size();
  std::vector<int> checked;
  for (std::int64_t id : content_ids(ids))
    checked.push_back(static_cast<int>(id >= 0 && id < n ? id : kUnkId));
  std::string text;
  const auto status = sp_->Decode(checked, &text);
  if (!status.ok())
    throw std::runtime_error(std::string("SentencePiece decode failed: ") + status.error_message());
  return text;
}

std::int64_t SentencePieceVocab::size() const { return sp_->GetPieceSize(); }

std::string SentencePieceVocab::piece(std::int64_t id) const {
  if (id < 0 || id >= size()) return sp_->IdToPiece(static_cast<int>(kUnkId));
  return sp_->IdToPiece(static_cast<int>(id));
}

std::string SentencePieceVocab::describe() const {
  return "sentencepiece " + (type_.empty() ? std::string() : type_ + ", ") +
         std::to_string(size()) + " pieces (" + (reused_ ? "cached: " : "trained: ") + model_path_ +
         ")";
}

}  // namespace fathom
