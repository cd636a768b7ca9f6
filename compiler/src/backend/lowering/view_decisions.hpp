// `--explain` lines for view composition (lowering_table.hpp composed_views): each layout node
// computed by no layer, and the layers that read its input through it. Internal to the compiler.
#pragma once

#include <vector>

#include "npu/compiler/backend/lowering/lowering.hpp"
#include "npu/compiler/ir/decision.hpp"

namespace npu::compiler::lowering {

/// One Applied decision of pass "compose-views" per node in `lowered.composed`, naming the
/// layers whose `covers` hold it (they read its input through its index map). Its `nodes` stay
/// empty (a lowering fact, not a rewrite the graph view groups by). Deterministic: in
/// `lowered.composed`'s order.
std::vector<Decision> view_decisions(const LoweredGraph& lowered);

}  // namespace npu::compiler::lowering
