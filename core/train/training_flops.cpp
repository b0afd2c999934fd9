#include "core/train/training_flops.h"

namespace fathom {

FlopRates forward_flop_rates(TransformerImpl& model) {
  const bool decoder_only = is_decoder_only(model.config());
  FlopRates r;
  for (const LinearEntry& l : model.catalog().linears) {
    const double per_token = 2.0 * static_cast<double>(l.linear->weight.numel()) * l.applications;
    // The cross-attention's keys and values are computed once per source token.
    const bool reads_source = !decoder_only && (l.owner.stack == Stack::Encoder ||
                                                (l.role == LinearRole::AttentionKeyValue &&
                                                 l.owner.kind == SublayerKind::EncoderAttention));
    (reads_source ? r.per_source : r.per_target) += per_token;
    if (l.role != LinearRole::AttentionOutput) continue;
    // QK^T and PV over every head: 2 d_attn each per query-key pair; d_attn is what the
    // output projection reads.
    const double per_pair = 4.0 * static_cast<double>(l.linear->weight.size(1));
    if (decoder_only ||
        (l.owner.stack == Stack::Decoder && l.owner.kind != SublayerKind::EncoderAttention))
      r.target_pairs += per_pair;
    else if (l.owner.stack == Stack::Encoder)
      r.source_pairs += per_pair;
    else
      r.cross_pairs += per_pair;
  }
  for (const ProductEntry& p : model.catalog().products)
    (!decoder_only && p.owner.stack == Stack::Encoder ? r.per_source : r.per_target) +=
        p.flops_per_token;
  r.per_target += 2.0 * model.config().d_model * static_cast<double>(model.vocab_size());
  return r;
}

double training_flops(const FlopRates& rates, const Batch& batch) {
  const double forward = rates.per_source * static_cast<double>(batch.src_tokens) +
                         rates.per_target * static_cast<double>(batch.tgt_tokens) +
                         rates.source_pairs * batch.src_sq + rates.target_pairs * batch.tgt_sq +
                         rates.cross_pairs * batch.src_tgt;
  return 3.0 * forward;
}

}  // namespace fathom
