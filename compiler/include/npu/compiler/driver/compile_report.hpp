// The compile report: per layer and in total, MACs, compulsory DDR bytes, the DDR bytes the
// program actually moves, tile shapes, loop order and a compute/memory bound hint.
// Column reference: docs/compiler.md "Compile report".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/compiler/backend/codegen/codegen.hpp"
#include "npu/compiler/backend/lowering/lowering.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::compiler {

struct LayerReport {
  std::string layer;                ///< instruction layer= (anchor node), or the host node's name
  std::string op;                   ///< ONNX op of the anchor
  std::string kind;                 ///< conv, gemm, act, eltwise, pool, resize, copy; "host"
  std::string placement = "npu";    ///< "npu" or "host"
  std::vector<std::string> covers;  ///< original nodes, anchor first
  std::uint64_t macs = 0;
  /// Compulsory bytes: every distinct activation input (incl. residual), the weights and
  /// params read once, the output written once.
  std::uint64_t compulsory_read_bytes = 0;
  std::uint64_t compulsory_write_bytes = 0;
  /// Planned bytes: the sum of the layer's LOAD (read) and STORE (write) descriptors.
  std::uint64_t planned_read_bytes = 0;
  std::uint64_t planned_write_bytes = 0;
  std::string tile;
  std::string loop_order;
  int steps = 0;
  std::uint64_t sram_bytes = 0;
  /// Bound hint. compute_ns: MAC array cycles from SCALE-Sim's weight-stationary fold model,
  /// folds x (2R + C + T - 2) with folds = ceil(red/R) x ceil(cout/C) per group, red =
  /// cin/group*kh*kw, T = output pixels (GEMM: M), divided by macs_per_pe_per_cycle; vector
  /// layers elements / lanes. memory_ns: the DMA time of its LOADs and
  /// STOREs as the simulated DMA + DDR stream them (isa::dma_descriptor_ns each, summed: the
  /// achievable stream rate, not the peak; docs/timing.md "DMA time estimate").
  double compute_ns = 0;
  double memory_ns = 0;
  std::string bound;  ///< "compute" or "memory" (whichever time is larger); "" for host
  std::string note;   ///< host placement reason
  /// Depth-first (docs/depth_first.md): stack id (-1: the layer runs on its own), the most
  /// output rows it computes per band, the overlap mode ("recompute" or "cache"; "" outside a stack) and
  /// the MACs executed beyond the layer's own (recomputed halo rows; not in `macs`).
  int stack = -1;
  int band_rows = 0;
  std::string overlap;
  std::uint64_t recompute_macs = 0;
  std::string weights;  ///< the stack's weights: "resident" or "streamed" ("" outside a stack)
  std::uint64_t compulsory_bytes() const { return compulsory_read_bytes + compulsory_write_bytes; }
  std::uint64_t planned_bytes() const { return planned_read_bytes + planned_write_bytes; }
};

struct CompileReport {
  std::string model;
  std::string strategy;
  std::string hw;  ///< hardware label, config_label(): the config file stem (npu.name for a config from text)
  std::vector<LayerReport> layers;  ///< NPU layers in program order, then host nodes
  /// layer = "TOTAL": MACs and compute_ns over every row (host rows included: the network's
  /// whole work), bytes and memory_ns over NPU rows only (host DDR traffic is analytic, in
  /// the host rows' notes); bound "host" when the host rows' time dominates.
  LayerReport total() const;
};

/// Builds the report. Planned bytes are summed from `program`'s LOAD/STORE instructions
/// by their layer= name, so they are exactly what the program moves.
CompileReport build_report(const LoweredGraph& lowered, const CodegenResult& codegen, const HwConfig& hw,
                           const std::string& model, const std::string& strategy);

/// Sets every NPU row's planned_read_bytes, planned_write_bytes (the sum of `program`'s LOAD
/// and STORE descriptors by layer=), memory_ns and bound: build_report's last step, and again
/// after a rewrite of the program's DMAs (SRAM residency). Host rows keep theirs.
void set_planned_bytes(CompileReport& report, const isa::Program& program, const HwConfig& hw);

/// CSV: a header line, one row per layer, then a TOTAL row. Columns: layer, op, kind,
/// placement, covers (';'-separated), macs, compulsory_read_bytes, compulsory_write_bytes,
/// compulsory_bytes, planned_read_bytes, planned_write_bytes, planned_bytes,
/// planned_over_compulsory, tile, loop_order, steps, sram_bytes, compute_ns, memory_ns,
/// bound, note, stack, band_rows, overlap, recompute_macs, weights (the last five empty / 0
/// for a layer outside a depth-first stack).
std::string report_csv(const CompileReport& report);

/// JSON: {"model", "strategy", "hw", "layers": [{...same keys as the CSV...}], "total": {...}}.
std::string report_json(const CompileReport& report);

/// Human table for the terminal (per-layer lines and the total).
std::string report_text(const CompileReport& report);

}  // namespace npu::compiler
