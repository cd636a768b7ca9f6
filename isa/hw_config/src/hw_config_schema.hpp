// The names the config file's schema allows where they come from a list rather than a
// fixed set of keys (private to npu_hw_config: the schema, the act_unit reader and the writer).
#pragma once

#include <string>
#include <vector>

namespace npu::detail {

/// each once. A name shared by two instructions is one key for both: `max` is POOL max and
/// ELTWISE max (a compare-select either way), `pow` is ACT pow and ELTWISE pow. The order is
/// the historical one, then the ops added later (hw_config_to_yaml prints in this order).
/// The names are those of npu::isa's ActOp, EltwiseOp and PoolOp (isa::to_string); written
/// here because the config library sits below the ISA. tests/isa/test_act_latency_keys.cpp checks
/// that every vector-unit op name is one of them.
std::vector<std::string> act_latency_keys();

}  // namespace npu::detail
