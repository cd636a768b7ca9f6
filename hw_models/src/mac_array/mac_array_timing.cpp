#include "npu/hw/mac_array/mac_array_timing.hpp"

#include <stdexcept>
#include <string>

#include "npu/isa/cost/gemv_mapping.hpp"
#include "npu/isa/cost/systolic_fold.hpp"
#include "npu/isa/cost/ws_preload.hpp"

namespace npu::hw {

int act_latency_cycles(const ActUnitConfig& cfg, const std::string& op_name) {
  auto it = cfg.op_latency_cycles.find(op_name);
  return it != cfg.op_latency_cycles.end() ? it->second : cfg.default_latency_cycles;
}

std::uint64_t epilogue_latency_cycles(const ActUnitConfig& cfg, const isa::Epilogue& e) {
  std::uint64_t lat = 0;
  if (e.has_bias || e.has_scale_shift || e.has_residual || e.has_mul || e.requant.on)
    lat += std::uint64_t(cfg.default_latency_cycles);
  if (e.act != isa::ActOp::None) lat += std::uint64_t(act_latency_cycles(cfg, isa::to_string(e.act)));
  return lat;
}

namespace {
// The output epilogue only. `has_in_scale` costs no cycles: its multiplier sits on the array's
// input edge, pipelined with the operand feed (docs/timing.md); its SRAM read is an operand
// like any other (isa::sram_operands, accounted by run_on_sram_operands).
void add_epilogue(MacTileCost& c, const isa::Epilogue& e, std::uint64_t outputs, const HwConfig& hw) {
  if (e.empty()) return;
  const std::uint64_t lanes = std::uint64_t(hw.act_unit.lanes > 0 ? hw.act_unit.lanes : 1);
  c.epilogue_stream_cycles = (outputs + lanes - 1) / lanes;
  c.epilogue_latency_cycles = epilogue_latency_cycles(hw.act_unit, e);
}
}  // namespace

MacTileCost conv_tile_cost(const isa::ConvParams& p, const HwConfig& hw) {
  if (p.group <= 0 || p.c_in <= 0 || p.c_out <= 0 || p.c_in % p.group != 0 || p.c_out % p.group != 0) {
    throw std::invalid_argument("CONV: c_in (" + std::to_string(p.c_in) + ") and c_out (" + std::to_string(p.c_out) +
                                ") must be positive multiples of group (" + std::to_string(p.group) + ")");
  }
  if (p.h_out() <= 0 || p.w_out() <= 0) throw std::invalid_argument("CONV: output size is not positive");
  // The shared mapping (isa/cost/systolic_fold.hpp): the groups one after another, or a depthwise
  // tile as one GEMM over all its channels (mac_array.depthwise_mapping).
  const isa::ConvGemm g = isa::conv_gemm(p.group, std::int64_t(p.h_out()) * p.w_out(), p.c_in / p.group,
                                         p.c_out / p.group, std::int64_t(p.kh) * p.kw, hw.mac_array);
  MacTileCost c;
  c.groups = p.group;
  c.passes = g.passes;
  c.per_group = systolic_cycles(GemmDims{g.m, g.n, g.k}, hw.mac_array.rows, hw.mac_array.cols, hw.mac_array.dataflow,
                                hw.mac_array.macs_per_pe_per_cycle);
  c.array_cycles = std::uint64_t(c.per_group.cycles) * std::uint64_t(g.passes);
  // A dense conv on an array with Gemmini's mechanisms runs as a weight-block stream
  // (isa/cost/ws_preload.hpp); per_group keeps the SCALE-Sim fold figures for the statistics.
  if (isa::ws_mechanisms(hw.mac_array) && p.group == 1)
    c.array_cycles = std::uint64_t(
        isa::conv_tile_cycles(1, p.h_out(), p.w_out(), p.c_in, p.c_out, p.kh, p.kw, hw.mac_array));
  c.macs = p.macs();
  // acc_out: partial sums leave the array unchanged (docs/timing.md "CONV partial sums").
  if (!p.acc_out) add_epilogue(c, p.epilogue, std::uint64_t(p.c_out) * std::uint64_t(g.m), hw);
  return c;
}

MacTileCost gemm_tile_cost(const isa::GemmParams& p, const HwConfig& hw) {
  GemmDims d{p.m, p.n, p.k};
  MacTileCost c;
  // A GEMV (m <= mac_array.gemv_max_m) may run another array dataflow or on the vector unit
  // (isa/cost/gemv_mapping.hpp); per_group keeps the array figures of the dataflow it ran.
  const isa::GemvChoice g = isa::gemm_mapping(p.m, p.n, p.k, hw.mac_array, hw.act_unit.lanes);
  Dataflow flow = hw.mac_array.dataflow;
  if (g.mapping == GemvMapping::WeightStationary) flow = Dataflow::WeightStationary;
  if (g.mapping == GemvMapping::OutputStationary) flow = Dataflow::OutputStationary;
  c.per_group = systolic_cycles(d, hw.mac_array.rows, hw.mac_array.cols, flow, hw.mac_array.macs_per_pe_per_cycle);
  c.array_cycles = std::uint64_t(g.cycles);
  c.macs = p.macs();
  add_epilogue(c, p.epilogue, std::uint64_t(p.m) * std::uint64_t(p.n), hw);
  return c;
}

}  // namespace npu::hw
