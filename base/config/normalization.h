#pragma once
// What a sub-layer style's normalization layers are, as the analyses that read LayerNorm
// statistics need it (beta decomposes the stream through a LayerNorm, ln-scale reports its
// w/sigma) and as the figures of their stored results name it. A style carries one
// (core/model/registry.h's SublayerStyle); the analyses ask it, never a style's name. Here,
// torch-free, because plot/ (which never links the core) reads those results by the same words.
#include <string>
#include <vector>

namespace fathom {

struct NormalizationTraits {
  // Its norms divide by a per-token sigma (affine once their statistics are known); true also
  // for a style with no norms at all (ReZero), which leaves the analyses nothing to decompose
  // or report.
  bool is_layer_norm = true;
  // Not a LayerNorm: its name ("DyT"), its formula for notes, and the catalogued scalar that is
  // its own scale (ln-scale lists it where w/sigma does not exist): extras of kind `scale_kind`,
  // called `scale_name`.
  std::string name, formula, scale_kind, scale_name;

  // The key of ln-scale's list of this norm's own scales in its result: the name lower-cased.
  std::string scales_key() const;
};

// Every normalization that is no LayerNorm, each one line in normalization.cpp; the style that
// uses one takes its traits from here by name (core/model/dyt_norm.cpp).
const std::vector<NormalizationTraits>& scale_normalizations();
// The one called `name`; std::logic_error when none is.
const NormalizationTraits& scale_normalization(const std::string& name);

}  // namespace fathom
