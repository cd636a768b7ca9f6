// Internal interface of the depth-first scheduler: the plan of one stack (planner,
// stack_planner.hpp) and its emission as instructions (stack_emitter.cpp). Public summary:
// npu/compiler/backend/schedule/depth_first.hpp. Reference: docs/depth_first.md.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "npu/compiler/backend/codegen/codegen.hpp"
#include "npu/compiler/backend/schedule/depth_first.hpp"
#include "npu/compiler/backend/lowering/lowering.hpp"
#include "npu/compiler/backend/tiling/tiling.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::compiler::depth_first {

/// An SRAM buffer of the stack: `slots` copies (2: band b uses slot b % 2, so the DMA of one
/// band overlaps the compute of the next).
struct Buffer {
  std::uint64_t bytes = 0;
  int slots = 1;
  std::uint32_t addr[2]{0, 0};
  std::uint32_t at(int band) const { return addr[band % slots]; }
};

/// A tensor the stack produces: per band the rows it computes.
struct StackTensor {
  std::string name;
  int producer = 0;        ///< index into StackPlan::layers
  int c = 0, h = 0, w = 0; ///< one image, CHW
  bool stored = false;     ///< written to DDR (outside reader, graph output, last layer)
  std::vector<RowRange> rows;      ///< per band: rows its tile holds (what its readers need)
  std::vector<RowRange> computed;  ///< per band: rows its producer computes (== rows under Recompute)
  int buffer = -1;
  int scratch = -1;        ///< Cache: where the computed rows land before they are MOVEd into the tile
  /// Rows of band b's tile copied from band b-1's tile (Cache), 0 if none.
  int cached_rows(int b) const {
    const RowRange r = rows[std::size_t(b)], c = computed[std::size_t(b)];
    if (r.empty()) return 0;
    return c.empty() ? r.rows() : c.lo - r.lo;
  }
};

/// One channel block of a gathered operand: a Concat piece, or alone a row sub-range of a
/// tile the stack computes with more rows (a residual block's skip tensor, computed with the
/// next conv's halo rows).
struct Piece {
  std::string tensor;      ///< graph tensor name
  int produced = -1;       ///< StackTensor index: copied by MOVE from its tile; -1: LOADed from DDR
  int input = -1;          ///< InputTile index: copied by MOVE from that shared tile (produced == -1)
  int c_offset = 0, c = 0; ///< its channels within the operand
};

/// An activation operand of a stack layer (its data input or its residual).
struct Operand {
  std::string tensor;      ///< graph tensor name ("" none)
  int produced = -1;       ///< StackTensor index when the stack produces it, else -1
  int input = -1;          ///< InputTile index when it reads a shared DDR tile (produced == -1)
  /// Read in place: from the producer's tile, or (input >= 0) from the shared input tile,
  /// which holds exactly its rows (else LOADed from DDR, or gathered)
  bool on_chip = false;
  int c = 0, w = 0, h = 0; ///< its CHW shape
  std::vector<RowRange> rows;  ///< per band: rows the layer reads
  int buffer = -1;         ///< LOAD buffer when !on_chip (the gather buffer when gathered)
  /// Non-empty: the operand is assembled per band in `buffer` as a packed [C, rows, W] tile,
  /// each piece at its channel offset: MOVEs of rows from the producers' tiles (SRAM to
  /// SRAM) and LOADs of pieces the stack does not produce.
  std::vector<Piece> pieces;
  bool gathered() const { return !pieces.empty(); }
};

/// A DDR tensor that two or more operands (or Concat pieces) of the stack read: C3's cv1 and
/// cv2 reading the block's input, two readers of one Concat. One LOAD per band brings the
/// union of the readers' rows into this tile (double-buffered like every LOAD); a reader of
/// exactly those rows reads it in place, the others get their rows by MOVE (a one-piece
/// gather), so the tensor crosses the DDR bus once per band instead of once per reader.
struct InputTile {
  std::string tensor;      ///< graph tensor name
  int c = 0, h = 0, w = 0; ///< its CHW shape
  std::vector<RowRange> rows;  ///< per band: the union of what its readers read
  int readers = 0;         ///< operands and pieces reading it
  int buffer = -1;
};

struct StackLayer {
  std::size_t index = 0;   ///< into LoweredGraph::layers
  const LayerSpec* spec = nullptr;
  /// Conv/Pool: spec->geom. Eltwise: a 1x1 identity geometry over its [C, H, W] (inputs and
  /// output rows coincide); its second input is the `res` operand.
  ConvGeom geom;
  Operand in, res;
  int out = -1;            ///< StackTensor index of its output
  std::uint32_t w_addr = 0, bias_addr = 0;
  std::uint32_t requant_addr = 0;  ///< int8: the layer's requantisation table (LayerSpec::requant)
  std::uint64_t requant_bytes = 0;  ///< its size (the LayerSpec::requant tensor's bytes)
  /// Output channels per CONV (weight_group_channels; set by the planner's costing): c_out
  /// unless the stack streams the weights of a large dense Conv.
  int group_channels = 0;
};

/// Output-channel groups of a stack layer's CONV: ceil(c_out / group_channels), 1 when it is
/// not grouped (group_channels 0 or c_out).
inline int weight_groups(const StackLayer& sl) {
  const int c = sl.spec ? sl.spec->geom.c_out : 0;
  return sl.group_channels > 0 && sl.group_channels < c ? (c + sl.group_channels - 1) / sl.group_channels : 1;
}

/// Streamed weights (StackSummary::weights_streamed) come in output-channel groups: each
/// group's weights (and bias, and int8 requantisation pairs) are LOADed and its CONV runs in
/// turn, so the array starts on the first group while the others arrive, as a layer's own plan
/// tiles its weights by output channel. Output channels per group for a dense Conv (group 1)
/// whose weights exceed `group_bytes` (TilingOptions::weight_group_bytes, 256 KiB):
/// ceil(c_out / ceil(bytes / group_bytes)) with at most kMaxWeightGroups groups, rounded up to
/// a multiple of the larger array side (so the folds, hence the array cycles, add up to the
/// whole layer's: isa/cost/systolic_fold.hpp); c_out (one group) otherwise. `weight_bytes`: the
/// layer's weight bytes.
inline constexpr int kMaxWeightGroups = 8;
int weight_group_channels(const LayerSpec& L, std::uint64_t weight_bytes, std::uint64_t group_bytes,
                          const MacArrayConfig& array);

/// True for a nearest upsampling layer (LayerKind::Resize computed by MOVE) in a stack.
bool is_upsample(const LayerSpec& L);

/// Rows of the layer's data input that output rows `out` read: the receptive field of a
/// Conv/Pool (input_rows), the rows themselves for an element-wise layer, and
/// [out.lo / f, (out.hi - 1) / f + 1) for nearest upsampling by f (out[y] = in[y / f]).
RowRange layer_input_rows(const StackLayer& sl, RowRange out);

struct StackPlan {
  StackSummary summary;
  std::vector<StackLayer> layers;
  std::vector<StackTensor> tensors;
  std::vector<InputTile> inputs;
  std::vector<Buffer> buffers;
};

/// What the planner needs to know about where tensors live in DDR (from lowering).
struct PlanInputs {
  const LoweredGraph& lg;
  const HwConfig& hw;
  const TilingOptions& opt;  ///< act_bytes, align_bytes, burst_bytes, array and clocks filled
  std::uint64_t sram_bytes;
};

/// Groups the layers marked by fuse-layers (LayerSpec::depth_first) into stacks of two or more
/// layers, each with its band height and SRAM layout. Deterministic. Layers in no stack are
/// generated one by one as before. A stack is kept only if its estimated DDR bytes and time
/// are both no higher than its layers' one by one; when no prefix of a run of stackable
/// layers passes, the longest prefix's best plan is appended to `declined` (if given) and
/// the layers keep their per-layer plans.
std::vector<StackPlan> plan_stacks(const PlanInputs& in, std::vector<StackSummary>* declined = nullptr);

/// MACs of one CONV band of `out_rows` full-width output rows (0 for POOL and ELTWISE).
std::uint64_t band_macs(const LayerSpec& L, const ConvGeom& g, int out_rows);

/// Cycles of one band: a CONV's MAC-array cycles by the configured fold model
/// (conv_array_cycles, what the simulator charges), a POOL's vector-unit cycles (elements of
/// the larger operand / lanes), an ELTWISE's (elements / lanes).
std::uint64_t band_cycles(const LayerSpec& L, const ConvGeom& g, int out_rows, int in_rows, const MacArrayConfig& array,
                          int lanes);

/// Callbacks into the code generator for DDR addresses and tensor roots.
struct EmitContext {
  std::function<std::uint64_t(const std::string&)> addr;      ///< DDR address of a graph tensor
  std::function<std::string(const std::string&)> root;        ///< its DDR tensor (.tensor) name
  int act_bytes = 1;
  MacArrayConfig array;  ///< for the per-layer array cycles of the report
  int lanes = 1;         ///< act_unit.lanes
  DType dtype = DType::Int8;
};

/// Appends the stack's instructions to `prog` (fenced like a layer: when `first` is false its
/// first LOAD waits for every earlier compute and STORE) and fills `infos` (one per stack layer).
void emit_stack(const StackPlan& plan, const EmitContext& ctx, bool first, std::vector<isa::Instruction>& prog,
                std::vector<LayerCodegenInfo>& infos);

/// Adds the tokens a straight-line list of LOAD / compute / STORE instructions needs so that
/// every pair of instructions on different queues touching overlapping SRAM or DDR bytes (one
/// of them writing) runs in list order: for each such pair the later waits for the latest
/// earlier conflicting instruction of the other queue, unless an earlier wait of its queue
/// already covers it. Instructions of one queue run in order, so same-queue pairs need none.
void add_hazard_tokens(std::vector<isa::Instruction>& code, DType dtype);

}  // namespace npu::compiler::depth_first
