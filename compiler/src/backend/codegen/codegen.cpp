#include "npu/compiler/backend/codegen/codegen.hpp"
#include "backend/schedule/depth_first/stack_plan.hpp"
#include "npu/compiler/backend/codegen/dma_descriptors.hpp"
#include "npu/compiler/backend/tiling/layout_tiles.hpp"
#include "npu/compiler/backend/tiling/sram_placement.hpp"
#include "npu/base/checked_math.hpp"
#include "npu/base/user_text.hpp"

#include <algorithm>
#include <numeric>
#include <limits>
#include <map>
#include <tuple>

namespace npu::compiler {

namespace {

// Elements per chunk of a streaming vector layer (ACT, ELTWISE, copies; not scale_shift, whose
// channel tiles keep whole DDR bursts of parameters), smaller when the SRAM cannot hold four. Independent of the
// capacity, so a larger SRAM never makes a streaming layer's chunks larger: larger chunks
// only lengthen the fill and drain that double buffering cannot hide (issue 11;
// docs/compiler.md "SRAM placement").
constexpr std::uint64_t kStreamChunkElems = 16384;

int ceil_log2(std::uint64_t x) {
  int b = 0;
  while ((std::uint64_t(1) << b) < x) ++b;
  return b;
}

using isa::DmaDesc;
using isa::Instruction;
using isa::Opcode;
using isa::Queue;

using isa::kCp2Ld;
using isa::kCp2St;
using isa::kLd2Cp;
using isa::kSt2Cp;
using isa::kSt2Ld;

struct Dma {
  std::string tensor;
  DmaDesc desc;
};

struct Step {
  std::vector<Dma> loads;
  Instruction compute;
  std::vector<Instruction> more;  ///< further compute instructions after `compute` (a Concat's MOVEs)
  std::vector<Dma> stores;
};

// Two alternating SRAM slots for an operand whose tile changes (ping-pong).
struct Slots {
  std::uint32_t addr[2]{0, 0};
  long key = -1;
  int cur = 1;
  // True (and flips to the other slot) when `k` differs from the tile held now.
  bool need(long k) {
    if (k == key) return false;
    key = k;
    cur ^= 1;
    return true;
  }
  std::uint32_t now() const { return addr[cur]; }
};

class Generator {
 public:
  Generator(const LoweredGraph& lg, const HwConfig& hw, const TilingOptions& opt)
      : lg_(lg), hw_(hw), opt_(opt), e_(lg.act_bytes), cap_(hw.sram.capacity_bytes) {}

  CodegenResult run(const std::string& name, const std::string& strategy) {
    res_.program.name = name;
    res_.program.strategy = strategy;
    res_.program.dtype = hw_.mac_array.dtype;
    place_tensors();
    // Depth-first stacks (fuse-layers): emitted by depth_first/, each in place of its layers.
    const std::vector<depth_first::StackPlan> stacks = plan_stacks();
    std::size_t next_stack = 0;
    for (std::size_t li = 0; li < lg_.layers.size(); ++li) {
      if (next_stack < stacks.size() && stacks[next_stack].summary.first == li) {
        li = emit_stack(stacks[next_stack++]);
        continue;
      }
      const LayerSpec& L = lg_.layers[li];
      info_ = LayerCodegenInfo{};
      info_.layer = L.name;
      std::vector<Step> steps;
      try {
        switch (L.kind) {
          case LayerKind::Conv:
          case LayerKind::Gemm: steps = gen_conv(L); break;
          case LayerKind::Act: steps = gen_act(L); break;
          case LayerKind::Eltwise: steps = gen_eltwise(L); break;
          case LayerKind::Pool: steps = gen_pool(L); break;
          case LayerKind::Resize: steps = L.layout.empty() ? gen_resize(L) : gen_moves(L); break;
          case LayerKind::Copy: steps = gen_copy(L); break;
          case LayerKind::Layout: steps = L.layout.empty() ? gen_layout(L) : gen_moves(L); break;
          case LayerKind::Host:
            emit_host(L);
            res_.layers.push_back(info_);
            continue;
        }
      } catch (const TooBig& t) {
        too_big_.push_back(t);  // the other layers are still sized, so the error can name the largest need
        continue;
      }
      if (!too_big_.empty()) continue;  // no program will be returned: only sizes matter now
      info_.steps = int(steps.size());
      emit(L.name, steps);
      res_.layers.push_back(info_);
    }
    if (!too_big_.empty()) throw ConfigError(too_big_message());
    return std::move(res_);
  }

 private:
  // ---- depth-first hook (depth_first/stack_plan.hpp) ----
  std::vector<depth_first::StackPlan> plan_stacks() {
    bool marked = false;
    for (const auto& L : lg_.layers) marked = marked || L.depth_first;
    if (!marked) return {};
    TilingOptions o = opt_;
    o.act_bytes = e_;
    return depth_first::plan_stacks(depth_first::PlanInputs{lg_, hw_, o, cap_}, &res_.declined_stacks);
  }
  // Emits a stack and returns the index of its last layer.
  std::size_t emit_stack(const depth_first::StackPlan& s) {
    depth_first::EmitContext ctx;
    ctx.addr = [this](const std::string& t) { return addr(t); };
    ctx.root = [this](const std::string& t) { return root(t); };
    ctx.act_bytes = e_;
    ctx.array = hw_.mac_array;
    ctx.lanes = hw_.act_unit.lanes;
    ctx.dtype = hw_.mac_array.dtype;
    depth_first::emit_stack(s, ctx, first_layer_, res_.program.instructions, res_.layers);
    res_.stacks.push_back(s.summary);
    first_layer_ = false;
    return s.summary.last;
  }

  // ---- DDR placement ----
  void place_tensors() {
    const DdrBankGeometry geo = ddr_bank_geometry(hw_.ddr);
    const std::uint64_t stride = std::max<std::uint64_t>(geo.bank_stride_bytes, 64);
    const std::uint64_t slots = std::uint64_t(std::max(geo.bank_slots, 1));
    std::uint64_t cursor = 0;
    std::uint64_t k = 0;
    for (const auto& t : lg_.ddr_tensors) {
      std::uint64_t base = align_up(cursor, stride);
      const std::uint64_t slot = (base / stride) % slots;
      const std::uint64_t want = k % slots;
      base += ((want + slots - slot) % slots) * stride;
      isa::TensorDecl d;
      d.name = t.name;
      d.kind = t.kind;
      d.ddr_addr = base;
      d.bytes = t.bytes;
      res_.program.tensors.push_back(d);
      base_[t.name] = base;
      cursor = checked_add(base, t.bytes, "error: DDR placement end of tensor '" + echo(t.name) + "' (address + bytes)");
      ++k;
    }
    const std::uint64_t cap = hw_.ddr.capacity_bytes();
    if (cap > 0 && cursor > cap)
      throw ConfigError(hw_.source + ": error: the network's DDR tensors need " + std::to_string(cursor) +
                        " bytes but the DDR holds " + std::to_string(cap) +
                        " (ddr: channels x ranks x banks x rows x columns x bus bytes); use a larger DDR");
  }

  // DDR address of a graph tensor (its root's base + offset) and the root's name.
  std::uint64_t addr(const std::string& t) const {
    const DdrPlace& p = lg_.place.at(t);
    return base_.at(p.root) + p.offset;
  }
  const std::string& root(const std::string& t) const { return lg_.place.at(t).root; }
  // True when tensor `t` lives in a weight region (a constant the DDR image writes, laid out
  // by the compiler); false for a tensor computed at run time or a graph input.
  bool weight_is_constant(const std::string& t) const {
    const std::string& r = root(t);
    for (const auto& d : lg_.ddr_tensors)
      if (d.name == r) return d.kind == isa::TensorKind::Weight;
    return true;
  }

  // A layer whose smallest tile does not fit the SRAM: thrown by the generators, collected by
  // run() over every layer, then reported as one ConfigError (too_big_message).
  struct TooBig {
    std::string layer, op;
    std::uint64_t need = 0;
  };
  [[noreturn]] void too_big(const LayerSpec& L, std::uint64_t need) const { throw TooBig{L.name, L.op_type, need}; }
  // Names the first layer that does not fit and the capacity every layer needs (the largest
  // minimal need), so that one raise of sram.capacity is enough.
  std::string too_big_message() const {
    const TooBig& first = too_big_.front();
    const TooBig* largest = &first;
    for (const TooBig& t : too_big_)
      if (t.need > largest->need) largest = &t;
    std::string m = hw_.source + ": error: layer '" + first.layer + "' (" + first.op +
                    ") cannot fit even one minimal tile in SRAM: needs " + std::to_string(first.need) +
                    " bytes, sram.capacity is " + std::to_string(cap_) + " bytes";
    if (too_big_.size() > 1)
      m += "; " + std::to_string(too_big_.size()) + " layers do not fit, the largest need is layer '" +
           largest->layer + "' (" + largest->op + "): " + std::to_string(largest->need) + " bytes";
    // A capacity the config accepts: whole banks of whole interleave granules (npu_hw_config's
    // load/cross_section_checks.cpp; contiguous banks only need the capacity to split into `banks`).
    const SramConfig& sr = hw_.sram;
    const std::uint64_t banks = std::uint64_t(std::max(sr.banks, 1));
    const std::uint64_t g = sr.bank_interleave_bytes;
    const std::uint64_t unit = g == 0 || g >= sr.bank_bytes() ? banks : banks * g;
    const std::uint64_t fit = (largest->need + unit - 1) / unit * unit;
    m += "; increase sram.capacity to at least " + std::to_string(fit) + " bytes" +
         (fit != largest->need ? " (whole banks of " + std::to_string(unit / banks) + "-byte granules)" : "");
    // An int8 config compiling an unquantised graph costs the program only; `npu verify`
    // quantises the model first, and that program also keeps requantisation tables in SRAM.
    if (hw_.mac_array.dtype == DType::Int8 && !lg_.int8_execution)
      m += " for this program; the quantised program npu verify builds also holds requantisation tables and may "
           "need a little more (its own error says how much)";
    return m;
  }

  std::uint32_t a(std::uint64_t x) const { return std::uint32_t(align_up(x, opt_.align_bytes)); }

  // SRAM offsets of a streaming layer's buffers (sizes in bytes, in address order), placed
  // bank-aware (sram_placement.hpp); records the packed bytes as the layer's SRAM use.
  std::vector<std::uint32_t> place(const std::vector<std::uint64_t>& sizes) {
    const SramPlacement pl = place_sram_buffers(sizes, cap_, hw_.sram.banks, hw_.sram.bank_interleave_bytes, opt_.align_bytes);
    info_.sram_bytes = pl.packed_bytes;
    return pl.offset;
  }

  // ---- CONV / GEMM ----
  // One tile of a CONV/GEMM layer: output channels [co0, co0 + cot) x output rows
  // [ro0, ro0 + hot) of image b, the idx-th in the layer's loop order.
  struct ConvTile {
    int j = 0, r = 0, b = 0;
    std::size_t idx = 0;
    int co0 = 0, cot = 0, ro0 = 0, hot = 0;
    std::uint64_t X = 0, Y = 0, R = 0;  // image b's input, output and residual in DDR
    std::uint32_t out_slot = 0;
  };

  std::vector<Step> gen_conv(const LayerSpec& L) {
    const ConvGeom& g = L.geom;
    const ConvTilePlan p = conv_plan(L);
    const bool weights_resident = conv_weights_resident(L, p);
    const int images = std::max(L.batch, 1);
    info_.array_cycles *= std::uint64_t(images);
    info_.loop_order = to_string(weights_resident ? LoopOrder::WeightsResident : LoopOrder::InputResident);
    Slots in, w;
    in.addr[0] = p.sram.in[0];
    in.addr[1] = p.sram.in[1];
    w.addr[0] = p.sram.w[0];
    w.addr[1] = p.sram.w[1];
    const std::vector<std::tuple<int, int, int>> order = conv_tile_order(p, images, weights_resident);
    const std::uint64_t plane_in = std::uint64_t(g.h_in) * g.w_in * e_;
    const std::uint64_t plane_out = std::uint64_t(g.h_out) * g.w_out * e_;
    std::vector<Step> steps;
    for (std::size_t idx = 0; idx < order.size(); ++idx) {
      ConvTile t;
      std::tie(t.j, t.r, t.b) = order[idx];
      t.idx = idx;
      // Image b's input, output and residual (NCHW: images one after another).
      t.X = addr(L.inputs[0]) + std::uint64_t(t.b) * g.c_in * plane_in;
      t.Y = addr(L.output) + std::uint64_t(t.b) * g.c_out * plane_out;
      t.R = L.residual.empty() ? 0 : addr(L.residual) + std::uint64_t(t.b) * g.c_out * plane_out;
      t.co0 = t.j * p.co_tile, t.cot = std::min(p.co_tile, g.c_out - t.co0);
      t.ro0 = t.r * p.rows_tile, t.hot = std::min(p.rows_tile, g.h_out - t.ro0);
      t.out_slot = p.sram.out[idx % 2];
      Step s;
      if (idx == 0) add_resident_params(L, p, s);
      if (L.kind == LayerKind::Gemm) gemm_step(L, p, t, in, w, s);
      else conv_step(L, p, t, weights_resident, in, w, s);
      steps.push_back(std::move(s));
    }
    return steps;
  }

  // The layer's tile plan (plan_conv); records it in info_. Throws TooBig when no tile fits.
  ConvTilePlan conv_plan(const LayerSpec& L) {
    const ConvGeom& g = L.geom;
    TilingOptions o = opt_;
    o.act_bytes = e_;
    o.residual = !L.residual.empty();
    o.in_scale = !L.in_scale.empty();
    // int8: the requantisation pairs (8 B per channel) sit after the bias in the params block.
    if (!L.requant.empty()) o.reserved_param_bytes_per_channel = std::max(o.reserved_param_bytes_per_channel, 12);
    o.batch = std::max(L.batch, 1);
    const auto plan = plan_conv(g, cap_, o);
    if (!plan) too_big(L, conv_min_sram_bytes(g, o));
    const ConvTilePlan& p = *plan;
    info_.tile = p.describe(g);
    info_.loop_order = to_string(p.order);  // (a batch may switch it)
    info_.sram_bytes = p.sram.total_bytes;
    info_.array_cycles = conv_array_cycles(g, p.co_tile, p.rows_tile, hw_.mac_array);
    return p;
  }

  // True when the layer runs weights-resident (co tile outermost).
  bool conv_weights_resident(const LayerSpec& L, const ConvTilePlan& p) const {
    const ConvGeom& g = L.geom;
    if (!(L.batch > 1 && L.kind == LayerKind::Conv && g.group == 1)) return p.order == LoopOrder::WeightsResident;
    // The plan's order is chosen for one image. With N images and the same tiles,
    // weights-resident (co tile outermost) loads the weights once and each image's input
    // n_co times; input-resident (image, row tile outermost) loads each input once and the
    // weights N x n_row times (once when they fit in one tile). Take the cheaper.
    const std::uint64_t wb = std::uint64_t(g.c_out) * g.cin_per_group() * g.kh * g.kw * e_;
    const std::uint64_t ib = std::uint64_t(g.c_in) * g.h_in * g.w_in * e_;
    const std::uint64_t n = std::uint64_t(L.batch);
    const std::uint64_t wr = wb + (p.n_co > 1 ? std::uint64_t(p.n_co) : 1) * n * ib;
    const std::uint64_t ir = (p.n_co > 1 || p.n_row > 1 ? n * std::uint64_t(p.n_row) : 1) * wb + n * ib;
    return wr <= ir;
  }

  // (co tile, row tile, image) in run order. A batch runs every image on a weight tile while
  // it is resident (weights loaded once per batch); input-resident layers take the images one
  // after another.
  static std::vector<std::tuple<int, int, int>> conv_tile_order(const ConvTilePlan& p, int images,
                                                               bool weights_resident) {
    std::vector<std::tuple<int, int, int>> order;
    if (weights_resident) {
      for (int j = 0; j < p.n_co; ++j)
        for (int b = 0; b < images; ++b)
          for (int r = 0; r < p.n_row; ++r) order.emplace_back(j, r, b);
    } else {
      for (int b = 0; b < images; ++b)
        for (int r = 0; r < p.n_row; ++r)
          for (int j = 0; j < p.n_co; ++j) order.emplace_back(j, r, b);
    }
    return order;
  }

  // The loads of the first tile that stay resident for the layer: the gate's c_in scales, the
  // bias and the int8 requantisation pairs.
  void add_resident_params(const LayerSpec& L, const ConvTilePlan& p, Step& s) const {
    const ConvGeom& g = L.geom;
    if (!L.in_scale.empty())
      s.loads.push_back({root(L.in_scale), dma_rows(addr(L.in_scale), p.sram.in_scale, std::uint64_t(g.c_in), 1, 0, e_)});
    if (!L.bias.empty())
      s.loads.push_back({root(L.bias), dma_rows(addr(L.bias), p.sram.params, std::uint64_t(g.c_out), 1, 0,
                                                isa::kParamElemBytes)});
    if (!L.requant.empty())
      s.loads.push_back({root(L.requant), dma_rows(addr(L.requant), requant_base(p, g), 2 * std::uint64_t(g.c_out), 1,
                                                   0, isa::kParamElemBytes)});
  }

  // A GEMM tile: A rows [ro0, ro0+hot) x K (row-major); B columns [co0, co0+cot).
  void gemm_step(const LayerSpec& L, const ConvTilePlan& p, const ConvTile& t, Slots& in, Slots& w, Step& s) const {
    const ConvGeom& g = L.geom;
    if (in.need(t.r))
      s.loads.push_back({root(L.inputs[0]), dma_rows(t.X + std::uint64_t(t.ro0) * g.c_in * e_, in.now(),
                                                     std::uint64_t(t.hot) * g.c_in, 1, 0, e_)});
    // Constant weights are stored pre-tiled: N-tile j is the [K, cot] block at j * co_tile *
    // K. A B computed at run time (attention's K^T, V) is stored row-major [K, N] by its
    // producer: N-tile j is K rows of cot elements, N apart (a strided LOAD).
    const std::uint64_t W = addr(L.weight);
    if (w.need(t.j)) {
      if (weight_is_constant(L.weight))
        s.loads.push_back({root(L.weight), dma_rows(W + std::uint64_t(t.co0) * g.c_in * e_, w.now(),
                                                    std::uint64_t(t.cot) * g.c_in, 1, 0, e_)});
      else
        s.loads.push_back({root(L.weight), dma_rows(W + std::uint64_t(t.co0) * e_, w.now(), std::uint64_t(t.cot),
                                                    std::uint64_t(g.c_in), std::uint64_t(g.c_out) * e_, e_)});
    }
    isa::GemmParams gp;
    gp.a_addr = in.now();
    gp.b_addr = w.now();
    gp.out_addr = t.out_slot;
    gp.m = t.hot;
    gp.n = t.cot;
    gp.k = g.c_in;
    gp.epilogue = epilogue(L, p, t.co0, t.idx);
    s.compute.op = Opcode::Gemm;
    s.compute.params = gp;
    s.stores.push_back({root(L.output), dma_rows(t.Y + (std::uint64_t(t.ro0) * g.c_out + t.co0) * e_, t.out_slot,
                                                 std::uint64_t(t.cot), std::uint64_t(t.hot),
                                                 std::uint64_t(g.c_out) * e_, e_)});
  }

  // A CONV tile: the input band (all input channels, or a grouped conv's slice), the weights
  // of its output channels, the residual, the CONV and the output's STORE.
  void conv_step(const LayerSpec& L, const ConvTilePlan& p, const ConvTile& t, bool weights_resident, Slots& in,
                 Slots& w, Step& s) const {
    const ConvGeom& g = L.geom;
    const int cpg_in = g.cin_per_group(), cpg_out = g.cout_per_group();
    const std::uint64_t plane_in = std::uint64_t(g.h_in) * g.w_in * e_;
    const std::uint64_t plane_out = std::uint64_t(g.h_out) * g.w_out * e_;
    const RowBand band = input_band(g, t.ro0, t.hot);
    // Input channels this tile computes on, and the ones its LOAD brings in.
    const bool grouped_slice = g.group > 1 && weights_resident;
    const int cin0 = g.group == 1 ? 0 : t.co0 / cpg_out * cpg_in;
    const int cint = g.group == 1 ? g.c_in : t.cot / cpg_out * cpg_in;
    const int load_c0 = grouped_slice ? cin0 : 0;
    const int load_cn = grouped_slice ? cint : g.c_in;
    const long in_key = (grouped_slice ? long(t.j) * p.n_row + t.r : long(t.r)) + long(t.b) * p.n_row * (p.n_co + 1);
    if (in.need(in_key))
      s.loads.push_back(
          {root(L.inputs[0]),
           dma_rows(t.X + (std::uint64_t(load_c0) * g.h_in + std::uint64_t(band.first_row)) * g.w_in * e_, in.now(),
                    std::uint64_t(band.rows) * g.w_in, std::uint64_t(load_cn), plane_in, e_)});
    const std::uint64_t w_per_oc = std::uint64_t(cpg_in) * g.kh * g.kw;
    if (w.need(t.j))
      s.loads.push_back({root(L.weight), dma_rows(addr(L.weight) + std::uint64_t(t.co0) * w_per_oc * e_, w.now(),
                                                  std::uint64_t(t.cot) * w_per_oc, 1, 0, e_)});
    const std::uint64_t out_off = (std::uint64_t(t.co0) * g.h_out + std::uint64_t(t.ro0)) * g.w_out * e_;
    if (!L.residual.empty())
      s.loads.push_back({root(L.residual), dma_rows(t.R + out_off, p.sram.res[t.idx % 2], std::uint64_t(t.hot) * g.w_out,
                                                    std::uint64_t(t.cot), plane_out, e_)});
    isa::ConvParams cp = band_conv_params(g, band);
    cp.in_addr = in.now() + (grouped_slice || g.group == 1
                                 ? 0
                                 : std::uint32_t(std::uint64_t(cin0) * band.rows * g.w_in * e_));
    cp.w_addr = w.now();
    cp.out_addr = t.out_slot;
    cp.c_in = cint;
    cp.c_out = t.cot;
    cp.group = g.group == 1 ? 1 : t.cot / cpg_out;
    cp.epilogue = epilogue(L, p, t.co0, t.idx);
    if (!L.in_scale.empty()) {
      cp.epilogue.has_in_scale = true;
      cp.epilogue.in_scale_addr = p.sram.in_scale + std::uint32_t(std::uint64_t(cin0) * e_);
    }
    s.compute.op = Opcode::Conv;
    s.compute.params = cp;
    s.stores.push_back({root(L.output), dma_rows(t.Y + out_off, t.out_slot, std::uint64_t(t.hot) * g.w_out,
                                                 std::uint64_t(t.cot), plane_out, e_)});
  }

  isa::Epilogue epilogue(const LayerSpec& L, const ConvTilePlan& p, int co0, std::size_t idx) const {
    isa::Epilogue ep;
    if (!L.bias.empty()) {
      ep.has_bias = true;
      ep.bias_addr = p.sram.params + std::uint32_t(co0) * isa::kParamElemBytes;
    }
    if (!L.residual.empty()) {
      ep.has_residual = true;
      ep.residual_addr = p.sram.res[idx % 2];
    }
    ep.act = L.act;
    ep.act_alpha = L.act_alpha;
    ep.act_beta = L.act_beta;
    if (!L.requant.empty()) {
      ep.requant = L.int8;
      ep.requant.addr = requant_base(p, L.geom) + std::uint32_t(co0) * std::uint32_t(isa::Requant::kPairBytes);
    }
    return ep;
  }
  // SRAM of a CONV/GEMM layer's requantisation pairs: after its bias in the params block.
  static std::uint32_t requant_base(const ConvTilePlan& p, const ConvGeom& g) {
    return p.sram.params + std::uint32_t(g.c_out) * isa::kParamElemBytes;
  }
  // int8 ACT/ELTWISE: the table load (step 0) and the instruction's requant operand.
  void add_table(const LayerSpec& L, Step& s, std::uint32_t slot, isa::Requant& r, bool first) const {
    if (L.requant.empty()) return;
    if (L.kind == LayerKind::Act && L.act == isa::ActOp::ScaleShift) {  // per-channel pairs: loaded per tile
      r = L.int8;
      return;
    }
    if (first) s.loads.push_back({root(L.requant), dma_rows(addr(L.requant), slot, table_words(L), 1, 0, isa::kParamElemBytes)});
    r = L.int8;
    r.addr = slot;
  }
  // Words of the layer's int8 table (its DDR tensor: one pair, the add's 7 words, a 256 B LUT).
  std::uint64_t table_words(const LayerSpec& L) const { return bytes_of(L.requant) / isa::kParamElemBytes; }

  // ---- vector-unit layers ----

  // Elements per streaming chunk for `buffers` double-buffered operands of e_ bytes each:
  // as large as fits, but split into about 8 chunks (>= 16 Ki elements each) for overlap.
  std::uint64_t chunk_elems(const LayerSpec& L, std::uint64_t total, int buffers, std::uint64_t reserved) const {
    const std::uint64_t overhead = std::uint64_t(2 * buffers) * opt_.align_bytes + reserved;
    const std::uint64_t per_elem = std::uint64_t(2 * buffers) * e_;
    if (cap_ < overhead + per_elem) too_big(L, overhead + per_elem);
    std::uint64_t max_elems = (cap_ - overhead) / per_elem;
    std::uint64_t want = kStreamChunkElems;
    std::uint64_t c = std::min({total, max_elems, want});
    if (c < total && c > 64) c = c / 64 * 64;
    return std::max<std::uint64_t>(c, 1);
  }

  std::vector<Step> gen_act(const LayerSpec& L) {
    const std::uint64_t X = addr(L.inputs[0]), Y = addr(L.output);
    std::vector<Step> steps;
    info_.loop_order = "streaming";
    std::uint32_t table_slot = 0;
    auto act_step = [&](std::uint64_t e0, std::uint64_t n, int channels, std::uint32_t in_s, std::uint32_t out_s) {
      Step s;
      isa::Requant rq;
      add_table(L, s, table_slot, rq, e0 == 0);
      s.loads.push_back({root(L.inputs[0]), dma_rows(X + e0 * e_, in_s, n, 1, 0, e_)});
      isa::ActParams ap;
      ap.op = L.act;
      ap.in_addr = in_s;
      ap.out_addr = out_s;
      ap.elems = std::uint32_t(n);
      ap.channels = channels;
      ap.alpha = L.act_alpha;
      ap.beta = L.act_beta;
      ap.requant = rq;
      s.compute.op = Opcode::Act;
      s.compute.params = ap;
      s.stores.push_back({root(L.output), dma_rows(Y + e0 * e_, out_s, n, 1, 0, e_)});
      return s;
    };
    if (L.act == isa::ActOp::Softmax || L.act == isa::ActOp::LayerNorm) return gen_rowwise(L, act_step);
    if (L.act != isa::ActOp::ScaleShift) {
      const std::uint64_t table = L.requant.empty() ? 0 : align_up(bytes_of(L.requant), opt_.align_bytes);  // int8 table
      const std::uint64_t chunk = chunk_elems(L, L.elems, 2, table);
      const auto o = place({chunk * e_, chunk * e_, chunk * e_, chunk * e_, table});
      const std::uint32_t in0 = o[0], in1 = o[1], out0 = o[2], out1 = o[3];
      table_slot = o[4];
      info_.tile = std::to_string(chunk) + " elems";
      for (std::uint64_t e0 = 0, i = 0; e0 < L.elems; e0 += chunk, ++i) {
        const std::uint64_t n = std::min(chunk, L.elems - e0);
        steps.push_back(act_step(e0, n, 1, i % 2 ? in1 : in0, i % 2 ? out1 : out0));
      }
      return steps;
    }
    // scale_shift: tiles of whole channels, loading scale[c0..c0+ct) and shift[c0..c0+ct).
    const std::uint64_t C = std::uint64_t(L.channels), hw = L.elems / C;
    const std::uint64_t P = addr(L.scale_shift);
    const std::uint64_t pb = isa::kParamElemBytes;
    // int8: the requantisation pairs of the tile's channels, double-buffered like the params.
    const bool rq = !L.requant.empty();
    const std::uint64_t pair = isa::Requant::kPairBytes;
    const std::uint64_t fixed = (rq ? 8 : 6) * opt_.align_bytes;
    const std::uint64_t per_channel = 2 * (2 * hw * e_ + 2 * pb + (rq ? pair : 0));
    auto param_load = [&](std::uint64_t c0, std::uint64_t ct, std::uint32_t sram) {
      // scale[c0..c0+ct) then shift[c0..c0+ct): 2 rows of ct elements, C*4 bytes apart.
      return Dma{root(L.scale_shift), dma_rows(P + c0 * pb, sram, ct, 2, C * pb, int(pb))};
    };
    // Adds the params (and the int8 pairs) of channels [c0, c0+ct) to step s.
    auto add_params = [&](Step& s, std::uint64_t c0, std::uint64_t ct, std::uint32_t par, std::uint32_t rq_slot) {
      s.loads.insert(s.loads.begin(), param_load(c0, ct, par));
      auto& ap = std::get<isa::ActParams>(s.compute.params);
      ap.param_addr = par;
      if (!rq) return;
      s.loads.insert(s.loads.begin() + 1,
                     Dma{root(L.requant), dma_rows(addr(L.requant) + c0 * pair, rq_slot, 2 * ct, 1, 0, isa::kParamElemBytes)});
      ap.requant.addr = rq_slot;
    };
    if (cap_ >= fixed + per_channel) {
      const std::uint64_t ct_max = (cap_ - fixed) / per_channel;
      // The channel tile: a target that depends on the layer alone (at least 8 steps and
      // 16 Ki elements a step), in whole DDR bursts, and only where the SRAM cannot hold it
      // the most channels that fit. Whole bursts: a tile's scale and shift rows (ct x 4 B)
      // and its data (ct x hw x e B) should each be a multiple of the burst (a partial burst
      // costs a whole one), so the target is rounded down to that quantum q of channels, or
      // up to q where that still leaves 4 steps or more for double buffering (it was rounded
      // up whenever q fitted: MobileNetV2's 32-channel 112x112 BatchNorms took 2 steps of 16
      // from 1 MiB). Independent of the capacity once the target fits; below, fewer channels
      // (MobileNetV2's 96-channel 112x112 BatchNorms: 10 at 512 KiB, the target 16 from 1 MiB,
      // which simulates slower; the program-level candidates keep the smaller SRAM's plan
      // there, sram_plans.hpp).
      const std::uint64_t burst = std::uint64_t(hw_.ddr.burst_bytes());
      auto quantum = [burst](std::uint64_t bytes_per_channel) { return burst / std::gcd(burst, bytes_per_channel); };
      const std::uint64_t q = std::lcm(quantum(pb), quantum(hw * e_));
      std::uint64_t target = std::min(C, std::max<std::uint64_t>(std::uint64_t(ceil_div(std::int64_t(C), 8)),
                                                                 std::uint64_t(ceil_div(16384, std::int64_t(hw)))));
      if (target < C && target >= q) target = target / q * q;
      else if (target < q && q < C && ceil_div(std::int64_t(C), std::int64_t(q)) >= 4) target = q;
      std::uint64_t ct = target;
      if (ct > ct_max) ct = ct_max >= q ? ct_max / q * q : ct_max;
      const std::uint64_t tile = ct * hw * e_, rq_bytes = rq ? ct * pair : 0;
      const auto o = place({tile, tile, tile, tile, 2 * ct * pb, 2 * ct * pb, rq_bytes, rq_bytes});
      const std::uint32_t in0 = o[0], in1 = o[1], out0 = o[2], out1 = o[3], par0 = o[4], par1 = o[5];
      info_.tile = std::to_string(ct) + "c x " + std::to_string(hw) + " elems";
      for (std::uint64_t c0 = 0, i = 0; c0 < C; c0 += ct, ++i) {
        const std::uint64_t n = std::min(ct, C - c0);
        Step s = act_step(c0 * hw, n * hw, int(n), i % 2 ? in1 : in0, i % 2 ? out1 : out0);
        add_params(s, c0, n, i % 2 ? par1 : par0, i % 2 ? o[7] : o[6]);
        steps.push_back(std::move(s));
      }
      return steps;
    }
    // A channel does not fit: chunks within each channel, one channel's scale/shift each.
    const std::uint64_t chunk =
        chunk_elems(L, hw, 2, 2 * (opt_.align_bytes + 2 * pb) + (rq ? 2 * (opt_.align_bytes + pair) : 0));
    const auto o = place({chunk * e_, chunk * e_, chunk * e_, chunk * e_, 2 * pb, 2 * pb, rq ? pair : 0, rq ? pair : 0});
    const std::uint32_t in0 = o[0], in1 = o[1], out0 = o[2], out1 = o[3], par0 = o[4], par1 = o[5];
    info_.tile = "1c x " + std::to_string(chunk) + " elems";
    std::uint64_t i = 0;
    for (std::uint64_t c = 0; c < C; ++c)
      for (std::uint64_t e0 = 0; e0 < hw; e0 += chunk, ++i) {
        const std::uint64_t n = std::min(chunk, hw - e0);
        Step s = act_step(c * hw + e0, n, 1, i % 2 ? in1 : in0, i % 2 ? out1 : out0);
        add_params(s, c, 1, i % 2 ? par1 : par0, i % 2 ? o[7] : o[6]);
        steps.push_back(std::move(s));
      }
    return steps;
  }

  // Softmax / LayerNorm: tiles of whole rows (channels = rows of elems/channels); LayerNorm's
  // gamma/beta (2 x D params) are loaded once with the first tile and stay resident.
  template <class ActStep>
  std::vector<Step> gen_rowwise(const LayerSpec& L, ActStep& act_step) {
    const std::uint64_t rows = std::max<std::uint64_t>(std::uint64_t(L.channels), 1), d = L.elems / rows;
    const bool ln = L.act == isa::ActOp::LayerNorm;
    const std::uint64_t pbytes = ln ? 2 * d * isa::kParamElemBytes : 0;
    const std::uint64_t reserved = align_up(pbytes, opt_.align_bytes);
    const bool res = !L.residual.empty();  // fuse-add-layernorm: the second summand
    std::uint64_t chunk = chunk_elems(L, L.elems, res ? 3 : 2, reserved);
    if (chunk < d) too_big(L, reserved + (res ? 6 : 4) * align_up(d * e_, opt_.align_bytes));
    const std::uint64_t rt = chunk / d;  // rows per tile
    const std::uint64_t t = rt * d * e_;
    const auto o = place({pbytes, t, t, t, t, res ? t : 0, res ? t : 0});
    const std::uint32_t par = o[0], in0 = o[1], in1 = o[2], out0 = o[3], out1 = o[4], res0 = o[5], res1 = o[6];
    info_.tile = std::to_string(rt) + " rows x " + std::to_string(d);
    std::vector<Step> steps;
    for (std::uint64_t r0 = 0, i = 0; r0 < rows; r0 += rt, ++i) {
      const std::uint64_t n = std::min(rt, rows - r0);
      Step s = act_step(r0 * d, n * d, int(n), i % 2 ? in1 : in0, i % 2 ? out1 : out0);
      if (res) {
        const std::uint32_t rs = i % 2 ? res1 : res0;
        s.loads.push_back({root(L.residual), dma_rows(addr(L.residual) + r0 * d * e_, rs, n * d, 1, 0, e_)});
        auto& ap = std::get<isa::ActParams>(s.compute.params);
        ap.has_residual = true;
        ap.residual_addr = rs;
      }
      if (ln) {
        if (i == 0)
          s.loads.insert(s.loads.begin(), Dma{root(L.scale_shift), dma_rows(addr(L.scale_shift), par, 2 * d, 1, 0, int(isa::kParamElemBytes))});
        std::get<isa::ActParams>(s.compute.params).param_addr = par;
      }
      steps.push_back(std::move(s));
    }
    return steps;
  }

  // ELTWISE: a and the output stream in chunks. b streams with a when it has the same
  // shape; a broadcast b (b_elems elements, e.g. an SE gate's [1,C,1,1] or a bias row) is
  // loaded once with the first chunk and stays resident. SRAM: [b] a a [b b] out out.
  std::vector<Step> gen_eltwise(const LayerSpec& L) {
    const bool bcast = L.b_elems > 0;
    const std::uint64_t A = addr(L.inputs[0]), B = addr(L.inputs[1]), Y = addr(L.output);
    const std::uint64_t b_bytes = bcast ? L.b_elems * e_ : 0;
    const std::uint64_t table = L.requant.empty() ? 0 : align_up(bytes_of(L.requant), opt_.align_bytes);  // int8 add / mul table
    const std::uint64_t chunk = chunk_elems(L, L.elems, bcast ? 2 : 3, align_up(b_bytes, opt_.align_bytes) + table);
    const std::uint64_t t = chunk * e_;
    const auto o = place({b_bytes, t, t, bcast ? 0 : t, bcast ? 0 : t, t, t, table});
    const std::uint32_t bs = o[0], a0 = o[1], a1 = o[2], b0 = o[3], b1 = o[4], o0 = o[5], o1 = o[6];
    info_.tile = std::to_string(chunk) + " elems" +
                 (bcast ? ", b resident (" + std::to_string(L.b_elems) + ")" : std::string());
    info_.loop_order = "streaming";
    std::vector<Step> steps;
    for (std::uint64_t e0 = 0, i = 0; e0 < L.elems; e0 += chunk, ++i) {
      const std::uint64_t n = std::min(chunk, L.elems - e0);
      Step s;
      const std::uint32_t sa = i % 2 ? a1 : a0, so = i % 2 ? o1 : o0;
      const std::uint32_t sb = bcast ? bs : (i % 2 ? b1 : b0);
      if (bcast && i == 0) s.loads.push_back({root(L.inputs[1]), dma_rows(B, bs, L.b_elems, 1, 0, e_)});
      isa::Requant rq;
      add_table(L, s, o[7], rq, i == 0);
      s.loads.push_back({root(L.inputs[0]), dma_rows(A + e0 * e_, sa, n, 1, 0, e_)});
      if (!bcast) s.loads.push_back({root(L.inputs[1]), dma_rows(B + e0 * e_, sb, n, 1, 0, e_)});
      isa::EltwiseParams ep;
      ep.op = L.eltwise;
      ep.a_addr = sa;
      ep.b_addr = sb;
      ep.out_addr = so;
      ep.elems = std::uint32_t(n);
      if (bcast) {
        ep.b_elems = std::uint32_t(L.b_elems);
        ep.b_inner = std::uint32_t(L.b_inner);
        ep.b_offset = e0;
      }
      ep.requant = rq;
      s.compute.op = Opcode::Eltwise;
      s.compute.params = ep;
      s.stores.push_back({root(L.output), dma_rows(Y + e0 * e_, so, n, 1, 0, e_)});
      steps.push_back(std::move(s));
    }
    return steps;
  }

  // Layout ops without a MOVE view (Pad, Expand, Tile, Gather, bilinear Resize...; the others go
  // to gen_moves), costed only: the input is read once and the output written once, in k steps; step i loads its share of the input,
  // one identity vector pass covers the larger of its two shares, and stores its share of
  // the output. DDR bytes are exact; the DDR access pattern is modelled as contiguous on
  // both sides (optimistic for a Transpose's strided side).
  std::vector<Step> gen_layout(const LayerSpec& L) {
    const std::uint64_t Y = addr(L.output);
    // The inputs, read one after the other (a Concat along an inner axis has several).
    std::vector<std::pair<std::string, std::uint64_t>> src;  // tensor, elements it contributes
    for (const auto& in : L.inputs) src.push_back({in, L.inputs.size() == 1 ? L.in_elems : bytes_of(in) / e_});
    auto load_range = [&](Step& s, std::uint64_t r0, std::uint64_t r1, std::uint32_t sram) {
      std::uint64_t base = 0;
      for (const auto& [t, n] : src) {
        const std::uint64_t lo = std::max(r0, base), hi = std::min(r1, base + n);
        if (hi > lo) s.loads.push_back({root(t), dma_rows(addr(t) + (lo - base) * e_, std::uint32_t(sram + (lo - r0) * e_), hi - lo, 1, 0, e_)});
        base += n;
      }
    };
    const std::uint64_t in_total = std::max<std::uint64_t>(L.in_elems, 1), out_total = std::max<std::uint64_t>(L.elems, 1);
    const std::uint64_t big = std::max(in_total, out_total);
    const std::uint64_t chunk = chunk_elems(L, big, 2, 0);
    const std::uint64_t k = (big + chunk - 1) / chunk;
    const std::uint64_t t = chunk * e_;
    const auto o = place({t, t, t, t});
    const std::uint32_t in0 = o[0], in1 = o[1], out0 = o[2], out1 = o[3];
    info_.tile = std::to_string(chunk) + " elems";
    info_.loop_order = "streaming";
    std::vector<Step> steps;
    for (std::uint64_t i = 0; i < k; ++i) {
      // Shares of the input; with fewer input elements than steps (Expand of a small tensor)
      // the first steps load one element each, so step 0 always loads.
      const std::uint64_t r0 = in_total < k ? std::min(i, in_total) : in_total * i / k;
      const std::uint64_t r1 = in_total < k ? std::min(i + 1, in_total) : in_total * (i + 1) / k;
      const std::uint64_t w0 = out_total * i / k, w1 = out_total * (i + 1) / k;
      const std::uint32_t si = i % 2 ? in1 : in0, so = i % 2 ? out1 : out0;
      Step s;
      if (r1 > r0) load_range(s, r0, r1, si);
      isa::ActParams ap;
      ap.op = isa::ActOp::Identity;
      ap.in_addr = si;
      ap.out_addr = so;
      ap.elems = std::uint32_t(std::max(r1 - r0, w1 - w0));
      ap.channels = 1;
      s.compute.op = Opcode::Act;
      s.compute.params = ap;
      if (w1 > w0) s.stores.push_back({root(L.output), dma_rows(Y + w0 * e_, so, w1 - w0, 1, 0, e_)});
      steps.push_back(std::move(s));
    }
    return steps;
  }

  // Layout ops with a strided view (LayerSpec::layout): computed by MOVE, tiled by
  // plan_layout_tiles. Per tile: strided LOADs of each piece's input box into the input slot,
  // one MOVE per piece into the output slot, one STORE of the output range. Double-buffered
  // like every streaming layer (two input and two output slots).
  std::vector<Step> gen_moves(const LayerSpec& L) {
    const std::uint64_t overhead = 4 * opt_.align_bytes;
    if (cap_ < overhead + 4 * std::uint64_t(e_)) too_big(L, overhead + 4 * std::uint64_t(e_));
    const std::uint64_t max_tile = (cap_ - overhead) / (2 * std::uint64_t(e_));  // in + out elements of one buffer
    const auto plan = plan_layout_tiles(L.layout, max_tile, kStreamChunkElems);
    if (!plan) {
      std::uint64_t block = 0;
      for (const auto& p : L.layout) block += p.dims.empty() ? 1 : p.dims.back();
      too_big(L, overhead + 4 * block * std::uint64_t(e_));
    }
    const std::uint64_t in_b = plan->in_slot_elems * e_, out_b = plan->out_slot_elems * e_;
    const auto o = place({in_b, in_b, out_b, out_b});
    info_.tile = plan->describe;
    info_.loop_order = "streaming";
    const std::uint64_t Y = addr(L.output);
    std::vector<Step> steps;
    for (std::size_t i = 0; i < plan->tiles.size(); ++i) {
      const LayoutTile& t = plan->tiles[i];
      const std::uint32_t si = i % 2 ? o[1] : o[0], so = i % 2 ? o[3] : o[2];
      Step s;
      for (const LayoutTile::Load& ld : t.loads) {
        const std::string& in = L.layout[ld.piece].input;
        DmaDesc d;
        d.ddr_addr = addr(in) + ld.in_elem * e_;
        d.sram_addr = std::uint32_t(si + ld.slot_elem * e_);
        d.elem_bytes = e_;
        d.extent = ld.extent;
        d.ddr_stride_bytes = {ld.stride[0] * e_, ld.stride[1] * e_};
        s.loads.push_back({root(in), d});
      }
      for (std::size_t k = 0; k < t.moves.size(); ++k) {
        isa::MoveParams m = t.moves[k];
        m.in_addr = std::uint32_t(si + std::uint64_t(m.in_addr) * e_);
        m.out_addr = std::uint32_t(so + std::uint64_t(m.out_addr) * e_);
        Instruction mv;
        mv.op = Opcode::Move;
        mv.params = m;
        if (k == 0) s.compute = mv;
        else s.more.push_back(mv);
      }
      s.stores.push_back({root(L.output), dma_rows(Y + t.out_first * e_, so, t.out_elems, 1, 0, e_)});
      steps.push_back(std::move(s));
    }
    return steps;
  }

  // HOST: the NPU waits while the host runs a partition. Its inputs are NPU results in DDR,
  // so it first waits for every earlier STORE (a SYNC on the store queue pushes st2cp); the
  // next NPU layer's loads wait for it through the compute queue's order (its SYNC follows).
  void emit_host(const LayerSpec& L) {
    auto& prog = res_.program.instructions;
    info_.tile = "host";
    info_.loop_order = "host";
    info_.steps = 1;
    isa::HostParams hp;
    const std::uint64_t work = L.host_macs + L.host_ops;
    hp.cycles = host_cycles(hw_, work, L.host_rd_bytes + L.host_wr_bytes);
    hp.macs = L.host_macs;
    hp.rd = L.host_rd_bytes;
    hp.wr = L.host_wr_bytes;
    hp.nodes = int(L.covers.size());
    Instruction h;
    h.op = Opcode::Host;
    h.layer = L.name;
    h.params = hp;
    if (!first_layer_) {
      Instruction ss;
      ss.op = Opcode::Sync;
      ss.layer = L.name;
      ss.params = isa::SyncParams{Queue::Store};
      ss.push = {kSt2Cp};
      prog.push_back(ss);
      h.wait = {kSt2Cp};
    }
    prog.push_back(h);
    // The layer after a host layer is not the program's first: it fences as usual.
    first_layer_ = false;
  }

  std::vector<Step> gen_pool(const LayerSpec& L) {
    const ConvGeom& g = L.geom;
    const std::uint64_t C = std::uint64_t(g.c_in);
    auto band_rows = [&](int rows_tile) {
      return std::uint64_t(std::min((rows_tile - 1) * g.stride_h + g.kh, g.h_in));
    };
    const std::uint64_t table = L.requant.empty() ? 0 : opt_.align_bytes;  // int8 global_avg pair
    auto footprint = [&](std::uint64_t ct, int rows_tile) {
      return 2 * align_up(ct * band_rows(rows_tile) * g.w_in * e_, opt_.align_bytes) +
             2 * align_up(ct * std::uint64_t(rows_tile) * g.w_out * e_, opt_.align_bytes) + table;
    };
    std::uint64_t ct = 0;
    int rows_tile = g.h_out;
    if (footprint(1, g.h_out) <= cap_) {
      std::uint64_t lo = 1, hi = C;  // largest ct that fits
      while (lo < hi) {
        const std::uint64_t mid = (lo + hi + 1) / 2;
        if (footprint(mid, g.h_out) <= cap_) lo = mid; else hi = mid - 1;
      }
      ct = std::min(lo, std::max<std::uint64_t>(std::uint64_t(ceil_div(std::int64_t(C), 8)), 1));
    } else {
      if (L.pool == isa::PoolOp::GlobalAvg) too_big(L, footprint(1, g.h_out));
      ct = 1;
      while (rows_tile > 1 && footprint(1, rows_tile) > cap_) rows_tile = (rows_tile + 1) / 2;
      if (footprint(1, rows_tile) > cap_) too_big(L, footprint(1, 1));
    }
    const std::uint64_t in_tile = ct * band_rows(rows_tile) * g.w_in * e_;
    const std::uint64_t out_tile = ct * std::uint64_t(rows_tile) * g.w_out * e_;
    const auto o = place({in_tile, in_tile, out_tile, out_tile, table});
    const std::uint32_t i0 = o[0], i1 = o[1], o0 = o[2], o1 = o[3];
    info_.tile = std::to_string(ct) + "c x " + std::to_string(rows_tile) + "r x " + std::to_string(g.w_out) + "w";
    info_.loop_order = "streaming";
    const std::uint64_t X = addr(L.inputs[0]), Y = addr(L.output);
    const std::uint64_t plane_in = std::uint64_t(g.h_in) * g.w_in * e_;
    const std::uint64_t plane_out = std::uint64_t(g.h_out) * g.w_out * e_;
    std::vector<Step> steps;
    std::uint64_t i = 0;
    for (std::uint64_t c0 = 0; c0 < C; c0 += ct)
      for (int r0 = 0; r0 < g.h_out; r0 += rows_tile, ++i) {
        const std::uint64_t n = std::min(ct, C - c0);
        const int hot = std::min(rows_tile, g.h_out - r0);
        const RowBand band = input_band(g, r0, hot);
        const std::uint32_t si = i % 2 ? i1 : i0, so = i % 2 ? o1 : o0;
        Step s;
        isa::Requant rq;
        add_table(L, s, o[4], rq, i == 0);
        s.loads.push_back({root(L.inputs[0]),
                           dma_rows(X + (c0 * g.h_in + std::uint64_t(band.first_row)) * g.w_in * e_, si,
                               std::uint64_t(band.rows) * g.w_in, n, plane_in, e_)});
        isa::PoolParams pp = band_pool_params(g, band);
        pp.requant = rq;
        pp.op = L.pool;
        pp.in_addr = si;
        pp.out_addr = so;
        pp.c = int(n);
        s.compute.op = Opcode::Pool;
        s.compute.params = pp;
        s.stores.push_back({root(L.output), dma_rows(Y + (c0 * g.h_out + std::uint64_t(r0)) * g.w_out * e_, so,
                                                std::uint64_t(hot) * g.w_out, n, plane_out, e_)});
        steps.push_back(std::move(s));
      }
    return steps;
  }

  // Nearest upsampling by integer factors in a coordinate mode without a MOVE view (the others
  // go to gen_moves): LOAD the input tile once, one vector-unit pass over the output tile, STORE
  // it once. The pass is an identity ACT (Clip to the whole float range) over the output's
  // elements, so the replication is implied by the tile shapes, not computed (functional_problems
  // refuses a run with data); the ACT's in operand is sized like its output (sram_operands), so
  // the input slot is that big. Traffic and vector-unit time are right.
  std::vector<Step> gen_resize(const LayerSpec& L) {
    const ConvGeom& g = L.geom;
    const std::uint64_t C = std::uint64_t(g.c_in);
    const std::uint64_t out_plane_elems = std::uint64_t(g.h_out) * g.w_out;
    auto footprint = [&](std::uint64_t ct, int in_rows) {
      return 4 * align_up(ct * std::uint64_t(in_rows) * L.resize_h * g.w_out * e_, opt_.align_bytes);
    };
    std::uint64_t ct = 1;
    int rows = g.h_in;
    if (footprint(1, g.h_in) <= cap_) {
      const std::uint64_t fit = cap_ / footprint(1, g.h_in);
      ct = std::min({C, std::max<std::uint64_t>(fit, 1),
                     std::max<std::uint64_t>(std::uint64_t(ceil_div(std::int64_t(C), 8)), 1)});
      while (ct > 1 && footprint(ct, g.h_in) > cap_) --ct;
    } else {
      while (rows > 1 && footprint(1, rows) > cap_) rows = (rows + 1) / 2;
      if (footprint(1, rows) > cap_) too_big(L, footprint(1, 1));
    }
    const std::uint64_t slot = ct * std::uint64_t(rows) * L.resize_h * g.w_out * e_;
    const auto o = place({slot, slot, slot, slot});
    const std::uint32_t i0 = o[0], i1 = o[1], o0 = o[2], o1 = o[3];
    info_.tile = std::to_string(ct) + "c x " + std::to_string(rows) + "r in -> x" + std::to_string(L.resize_h) +
                 "," + std::to_string(L.resize_w);
    info_.loop_order = "streaming";
    const std::uint64_t X = addr(L.inputs[0]), Y = addr(L.output);
    std::vector<Step> steps;
    std::uint64_t i = 0;
    for (std::uint64_t c0 = 0; c0 < C; c0 += ct)
      for (int r0 = 0; r0 < g.h_in; r0 += rows, ++i) {
        const std::uint64_t n = std::min(ct, C - c0);
        const int hr = std::min(rows, g.h_in - r0);
        const std::uint32_t si = i % 2 ? i1 : i0, so = i % 2 ? o1 : o0;
        Step s;
        s.loads.push_back({root(L.inputs[0]),
                           dma_rows(X + (c0 * g.h_in + std::uint64_t(r0)) * g.w_in * e_, si, std::uint64_t(hr) * g.w_in,
                               n, std::uint64_t(g.h_in) * g.w_in * e_, e_)});
        const std::uint64_t out_rows = std::uint64_t(hr) * L.resize_h;
        isa::ActParams ap = copy_act();
        ap.in_addr = si;
        ap.out_addr = so;
        ap.elems = std::uint32_t(n * out_rows * g.w_out);
        ap.channels = int(n);
        s.compute.op = Opcode::Act;
        s.compute.params = ap;
        s.stores.push_back({root(L.output),
                            dma_rows(Y + (c0 * out_plane_elems + std::uint64_t(r0) * L.resize_h * g.w_out) * e_, so,
                                out_rows * g.w_out, n, out_plane_elems * e_, e_)});
        steps.push_back(std::move(s));
      }
    return steps;
  }

  // The vector-unit pass that moves values unchanged (concat copies, nearest upsampling): an
  // ACT Clip to the whole float range; in int8 programs of quantised graphs an identity ACT
  // without requant, which the int8 data path runs as a byte copy.
  isa::ActParams copy_act() const {
    isa::ActParams ap;
    if (lg_.int8_execution) {
      ap.op = isa::ActOp::Identity;
    } else {
      ap.op = isa::ActOp::Clip;
      ap.alpha = std::numeric_limits<float>::lowest();
      ap.beta = std::numeric_limits<float>::max();
    }
    return ap;
  }

  // Concat inputs that could not be placed in the concat buffer: copied through the vector
  // unit (identity ACT: Clip to the whole float range; in int8 programs of quantised graphs an
  // identity ACT without requant, which the int8 data path runs as a byte copy).
  std::vector<Step> gen_copy(const LayerSpec& L) {
    const std::uint64_t Y = addr(L.output);
    std::vector<Step> steps;
    info_.loop_order = "streaming";
    // One set of four slots (two input, two output) for every input: the steps run on across
    // inputs and the double-buffer tokens pair step i with step i-2, so step i must reuse
    // step i-2's slot even when the input changes (slots placed per input raced: an input's
    // first LOAD overwrote the slot the previous input's last copy was still reading).
    std::vector<std::uint64_t> chunks;
    std::uint64_t widest = 0;
    for (const std::string& in : L.inputs) {
      chunks.push_back(chunk_elems(L, bytes_of(in) / std::uint64_t(e_), 2, 0));
      widest = std::max(widest, chunks.back());
    }
    const std::uint64_t used = info_.sram_bytes;
    const auto o = place({widest * e_, widest * e_, widest * e_, widest * e_});
    const std::uint32_t in0 = o[0], in1 = o[1], out0 = o[2], out1 = o[3];
    info_.sram_bytes = std::max<std::uint64_t>(info_.sram_bytes, used);
    std::uint64_t i = 0;
    for (std::size_t k = 0; k < L.inputs.size(); ++k) {
      const std::string& in = L.inputs[k];
      const std::uint64_t total = bytes_of(in) / std::uint64_t(e_);
      const std::uint64_t chunk = chunks[k];
      info_.tile = std::to_string(chunk) + " elems";
      for (std::uint64_t e0 = 0; e0 < total; e0 += chunk, ++i) {
        const std::uint64_t n = std::min(chunk, total - e0);
        const std::uint32_t si = i % 2 ? in1 : in0, so = i % 2 ? out1 : out0;
        Step s;
        s.loads.push_back({root(in), dma_rows(addr(in) + e0 * e_, si, n, 1, 0, e_)});
        isa::ActParams ap = copy_act();
        ap.in_addr = si;
        ap.out_addr = so;
        ap.elems = std::uint32_t(n);
        s.compute.op = Opcode::Act;
        s.compute.params = ap;
        s.stores.push_back({root(L.output), dma_rows(Y + L.dest_offsets[k] + e0 * e_, so, n, 1, 0, e_)});
        steps.push_back(std::move(s));
      }
    }
    return steps;
  }

  std::uint64_t bytes_of(const std::string& t) const { return lg_.bytes.at(t); }

  // ---- token assignment and emission ----
  void emit(const std::string& layer, std::vector<Step>& steps) {
    auto& prog = res_.program.instructions;
    const std::size_t n = steps.size();
    if (n == 0) return;
    std::vector<bool> has_load(n), has_store(n);
    for (std::size_t i = 0; i < n; ++i) {
      has_load[i] = !steps[i].loads.empty();
      has_store[i] = !steps[i].stores.empty();
    }
    if (!has_load[0]) throw std::logic_error("codegen: layer " + layer + " starts without a LOAD");
    if (!first_layer_) {
      Instruction sc;
      sc.op = Opcode::Sync;
      sc.layer = layer;
      sc.params = isa::SyncParams{Queue::Compute};
      sc.push = {kCp2Ld};
      prog.push_back(sc);
      Instruction ss;
      ss.op = Opcode::Sync;
      ss.layer = layer;
      ss.params = isa::SyncParams{Queue::Store};
      ss.push = {kSt2Ld};
      prog.push_back(ss);
    }
    for (std::size_t i = 0; i < n; ++i) {
      Step& s = steps[i];
      for (std::size_t k = 0; k < s.loads.size(); ++k) {
        Instruction ld;
        ld.op = Opcode::Load;
        ld.layer = layer;
        ld.tensor = s.loads[k].tensor;
        ld.params = s.loads[k].desc;
        if (k == 0) {
          if (i == 0 && !first_layer_) ld.wait = {kCp2Ld, kSt2Ld};
          else if (i >= 2) ld.wait = {kCp2Ld};
        }
        if (k + 1 == s.loads.size()) ld.push = {kLd2Cp};
        prog.push_back(std::move(ld));
      }
      // The step's compute instructions in order: the first waits, the last pushes.
      Instruction& c = s.compute;
      Instruction& last = s.more.empty() ? c : s.more.back();
      c.layer = layer;
      if (has_load[i]) c.wait.push_back(kLd2Cp);
      if (i >= 2 && has_store[i - 2]) c.wait.push_back(kSt2Cp);
      if (has_store[i]) last.push.push_back(kCp2St);
      if (i + 2 < n && has_load[i + 2]) last.push.push_back(kCp2Ld);
      prog.push_back(std::move(c));
      for (Instruction& m : s.more) {
        m.layer = layer;
        prog.push_back(std::move(m));
      }
      for (std::size_t k = 0; k < s.stores.size(); ++k) {
        Instruction st;
        st.op = Opcode::Store;
        st.layer = layer;
        st.tensor = s.stores[k].tensor;
        st.params = s.stores[k].desc;
        if (k == 0) st.wait = {kCp2St};
        if (k + 1 == s.stores.size() && i + 2 < n) st.push = {kSt2Cp};
        prog.push_back(std::move(st));
      }
    }
    first_layer_ = false;
  }

  const LoweredGraph& lg_;
  const HwConfig& hw_;
  TilingOptions opt_;
  int e_;
  std::uint64_t cap_;
  std::vector<TooBig> too_big_;  // layers whose minimal tile does not fit (run() reports them)
  CodegenResult res_;
  LayerCodegenInfo info_;
  std::map<std::string, std::uint64_t> base_;
  bool first_layer_ = true;
};

}  // namespace

DdrBankGeometry ddr_bank_geometry(const DdrConfig& ddr) {
  const std::uint64_t row_bytes = std::uint64_t(std::max<std::int64_t>(ddr.columns, 1)) * (ddr.bus_width_bits / 8);
  const int banks = ddr.bank_groups * ddr.banks_per_group;
  DdrBankGeometry fallback{std::max<std::uint64_t>(row_bytes, 64), std::max(banks, 1)};
  const std::string& m = ddr.address_mapping;
  if (m.size() % 2 != 0) return fallback;
  // Fields LSB first with their widths in bits.
  std::vector<std::pair<std::string, int>> fields;
  for (std::size_t i = m.size(); i >= 2; i -= 2) {
    const std::string f = m.substr(i - 2, 2);
    int bits = -1;
    if (f == "co") bits = ceil_log2(row_bytes);
    else if (f == "bg") bits = ceil_log2(std::uint64_t(ddr.bank_groups));
    else if (f == "ba") bits = ceil_log2(std::uint64_t(ddr.banks_per_group));
    else if (f == "ra") bits = ceil_log2(std::uint64_t(ddr.ranks));
    else if (f == "ch") bits = ceil_log2(std::uint64_t(ddr.channels));
    else if (f == "ro") bits = ceil_log2(std::uint64_t(std::max<std::int64_t>(ddr.rows, 1)));
    if (bits < 0) return fallback;
    fields.emplace_back(f, bits);
  }
  int below = 0, lowest = -1, highest = -1;
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (fields[i].first == "ba" || fields[i].first == "bg") {
      if (lowest < 0) lowest = int(i);
      highest = int(i);
    }
  if (lowest < 0) return fallback;
  for (int i = 0; i < lowest; ++i) below += fields[std::size_t(i)].second;
  int span = 0;
  for (int i = lowest; i <= highest; ++i) span += fields[std::size_t(i)].second;
  DdrBankGeometry g;
  g.bank_stride_bytes = std::uint64_t(1) << below;
  g.bank_slots = 1 << std::min(span, 16);
  return g;
}

CodegenResult generate(const LoweredGraph& lowered, const HwConfig& hw, const TilingOptions& options,
                       const std::string& program_name, const std::string& strategy) {
  return Generator(lowered, hw, options).run(program_name, strategy);
}

}  // namespace npu::compiler
