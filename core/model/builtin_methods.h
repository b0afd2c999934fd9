#pragma once
// Registration functions of the built-in methods, one per file (see registry.h).
#include "core/model/registry.h"

namespace fathom {

void register_post_norm(MethodRegistry& registry);            // sublayer_styles: post
void register_pre_norm(MethodRegistry& registry);             // sublayer_styles: pre
void register_peri_norm(MethodRegistry& registry);            // sublayer_styles: peri
void register_mix_norm(MethodRegistry& registry);             // sublayer_styles: mix
void register_ln_scaling(MethodRegistry& registry);           // sublayer_styles: lns
void register_dyt_norm(MethodRegistry& registry);             // sublayer_styles: dyt
void register_xavier_init(MethodRegistry& registry);          // inits: xavier
void register_lipschitz_init(MethodRegistry& registry);       // inits: lipschitz
void register_admin_init(MethodRegistry& registry);           // inits + sublayer_styles: admin
void register_rezero_init(MethodRegistry& registry);          // rezero, rezero_postln
void register_deepnorm_init(MethodRegistry& registry);        // inits + sublayer_styles: deepnorm
void register_ds_init(MethodRegistry& registry);              // inits: ds_init
void register_residual_connection(MethodRegistry& registry);  // connections: residual
void register_depthwise_lstm_connection(MethodRegistry& registry);  // connections: depthwise_lstm

}  // namespace fathom
