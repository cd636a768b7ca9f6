// Depth-first stack emission: the weights once, then band by band and layer by layer the
// LOADs of the layer's DDR operands, one CONV/POOL over the band's rows (its own edge padding),
// and the STOREs of tensors that leave the stack. Tokens come from the memory hazards
// (hazard_tokens.cpp). Reference: docs/depth_first.md.
#include <stdexcept>
#include <utility>

#include "backend/schedule/depth_first/stack_plan.hpp"
#include "npu/compiler/backend/codegen/dma_descriptors.hpp"

namespace npu::compiler::depth_first {

namespace {

using isa::Instruction;
using isa::Opcode;

// MOVE of `rows` full-width rows of every one of `c` channels from a packed [c, src_rows, w]
// tile at `src` to a packed [c, dst_rows, w] tile at `dst` (both addresses at the first row
// moved): rank 2, rows x w contiguous per channel.
Instruction move_rows(const std::string& layer, std::uint32_t src, int src_rows, std::uint32_t dst, int dst_rows,
                      int rows, int c, int w) {
  isa::MoveParams mp;
  mp.in_addr = src;
  mp.out_addr = dst;
  mp.rank = 2;
  mp.extent = {std::uint32_t(rows) * std::uint32_t(w), std::uint32_t(c), 1, 1, 1, 1};
  mp.in_stride = {1, std::uint32_t(src_rows) * std::uint32_t(w), 0, 0, 0, 0};
  mp.out_stride = {1, std::uint32_t(dst_rows) * std::uint32_t(w), 0, 0, 0, 0};
  Instruction mv;
  mv.op = Opcode::Move;
  mv.layer = layer;
  mv.params = mp;
  return mv;
}

// MOVEs of nearest upsampling by (fh, fw) (out[y][x] = in[y / fh][x / fw]): output rows `o`
// into a packed [c, o.rows(), w * fw] tile at `dst` from input rows `in` of a packed
// [c, in.rows(), w] tile at `src`. Whole groups of fh output rows of one input row take one
// MOVE; a group the band cuts (at its ends) takes one MOVE of its rows.
void upsample_moves(const std::string& layer, std::uint32_t src, RowRange in, std::uint32_t dst, RowRange o, int c,
                    int w, int fh, int fw, int e, std::vector<Instruction>& code) {
  const std::uint32_t wo = std::uint32_t(w) * std::uint32_t(fw), in_plane = std::uint32_t(in.rows()) * std::uint32_t(w),
                      out_plane = std::uint32_t(o.rows()) * wo;
  for (int y = o.lo; y < o.hi;) {
    const int r = y / fh;
    isa::MoveParams mp;
    mp.in_addr = std::uint32_t(src + std::uint64_t(r - in.lo) * std::uint64_t(w) * std::uint64_t(e));
    mp.out_addr = std::uint32_t(dst + std::uint64_t(y - o.lo) * wo * std::uint64_t(e));
    const int groups = y == r * fh ? (o.hi - y) / fh : 0;
    if (groups > 0) {  // dims innermost first: fw copies, w columns, fh rows, groups, channels
      mp.rank = 5;
      mp.extent = {std::uint32_t(fw), std::uint32_t(w), std::uint32_t(fh), std::uint32_t(groups), std::uint32_t(c), 1};
      mp.in_stride = {0, 1, 0, std::uint32_t(w), in_plane, 0};
      mp.out_stride = {1, std::uint32_t(fw), wo, std::uint32_t(fh) * wo, out_plane, 0};
      y += groups * fh;
    } else {
      const int rows = std::min((r + 1) * fh, o.hi) - y;
      mp.rank = 4;
      mp.extent = {std::uint32_t(fw), std::uint32_t(w), std::uint32_t(rows), std::uint32_t(c), 1, 1};
      mp.in_stride = {0, 1, 0, in_plane, 0, 0};
      mp.out_stride = {1, std::uint32_t(fw), wo, out_plane, 0, 0};
      y += rows;
    }
    Instruction mv;
    mv.op = Opcode::Move;
    mv.layer = layer;
    mv.params = mp;
    code.push_back(std::move(mv));
  }
}

// Emits one stack: holds the plan, the instructions so far and the per-layer report rows.
class StackEmitter {
 public:
  StackEmitter(const StackPlan& plan, const EmitContext& ctx)
      : plan_(plan), ctx_(ctx), e_(ctx.act_bytes), info_(plan.layers.size()),
        input_loaded_(plan.inputs.size(), -1), weights_loaded_(plan.layers.size(), false) {}

  void run(bool first, std::vector<Instruction>& prog, std::vector<LayerCodegenInfo>& infos) {
    start_infos();
    for (int b = 0; b < plan_.summary.bands; ++b)
      for (std::size_t k = 0; k < plan_.layers.size(); ++k) emit_layer_band(k, b);
    finish_infos();
    add_hazard_tokens(code_, ctx_.dtype);
    if (code_.empty() || code_.front().op != Opcode::Load)
      throw std::logic_error("depth-first: stack starts without a LOAD");
    if (!first) fence(prog);
    for (auto& in : code_) prog.push_back(std::move(in));
    for (auto& i : info_) infos.push_back(std::move(i));
  }

 private:
  void dma_ins(Opcode op, const std::string& layer, const std::string& tensor, const isa::DmaDesc& d) {
    Instruction in;
    in.op = op;
    in.layer = layer;
    in.tensor = ctx_.root(tensor);
    in.params = d;
    code_.push_back(std::move(in));
  }
  // Rows [r.lo, r.hi) of every channel of a [c, h, w] tensor.
  isa::DmaDesc band_desc(const std::string& tensor, int c, int h, int w, RowRange r, std::uint32_t sram) const {
    const std::uint64_t plane = std::uint64_t(h) * w * e_;
    return dma_rows(ctx_.addr(tensor) + std::uint64_t(r.lo) * w * e_, sram, std::uint64_t(r.rows()) * w,
                    std::uint64_t(c), plane, e_);
  }

  void start_infos() {
    for (std::size_t k = 0; k < plan_.layers.size(); ++k) {
      const LayerSpec& L = *plan_.layers[k].spec;
      info_[k].layer = L.name;
      info_[k].loop_order = "depth-first";
      info_[k].sram_bytes = plan_.summary.sram_bytes;
      info_[k].stack = plan_.summary.id;
      info_[k].overlap = to_string(plan_.summary.overlap);
      info_[k].weights = plan_.summary.weights_streamed ? "streamed" : "resident";
    }
  }

  void finish_infos() {
    const int bands = plan_.summary.bands;
    for (std::size_t k = 0; k < plan_.layers.size(); ++k) {
      const LayerSpec& L = *plan_.layers[k].spec;
      info_[k].recompute_macs -= std::min(info_[k].recompute_macs, L.macs);
      if (L.kind != LayerKind::Conv) info_[k].array_cycles = 0;  // vector layers: the report's own formula
      info_[k].tile = "stack " + std::to_string(plan_.summary.id) + ": " + std::to_string(bands) +
                      (bands == 1 ? " band of " : " bands of ") + std::to_string(plan_.summary.band_rows) +
                      " rows of " + plan_.summary.layers.back() + ", " + std::to_string(info_[k].band_rows) +
                      " rows here (" + info_[k].overlap + ")";
    }
  }

  // The fence every layer starts with (codegen.hpp): no LOAD before every earlier compute
  // and STORE has finished.
  void fence(std::vector<Instruction>& prog) {
    Instruction sc;
    sc.op = Opcode::Sync;
    sc.layer = code_.front().layer;
    sc.params = isa::SyncParams{isa::Queue::Compute};
    sc.push = {isa::kCp2Ld};
    Instruction ss = sc;
    ss.params = isa::SyncParams{isa::Queue::Store};
    ss.push = {isa::kSt2Ld};
    prog.push_back(sc);
    prog.push_back(ss);
    code_.front().wait.insert(code_.front().wait.begin(), {isa::kCp2Ld, isa::kSt2Ld});
  }

  // Weights and biases, resident for the stack: loaded in band 0 just before the layer's
  // first compute, so band 0's input is not queued behind every layer's weights. Streamed
  // (StackSummary::weights_streamed): loaded again before each band's compute of the layer,
  // into its slot (the hazard tokens make it wait for the slot's previous reader).
  // Streamed weights of a dense Conv come in output-channel groups (weight_group_channels):
  // channels [co0, co0 + n) of the weights and bias here; the whole layer for resident weights.
  static int group_channels(const StackLayer& sl) {
    return sl.group_channels > 0 ? std::min(sl.group_channels, sl.spec->geom.c_out) : sl.spec->geom.c_out;
  }
  void load_weight_group(const LayerSpec& L, const StackLayer& sl, int co0, int n) {
    const ConvGeom& g = L.geom;
    const std::uint64_t per_channel = std::uint64_t(g.cin_per_group()) * g.kh * g.kw;
    dma_ins(Opcode::Load, L.name, L.weight,
            dma_rows(ctx_.addr(L.weight) + std::uint64_t(co0) * per_channel * e_,
                     std::uint32_t(sl.w_addr + std::uint64_t(co0) * per_channel * e_), std::uint64_t(n) * per_channel,
                     1, 0, e_));
    if (!L.bias.empty())
      dma_ins(Opcode::Load, L.name, L.bias,
              dma_rows(ctx_.addr(L.bias) + std::uint64_t(co0) * isa::kParamElemBytes,
                       std::uint32_t(sl.bias_addr + std::uint64_t(co0) * isa::kParamElemBytes), std::uint64_t(n), 1, 0,
                       isa::kParamElemBytes));
  }
  // The requantisation table, and the weights of the first (or only) channel group.
  void load_weights(const LayerSpec& L, const StackLayer& sl, bool first_time) {
    if (!L.requant.empty() && first_time)  // int8 requantisation table (CONV pairs, the ELTWISE add words or mul pair)
      dma_ins(Opcode::Load, L.name, L.requant,
              dma_rows(ctx_.addr(L.requant), sl.requant_addr, sl.requant_bytes / isa::kParamElemBytes, 1, 0,
                       isa::kParamElemBytes));
    if (L.kind != LayerKind::Conv) return;
    load_weight_group(L, sl, 0, group_channels(sl));
  }

  void load_input(int i, int b, const std::string& layer) {
    if (input_loaded_[std::size_t(i)] == b) return;
    input_loaded_[std::size_t(i)] = b;
    const InputTile& it = plan_.inputs[std::size_t(i)];
    dma_ins(Opcode::Load, layer, it.tensor,
            band_desc(it.tensor, it.c, it.h, it.w, it.rows[std::size_t(b)], plan_.buffers[std::size_t(it.buffer)].at(b)));
  }

  // The tile an operand reads in place, or a piece is MOVEd from: a shared input tile or a
  // stack tensor's tile (its rows in band b, its buffer).
  std::pair<RowRange, int> source(int input, int produced, int b) const {
    return input >= 0 ? std::make_pair(plan_.inputs[std::size_t(input)].rows[std::size_t(b)],
                                       plan_.inputs[std::size_t(input)].buffer)
                      : std::make_pair(plan_.tensors[std::size_t(produced)].rows[std::size_t(b)],
                                       plan_.tensors[std::size_t(produced)].buffer);
  }
  std::uint32_t operand_addr(const Operand& op, int b) const {
    if (op.on_chip) return plan_.buffers[std::size_t(source(op.input, op.produced, b).second)].at(b);
    // LOADed or gathered into the operand's own buffer
    return plan_.buffers[std::size_t(op.buffer)].at(b);
  }

  // Band b of layer k: the carried rows, the operands, the compute, the STORE.
  void emit_layer_band(std::size_t k, int b) {
    const StackLayer& sl = plan_.layers[k];
    const LayerSpec& L = *sl.spec;
    const StackTensor& t = plan_.tensors[std::size_t(sl.out)];
    const RowRange tile = t.rows[std::size_t(b)];  // rows the tile holds after this band's step
    const RowRange o = t.computed[std::size_t(b)];  // rows computed now (== tile under Recompute)
    const int carried = t.cached_rows(b);           // Cache: rows copied from band b-1's tile
    if ((!weights_loaded_[k] || plan_.summary.weights_streamed) && !o.empty()) {
      load_weights(L, sl, !weights_loaded_[k]);
      weights_loaded_[k] = true;
    }
    if (tile.empty()) return;
    const std::uint32_t tile_addr = plan_.buffers[std::size_t(t.buffer)].at(b);
    if (carried > 0) {
      const RowRange prev = t.rows[std::size_t(b - 1)];
      const std::uint32_t from = std::uint32_t(plan_.buffers[std::size_t(t.buffer)].at(b - 1) +
                                               std::uint64_t(tile.lo - prev.lo) * std::uint64_t(t.w) * std::uint64_t(e_));
      code_.push_back(move_rows(L.name, from, prev.rows(), tile_addr, tile.rows(), carried, t.c, t.w));
    }
    if (o.empty()) return;
    for (const Operand* op : {&sl.in, &sl.res}) load_operand(*op, b, L.name);
    const RowRange in_rows = sl.in.rows[std::size_t(b)];
    if (!(in_rows == layer_input_rows(sl, o)))
      throw std::logic_error("depth-first: band rows of " + L.name + " disagree with its receptive field");
    const RowBand band = is_upsample(L) ? RowBand{in_rows.lo, in_rows.rows()} : input_band(sl.geom, o.lo, o.rows());
    // Computed rows go straight into the tile, or (Cache, with rows carried) into the
    // scratch tile and then after the carried rows.
    const std::uint32_t out_addr = carried > 0 ? plan_.buffers[std::size_t(t.scratch)].at(b) : tile_addr;
    push_compute(sl, compute(sl, b, o, band, out_addr));
    if (carried > 0)
      code_.push_back(move_rows(L.name, out_addr, o.rows(),
                                std::uint32_t(tile_addr + std::uint64_t(carried) * std::uint64_t(t.w) * std::uint64_t(e_)),
                                tile.rows(), o.rows(), t.c, t.w));
    info_[k].steps += 1;
    info_[k].band_rows = std::max(info_[k].band_rows, o.rows());
    info_[k].array_cycles += band_cycles(L, sl.geom, o.rows(), band.rows, ctx_.array, ctx_.lanes);
    info_[k].recompute_macs += band_macs(L, sl.geom, o.rows());
    if (t.stored) dma_ins(Opcode::Store, L.name, t.name, band_desc(t.name, t.c, t.h, t.w, o, out_addr));
  }

  // An operand's rows of band b: its shared input tile (LOADed by its first reader of the
  // band), a LOAD into its own buffer, or its pieces gathered at their channel offsets.
  void load_operand(const Operand& op, int b, const std::string& layer) {
    if (op.tensor.empty()) return;
    if (op.input >= 0) load_input(op.input, b, layer);
    for (const Piece& pc : op.pieces)
      if (pc.input >= 0) load_input(pc.input, b, layer);
    if (op.on_chip) return;
    const RowRange rows = op.rows[std::size_t(b)];
    const std::uint32_t buf = plan_.buffers[std::size_t(op.buffer)].at(b);
    if (!op.gathered()) {
      dma_ins(Opcode::Load, layer, op.tensor, band_desc(op.tensor, op.c, op.h, op.w, rows, buf));
      return;
    }
    // Gathered: each piece at its channel offset of the packed [C, rows, W] tile.
    const std::uint64_t plane = std::uint64_t(rows.rows()) * std::uint64_t(op.w);
    for (const Piece& pc : op.pieces) {
      const std::uint32_t dst = std::uint32_t(buf + std::uint64_t(pc.c_offset) * plane * std::uint64_t(e_));
      if (pc.produced < 0 && pc.input < 0) {
        dma_ins(Opcode::Load, layer, pc.tensor, band_desc(pc.tensor, pc.c, op.h, op.w, rows, dst));
        continue;
      }
      // MOVEd from the tile of the stack tensor or shared input holding these rows.
      const auto [have, src_buffer] = source(pc.input, pc.produced, b);
      const std::uint32_t from = std::uint32_t(plan_.buffers[std::size_t(src_buffer)].at(b) +
                                               std::uint64_t(rows.lo - have.lo) * std::uint64_t(op.w) * std::uint64_t(e_));
      code_.push_back(move_rows(layer, from, have.rows(), dst, rows.rows(), rows.rows(), pc.c, op.w));
    }
  }

  // The band's compute instruction (an upsample's MOVEs but the last go to the code first).
  Instruction compute(const StackLayer& sl, int b, RowRange o, const RowBand& band, std::uint32_t out_addr) {
    const LayerSpec& L = *sl.spec;
    const ConvGeom& g = sl.geom;
    Instruction c;
    c.layer = L.name;
    if (is_upsample(L)) {
      std::vector<Instruction> moves;
      upsample_moves(L.name, operand_addr(sl.in, b), sl.in.rows[std::size_t(b)], out_addr, o, g.c_in, g.w_in,
                     L.resize_h, L.resize_w, e_, moves);
      c = std::move(moves.back());
      moves.pop_back();
      for (auto& m : moves) code_.push_back(std::move(m));
    } else if (L.kind == LayerKind::Conv) {
      c.op = Opcode::Conv;
      c.params = conv_params(sl, b, o, band, out_addr);
    } else if (L.kind == LayerKind::Eltwise) {
      isa::EltwiseParams ep;
      ep.op = L.eltwise;
      ep.a_addr = operand_addr(sl.in, b);
      ep.b_addr = operand_addr(sl.res, b);
      ep.out_addr = out_addr;
      ep.elems = std::uint32_t(std::uint64_t(g.c_out) * std::uint64_t(o.rows()) * std::uint64_t(g.w_out));
      if (!L.requant.empty()) {
        ep.requant = L.int8;
        ep.requant.addr = sl.requant_addr;
      }
      c.op = Opcode::Eltwise;
      c.params = ep;
    } else {
      isa::PoolParams pp = band_pool_params(g, band);
      pp.op = L.pool;
      if (L.pool == isa::PoolOp::AvgPad) pp.requant.in_zp = pp.requant.out_zp = L.int8.in_zp;  // int8 padding code
      pp.in_addr = operand_addr(sl.in, b);
      pp.out_addr = out_addr;
      pp.c = g.c_in;
      if (pp.h_out() != o.rows()) throw std::logic_error("depth-first: POOL band of " + L.name + " has wrong height");
      c.op = Opcode::Pool;
      c.params = pp;
    }
    return c;
  }

  isa::ConvParams conv_params(const StackLayer& sl, int b, RowRange o, const RowBand& band, std::uint32_t out_addr) const {
    const LayerSpec& L = *sl.spec;
    const ConvGeom& g = sl.geom;
    isa::ConvParams cp = band_conv_params(g, band);
    cp.in_addr = operand_addr(sl.in, b);
    cp.w_addr = sl.w_addr;
    cp.out_addr = out_addr;
    cp.c_in = g.c_in;
    cp.c_out = g.c_out;
    cp.group = g.group;
    if (!L.bias.empty()) {
      cp.epilogue.has_bias = true;
      cp.epilogue.bias_addr = sl.bias_addr;
    }
    if (!L.residual.empty()) {
      cp.epilogue.has_residual = true;
      cp.epilogue.residual_addr = operand_addr(sl.res, b);
    }
    cp.epilogue.act = L.act;
    cp.epilogue.act_alpha = L.act_alpha;
    cp.epilogue.act_beta = L.act_beta;
    if (!L.requant.empty()) {
      cp.epilogue.requant = L.int8;
      cp.epilogue.requant.addr = sl.requant_addr;
    }
    if (cp.h_out() != o.rows()) throw std::logic_error("depth-first: CONV band of " + L.name + " has wrong height");
    return cp;
  }

  // The compute instruction, or for streamed weights in output-channel groups one CONV per
  // group, each after its group's weights: channels [co0, co0 + n) of the output (and
  // residual) tile are n planes of the [C, rows, W] band from plane co0; bias and int8
  // requantisation pairs from entry co0.
  void push_compute(const StackLayer& sl, Instruction c) {
    const LayerSpec& L = *sl.spec;
    const ConvGeom& g = sl.geom;
    if (c.op != Opcode::Conv || group_channels(sl) >= g.c_out) {
      code_.push_back(std::move(c));
      return;
    }
    const isa::ConvParams whole = std::get<isa::ConvParams>(c.params);
    const int per = group_channels(sl);
    const std::uint64_t plane = std::uint64_t(whole.h_out()) * std::uint64_t(whole.w_out()) * std::uint64_t(e_);
    const std::uint64_t per_channel = std::uint64_t(g.cin_per_group()) * g.kh * g.kw * std::uint64_t(e_);
    for (int co0 = 0; co0 < g.c_out; co0 += per) {
      const int n = std::min(per, g.c_out - co0);
      if (co0 > 0) load_weight_group(L, sl, co0, n);
      isa::ConvParams part = whole;
      part.c_out = n;
      part.w_addr = std::uint32_t(whole.w_addr + std::uint64_t(co0) * per_channel);
      part.out_addr = std::uint32_t(whole.out_addr + std::uint64_t(co0) * plane);
      if (part.epilogue.has_bias)
        part.epilogue.bias_addr = std::uint32_t(whole.epilogue.bias_addr + std::uint64_t(co0) * isa::kParamElemBytes);
      if (part.epilogue.has_residual)
        part.epilogue.residual_addr = std::uint32_t(whole.epilogue.residual_addr + std::uint64_t(co0) * plane);
      if (!L.requant.empty())
        part.epilogue.requant.addr =
            std::uint32_t(whole.epilogue.requant.addr + std::uint64_t(co0) * isa::Requant::kPairBytes);
      Instruction ci = c;
      ci.params = part;
      code_.push_back(std::move(ci));
    }
  }

  const StackPlan& plan_;
  const EmitContext& ctx_;
  const int e_;
  std::vector<Instruction> code_;
  std::vector<LayerCodegenInfo> info_;
  std::vector<int> input_loaded_;    // band whose rows each input tile holds
  std::vector<bool> weights_loaded_;
};

}  // namespace

void emit_stack(const StackPlan& plan, const EmitContext& ctx, bool first, std::vector<Instruction>& prog,
                std::vector<LayerCodegenInfo>& infos) {
  StackEmitter(plan, ctx).run(first, prog, infos);
}

}  // namespace npu::compiler::depth_first
