// Code generation: LoweredGraph -> isa::Program. Places the DDR tensors, tiles each layer
// (tiling.hpp), lays out its SRAM buffers (ping-pong slots) and emits LOAD / compute /
// STORE with dependency tokens. Implemented in compiler/src/backend/codegen/: codegen.cpp walks
// the layers, one generator per layer kind (conv.cpp with gemm.cpp, act.cpp, eltwise.cpp,
// pool.cpp, resize.cpp, layout.cpp, copy.cpp) makes a layer's steps, tokens.cpp adds the tokens
// below, ddr_placement.cpp places the DDR tensors. Reference: docs/compiler.md "Code generation".
//
// Token protocol (VTA-style decoupled access-execute), per layer of n steps, step i:
//   LOADs of step i:  the first waits cp2ld if i >= 2 (compute of step i-2 freed the slot
//                     it overwrites); the last pushes ld2cp.
//   compute of i:     waits ld2cp (if step i loads), st2cp if i >= 2 (store of step i-2
//                     freed the output slot); pushes cp2st, and cp2ld if step i+2 loads.
//   STOREs of i:      the first waits cp2st; the last pushes st2cp if i+2 < n.
// Between layers: a SYNC on the compute queue pushes cp2ld and a SYNC on the store queue
// pushes st2ld; the next layer's first LOAD waits both. So a layer never loads a tensor
// before every earlier STORE has finished, and never overwrites SRAM still in use.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "npu/compiler/backend/schedule/depth_first.hpp"
#include "npu/compiler/backend/lowering/lowering.hpp"
#include "npu/compiler/backend/tiling/tiling.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::compiler {

/// How addresses map to DDR banks, derived from DdrConfig::address_mapping.
struct DdrBankGeometry {
  std::uint64_t bank_stride_bytes = 0;  ///< address step that moves to the next bank (2^bits below the bank fields)
  int bank_slots = 1;                   ///< distinct bank (and any interleaved ch/ra) positions per period
};

/// Parses the mapping ("rochrababgco": fields MSB -> LSB; co covers the row's bytes,
/// columns x bus_width_bits/8). bank_stride_bytes = 2^(bits of the fields below the lowest
/// of ba/bg), bank_slots = 2^(bits from there up to and including the highest of ba/bg).
/// Falls back to (row bytes, banks) for a mapping without ba/bg fields.
DdrBankGeometry ddr_bank_geometry(const DdrConfig& ddr);

/// Per-layer facts from code generation, for the report.
struct LayerCodegenInfo {
  std::string layer;       ///< LayerSpec::name
  std::string tile;        ///< tile shape, e.g. "64co x 14r x 56w (4x4 tiles)"
  std::string loop_order;  ///< "weights-resident", "input-resident" or "streaming"
  /// A Conv over NCDHW: why its loop order (tiling/conv3d_plan.hpp Conv3dChoice::why, for
  /// --explain's "conv3d-loop-order" line); "" for other layers.
  std::string order_reason;
  /// A dense Conv that took the input-channel split although a whole-input-channel tile fits:
  /// both estimates and DDR costs (cin_split.hpp plan_conv_layer's `why`); "" otherwise.
  std::string split_reason;
  int steps = 0;
  std::uint64_t sram_bytes = 0;  ///< SRAM the layer's buffers occupy
  /// CONV/GEMM: MAC-array cycles of all its tiles by the configured dataflow's fold model
  /// (conv_array_cycles); 0 for vector layers.
  std::uint64_t array_cycles = 0;
  /// Depth-first (depth_first.hpp): the stack the layer runs in (-1: none), the most output
  /// rows it computes in one band, the overlap mode ("recompute" or "cache"), and the MACs it executes
  /// beyond its own (rows recomputed by neighbouring bands).
  int stack = -1;
  int band_rows = 0;
  std::string overlap;
  std::uint64_t recompute_macs = 0;
  /// Its stack's weights: "resident" or "streamed" (re-loaded per band); "" outside a stack.
  std::string weights;
};

struct CodegenResult {
  isa::Program program;
  std::vector<LayerCodegenInfo> layers;  ///< in LoweredGraph::layers order
  std::vector<StackSummary> stacks;      ///< depth-first stacks, in program order (fuse-layers)
  /// Runs of stackable layers whose best stack was estimated slower or moving more DDR bytes
  /// than the layers one by one: each its longest prefix's plan; the layers kept their own.
  std::vector<StackSummary> declined_stacks;
  /// The lower bound on program.instructions.size() computed before any instruction was made
  /// (codegen/program_size.hpp); a program whose bound passes max_program_instructions is refused.
  std::uint64_t instruction_lower_bound = 0;
};

/// Generates the program. DDR placement: tensors in first-use order; each base is aligned
/// to bank_stride_bytes and then moved to bank slot (k mod bank_slots) for the k-th tensor,
/// so the input, weights and output of a layer (declared consecutively) start in different
/// banks instead of all at bank 0. Throws ConfigError naming the layer, the bytes needed and
/// available, and the fix, when not even a minimal tile fits the SRAM, and when the tensors
/// exceed the DDR capacity, and when the program passes options.max_program_instructions: up
/// front when a lower bound on its size (codegen/program_size.hpp) passes it, else as soon as
/// the instructions made so far do.
///
/// `after_layer`, when given, is called after each layer (or depth-first stack) whose
/// instructions are emitted, with the index of the last lowered layer done and the result so
/// far (program.instructions, layers[0..index]); when it returns true, generation stops and
/// generate() throws GenerationStopped. The SRAM-plan ladder uses it to stop compiling a size
/// whose partial figures already rank it below a plan it has (plan_bound.hpp).
using LayerHook = std::function<bool(std::size_t last_layer, const CodegenResult& so_far)>;
CodegenResult generate(const LoweredGraph& lowered, const HwConfig& hw, const TilingOptions& options,
                       const std::string& program_name, const std::string& strategy,
                       const LayerHook& after_layer = {});

/// What generate() throws when its LayerHook asks it to stop: `layers_done` lowered layers
/// (the first ones, in order) were generated.
struct GenerationStopped : std::exception {
  explicit GenerationStopped(std::size_t done) : layers_done(done) {}
  const char* what() const noexcept override { return "code generation stopped by its layer hook"; }
  std::size_t layers_done;
};

}  // namespace npu::compiler
