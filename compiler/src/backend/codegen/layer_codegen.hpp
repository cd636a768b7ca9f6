// What the per-layer-kind code generators share (internal to codegen/): a layer's steps
// (LOADs, compute, STOREs; tokens are added by emit_steps in tokens.cpp), the ping-pong SRAM
// slots, and the context a generator reads addresses, SRAM placement and chunk sizes from.
// One generator per layer kind: conv.cpp (CONV and GEMM, with gemm.cpp), act.cpp, eltwise.cpp,
// pool.cpp, resize.cpp, layout.cpp (layout copies and MOVE views), copy.cpp (concat copies).
// Reference: docs/compiler.md "Code generation".
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <string>
#include <vector>

#include "npu/compiler/backend/codegen/codegen.hpp"
#include "npu/compiler/backend/codegen/dma_descriptors.hpp"

namespace npu::compiler::codegen {

// Elements per chunk of a streaming vector layer (ACT, ELTWISE, copies; not scale_shift, whose
// channel tiles keep whole DDR bursts of parameters), smaller when the SRAM cannot hold four. Independent of the
// capacity, so a larger SRAM never makes a streaming layer's chunks larger: larger chunks
// only lengthen the fill and drain that double buffering cannot hide (issue 11;
// docs/compiler.md "SRAM placement").
constexpr std::uint64_t kStreamChunkElems = 16384;

/// One LOAD or STORE of a step: the DDR root tensor it names and its descriptor.
struct Dma {
  std::string tensor;
  isa::DmaDesc desc;
};

/// One step of a layer: its LOADs, one compute instruction (and any that follow it), its STOREs.
struct Step {
  std::vector<Dma> loads;
  isa::Instruction compute;
  std::vector<isa::Instruction> more;  ///< further compute instructions after `compute` (a Concat's MOVEs)
  std::vector<Dma> stores;
};

/// Two alternating SRAM slots for an operand whose tile changes (ping-pong).
struct Slots {
  std::uint32_t addr[2]{0, 0};
  long key = -1;
  int cur = 1;
  /// True (and flips to the other slot) when `k` differs from the tile held now.
  bool need(long k) {
    if (k == key) return false;
    key = k;
    cur ^= 1;
    return true;
  }
  std::uint32_t now() const { return addr[cur]; }
  /// The two slots a tile plan placed (e.g. ConvTilePlan's sram.in or sram.w), none held yet.
  static Slots at(const std::uint32_t (&a)[2]) {
    Slots s;
    s.addr[0] = a[0], s.addr[1] = a[1];
    return s;
  }
};

/// A layer whose smallest tile does not fit the SRAM: thrown by the generators, collected by
/// generate() over every layer, then reported as one ConfigError.
struct TooBig {
  std::string layer, op;
  std::uint64_t need = 0;
  /// The minimal tile measured, when it is not the layer kind's usual one (a Conv that may be
  /// split along input channels: "one output channel x one output row x one input channel").
  std::string tile;
  /// What dominates the need, when it is not the tile itself (a CONV/GEMM's params region
  /// reserved for every output channel): said after the bytes.
  std::string note;
};

/// What a layer kind's generator reads and records: the lowered graph, the hardware, the
/// tiling options, where each DDR root was placed, and the report facts of the layer being
/// generated (`info`).
class GenCtx {
 public:
  GenCtx(const LoweredGraph& lowered, const HwConfig& hw_config, const TilingOptions& options,
         const std::map<std::string, std::uint64_t>& ddr_base)
      : lg(lowered), hw(hw_config), opt(options), e(lowered.act_bytes), cap(hw_config.sram.capacity_bytes),
        base_(ddr_base) {}

  const LoweredGraph& lg;
  const HwConfig& hw;
  const TilingOptions& opt;
  const int e;             ///< bytes per activation element
  const std::uint64_t cap;  ///< SRAM bytes
  LayerCodegenInfo info;    ///< the layer being generated
  /// The largest whole-input-channel minimal tile (conv_min_sram_bytes) of the layers that did
  /// not get one so far (split along input channels, or refused): the SRAM with which none of
  /// them needs a split, which the "does not fit" message advises.
  std::uint64_t unsplit_need = 0;

  /// DDR address of a graph tensor (its root's base + offset).
  std::uint64_t addr(const std::string& t) const {
    const DdrPlace& p = lg.place.at(t);
    return base_.at(p.root) + p.offset;
  }
  /// The DDR root tensor (the .npuasm tensor name) a graph tensor lives in.
  const std::string& root(const std::string& t) const { return lg.place.at(t).root; }
  std::uint64_t bytes_of(const std::string& t) const { return lg.bytes.at(t); }
  /// True when tensor `t` lives in a weight region (a constant the DDR image writes, laid out
  /// by the compiler); false for a tensor computed at run time or a graph input.
  bool weight_is_constant(const std::string& t) const;
  /// SRAM offsets of a streaming layer's buffers (sizes in bytes, in address order), placed
  /// bank-aware (sram_placement.hpp); records the packed bytes as the layer's SRAM use.
  std::vector<std::uint32_t> place(const std::vector<std::uint64_t>& sizes);
  /// Elements per streaming chunk for `buffers` double-buffered operands of e bytes each
  /// (plus `reserved` bytes): as large as fits, at most kStreamChunkElems, a multiple of 64
  /// when it splits `total`. Throws TooBig when not even one element fits.
  std::uint64_t chunk_elems(const LayerSpec& L, std::uint64_t total, int buffers, std::uint64_t reserved) const;
  [[noreturn]] void too_big(const LayerSpec& L, std::uint64_t need, std::string tile = {}, std::string note = {}) const {
    throw TooBig{L.name, L.op_type, need, std::move(tile), std::move(note)};
  }
  /// int8 ACT/ELTWISE/POOL: the table load (with the first step) and the instruction's requant
  /// operand at SRAM `slot`; a scale_shift's per-channel pairs are loaded per tile instead.
  void add_table(const LayerSpec& L, Step& s, std::uint32_t slot, isa::Requant& r, bool first) const;
  /// The vector-unit pass that moves values unchanged (concat copies, nearest upsampling): an
  /// ACT Clip to the whole float range; in int8 programs of quantised graphs an identity ACT
  /// without requant, which the int8 data path runs as a byte copy.
  isa::ActParams copy_act() const;

 private:
  const std::map<std::string, std::uint64_t>& base_;
  mutable std::unordered_map<std::string, bool> weight_kind_;  ///< weight_is_constant's index: root -> is a weight
};

// The generators, one per layer kind: the steps of layer L. Each throws TooBig when not even
// its smallest tile fits the SRAM, and fills ctx.info (tile, loop order, SRAM bytes).
std::vector<Step> gen_conv(GenCtx& ctx, const LayerSpec& L);      // conv.cpp: CONV and GEMM
std::vector<Step> gen_conv3d(GenCtx& ctx, const LayerSpec& L);    // conv3d.cpp: CONV over NCDHW
std::vector<Step> gen_act(GenCtx& ctx, const LayerSpec& L);       // act.cpp
std::vector<Step> gen_eltwise(GenCtx& ctx, const LayerSpec& L);   // eltwise.cpp
std::vector<Step> gen_pool(GenCtx& ctx, const LayerSpec& L);      // pool.cpp
std::vector<Step> gen_resize(GenCtx& ctx, const LayerSpec& L);    // resize.cpp
std::vector<Step> gen_layout(GenCtx& ctx, const LayerSpec& L);    // layout.cpp: streaming copy
std::vector<Step> gen_moves(GenCtx& ctx, const LayerSpec& L);     // layout.cpp: MOVE views
std::vector<Step> gen_zero_insert(GenCtx& ctx, const LayerSpec& L);  // zero_insert.cpp: ConvTranspose
std::vector<Step> gen_resize_linear(GenCtx& ctx, const LayerSpec& L);  // resize_linear.cpp: bilinear
std::vector<Step> gen_resize_linear_int8(GenCtx& ctx, const LayerSpec& L);  // resize_linear_int8.cpp: int8 bilinear
std::vector<Step> gen_copy(GenCtx& ctx, const LayerSpec& L);      // copy.cpp
/// One streaming copy step (copy.cpp): LOAD `elems` elements of DDR tensor `src` at byte address
/// `at` into SRAM slot `si`, ACT copy to slot `so`; the caller adds the STORE.
Step copy_step(GenCtx& ctx, const std::string& src, std::uint64_t at, std::uint32_t si, std::uint32_t so,
               std::uint64_t elems);
std::vector<Step> gen_gather(GenCtx& ctx, const LayerSpec& L);    // gather.cpp: gather LOADs
/// The indexed-rows DMA descriptor of a gather LOAD or scatter STORE (gather.cpp): n rows of
/// `row` elements, `row_bytes` apart at `ddr_addr`, chosen by the indices at SRAM `index_addr`
/// (L.gather_rows rows in the table; fp32 indices when L.gather_index_float).
isa::DmaDesc indexed_rows(const GenCtx& ctx, const LayerSpec& L, std::uint64_t ddr_addr, std::uint32_t sram_addr,
                          std::uint64_t row, std::uint64_t n, std::uint64_t row_bytes, std::uint32_t index_addr);
std::vector<Step> gen_scatter(GenCtx& ctx, const LayerSpec& L);  // scatter.cpp: a row ScatterElements
std::vector<Step> gen_attention(GenCtx& ctx, const LayerSpec& L); // attention.cpp: FlashAttention-style

// The shared token generator (tokens.cpp, docs/compiler.md "Code generation").
/// Appends layer `layer`'s steps to `prog` with the dependency tokens of the protocol in
/// codegen.hpp; a layer other than the program's first (`first_layer` false) starts with the
/// fence. Sets `first_layer` false. Throws std::logic_error when step 0 has no LOAD.
void emit_steps(const std::string& layer, std::vector<Step>& steps, bool& first_layer,
                std::vector<isa::Instruction>& prog);
/// Appends a HOST layer: the NPU waits for every earlier STORE (a store-queue SYNC pushes
/// st2cp), then the host runs the partition. Sets `first_layer` false.
void emit_host(const HwConfig& hw, const LayerSpec& L, bool& first_layer, std::vector<isa::Instruction>& prog);

}  // namespace npu::compiler::codegen
