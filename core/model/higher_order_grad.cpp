#include "core/model/higher_order_grad.h"

namespace fathom {
namespace {
thread_local bool g_higher_order_grad = false;
}  // namespace

bool higher_order_grad_needed() { return g_higher_order_grad; }

HigherOrderGradScope::HigherOrderGradScope() : outer_(g_higher_order_grad) {
  g_higher_order_grad = true;
}

HigherOrderGradScope::~HigherOrderGradScope() { g_higher_order_grad = outer_; }

}  // namespace fathom
