// Depth-first stack emission: the weights once, then band by band and layer by layer the
// LOADs of the layer's DDR operands, one CONV/POOL over the band's rows (its own edge padding),
// and the STOREs of tensors that leave the stack. Tokens come from the memory hazards
// (hazard_tokens.cpp). Reference: docs/depth_first.md.
#include <stdexcept>
#include <utility>

#include "backend/schedule/depth_first/stack_plan.hpp"

namespace npu::compiler::depth_first {

namespace {

using isa::Instruction;
using isa::Opcode;

// rows x row_elems elements, rows `stride_bytes` apart in DDR, packed in SRAM; contiguous
// rows merged into one run (as codegen.cpp's dma()).
isa::DmaDesc dma(std::uint64_t ddr, std::uint32_t sram, std::uint64_t row_elems, std::uint64_t rows,
                 std::uint64_t stride_bytes, int elem_bytes) {
  if (rows > 1 && stride_bytes == row_elems * std::uint64_t(elem_bytes)) {
    row_elems *= rows;
    rows = 1;
  }
  if (row_elems > 0xffffffffull || rows > 0xffffffffull)
    throw std::logic_error("depth-first: DMA extent does not fit 32 bits");
  isa::DmaDesc d;
  d.ddr_addr = ddr;
  d.sram_addr = sram;
  d.elem_bytes = elem_bytes;
  d.extent = {std::uint32_t(row_elems), std::uint32_t(rows), 1};
  d.ddr_stride_bytes = {rows > 1 ? stride_bytes : 0, 0};
  return d;
}

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

}  // namespace

void emit_stack(const StackPlan& plan, const EmitContext& ctx, bool first, std::vector<Instruction>& prog,
                std::vector<LayerCodegenInfo>& infos) {
  const int e = ctx.act_bytes;
  std::vector<Instruction> code;
  auto dma_ins = [&](Opcode op, const std::string& layer, const std::string& tensor, const isa::DmaDesc& d) {
    Instruction in;
    in.op = op;
    in.layer = layer;
    in.tensor = ctx.root(tensor);
    in.params = d;
    code.push_back(std::move(in));
  };
  // Rows [r.lo, r.hi) of every channel of a [c, h, w] tensor.
  auto band_desc = [&](const std::string& tensor, int c, int h, int w, RowRange r, std::uint32_t sram) {
    const std::uint64_t plane = std::uint64_t(h) * w * e;
    return dma(ctx.addr(tensor) + std::uint64_t(r.lo) * w * e, sram, std::uint64_t(r.rows()) * w, std::uint64_t(c),
               plane, e);
  };

  const int bands = plan.summary.bands;
  std::vector<LayerCodegenInfo> info(plan.layers.size());
  for (std::size_t k = 0; k < plan.layers.size(); ++k) {
    const StackLayer& sl = plan.layers[k];
    const LayerSpec& L = *sl.spec;
    info[k].layer = L.name;
    info[k].loop_order = "depth-first";
    info[k].sram_bytes = plan.summary.sram_bytes;
    info[k].stack = plan.summary.id;
    info[k].overlap = to_string(plan.summary.overlap);
    info[k].weights = plan.summary.weights_streamed ? "streamed" : "resident";
  }
  // Weights and biases, resident for the stack: loaded in band 0 just before the layer's
  // first compute, so band 0's input is not queued behind every layer's weights. Streamed
  // (StackSummary::weights_streamed): loaded again before each band's compute of the layer,
  // into its slot (the hazard tokens make it wait for the slot's previous reader).
  // Streamed weights of a dense Conv come in output-channel groups (weight_group_channels):
  // channels [co0, co0 + n) of the weights and bias here; the whole layer for resident weights.
  auto group_channels = [&](const StackLayer& sl) {
    return sl.group_channels > 0 ? std::min(sl.group_channels, sl.spec->geom.c_out) : sl.spec->geom.c_out;
  };
  auto load_weight_group = [&](const LayerSpec& L, const StackLayer& sl, int co0, int n) {
    const ConvGeom& g = L.geom;
    const std::uint64_t per_channel = std::uint64_t(g.cin_per_group()) * g.kh * g.kw;
    dma_ins(Opcode::Load, L.name, L.weight,
            dma(ctx.addr(L.weight) + std::uint64_t(co0) * per_channel * e,
                std::uint32_t(sl.w_addr + std::uint64_t(co0) * per_channel * e), std::uint64_t(n) * per_channel, 1, 0, e));
    if (!L.bias.empty())
      dma_ins(Opcode::Load, L.name, L.bias,
              dma(ctx.addr(L.bias) + std::uint64_t(co0) * isa::kParamElemBytes,
                  std::uint32_t(sl.bias_addr + std::uint64_t(co0) * isa::kParamElemBytes), std::uint64_t(n), 1, 0,
                  isa::kParamElemBytes));
  };
  // The requantisation table, and the weights of the first (or only) channel group.
  auto load_weights = [&](const LayerSpec& L, const StackLayer& sl, bool first_time) {
    if (!L.requant.empty() && first_time)  // int8 requantisation table (CONV pairs, the ELTWISE add words or mul pair)
      dma_ins(Opcode::Load, L.name, L.requant,
              dma(ctx.addr(L.requant), sl.requant_addr, sl.requant_bytes / isa::kParamElemBytes, 1, 0,
                  isa::kParamElemBytes));
    if (L.kind != LayerKind::Conv) return;
    load_weight_group(L, sl, 0, group_channels(sl));
  };

  std::vector<int> input_loaded(plan.inputs.size(), -1);  // band whose rows each input tile holds
  auto load_input = [&](int i, int b, const std::string& layer) {
    if (input_loaded[std::size_t(i)] == b) return;
    input_loaded[std::size_t(i)] = b;
    const InputTile& it = plan.inputs[std::size_t(i)];
    dma_ins(Opcode::Load, layer, it.tensor,
            band_desc(it.tensor, it.c, it.h, it.w, it.rows[std::size_t(b)], plan.buffers[std::size_t(it.buffer)].at(b)));
  };
  std::vector<bool> weights_loaded(plan.layers.size(), false);
  for (int b = 0; b < bands; ++b) {
    for (std::size_t k = 0; k < plan.layers.size(); ++k) {
      const StackLayer& sl = plan.layers[k];
      const LayerSpec& L = *sl.spec;
      const ConvGeom& g = sl.geom;
      const StackTensor& t = plan.tensors[std::size_t(sl.out)];
      const RowRange tile = t.rows[std::size_t(b)];  // rows the tile holds after this band's step
      const RowRange o = t.computed[std::size_t(b)];  // rows computed now (== tile under Recompute)
      const int carried = t.cached_rows(b);           // Cache: rows copied from band b-1's tile
      if ((!weights_loaded[k] || plan.summary.weights_streamed) && !o.empty()) {
        load_weights(L, sl, !weights_loaded[k]);
        weights_loaded[k] = true;
      }
      if (tile.empty()) continue;
      const std::uint32_t tile_addr = plan.buffers[std::size_t(t.buffer)].at(b);
      if (carried > 0) {
        const RowRange prev = t.rows[std::size_t(b - 1)];
        const std::uint32_t from = std::uint32_t(plan.buffers[std::size_t(t.buffer)].at(b - 1) +
                                                 std::uint64_t(tile.lo - prev.lo) * std::uint64_t(t.w) * std::uint64_t(e));
        code.push_back(move_rows(L.name, from, prev.rows(), tile_addr, tile.rows(), carried, t.c, t.w));
      }
      if (o.empty()) continue;
      // The tile an operand reads in place, or a piece is MOVEd from: a shared input tile or a
      // stack tensor's tile (its rows this band, its buffer).
      auto source = [&](int input, int produced) {
        return input >= 0 ? std::make_pair(plan.inputs[std::size_t(input)].rows[std::size_t(b)],
                                           plan.inputs[std::size_t(input)].buffer)
                          : std::make_pair(plan.tensors[std::size_t(produced)].rows[std::size_t(b)],
                                           plan.tensors[std::size_t(produced)].buffer);
      };
      auto operand_addr = [&](const Operand& op) {
        if (op.on_chip) return plan.buffers[std::size_t(source(op.input, op.produced).second)].at(b);
        // LOADed or gathered into the operand's own buffer
        return plan.buffers[std::size_t(op.buffer)].at(b);
      };
      for (const Operand* op : {&sl.in, &sl.res}) {
        if (op->tensor.empty()) continue;
        // A shared input tile: LOADed by its first reader of the band.
        if (op->input >= 0) load_input(op->input, b, L.name);
        for (const Piece& pc : op->pieces)
          if (pc.input >= 0) load_input(pc.input, b, L.name);
        if (op->on_chip) continue;
        const RowRange rows = op->rows[std::size_t(b)];
        const std::uint32_t buf = plan.buffers[std::size_t(op->buffer)].at(b);
        if (!op->gathered()) {
          dma_ins(Opcode::Load, L.name, op->tensor, band_desc(op->tensor, op->c, op->h, op->w, rows, buf));
          continue;
        }
        // Gathered: each piece at its channel offset of the packed [C, rows, W] tile.
        const std::uint64_t plane = std::uint64_t(rows.rows()) * std::uint64_t(op->w);
        for (const Piece& pc : op->pieces) {
          const std::uint32_t dst = std::uint32_t(buf + std::uint64_t(pc.c_offset) * plane * std::uint64_t(e));
          if (pc.produced < 0 && pc.input < 0) {
            dma_ins(Opcode::Load, L.name, pc.tensor, band_desc(pc.tensor, pc.c, op->h, op->w, rows, dst));
            continue;
          }
          // MOVEd from the tile of the stack tensor or shared input holding these rows.
          const auto [have, src_buffer] = source(pc.input, pc.produced);
          const std::uint32_t from = std::uint32_t(plan.buffers[std::size_t(src_buffer)].at(b) +
                                                   std::uint64_t(rows.lo - have.lo) * std::uint64_t(op->w) * std::uint64_t(e));
          code.push_back(move_rows(L.name, from, have.rows(), dst, rows.rows(), rows.rows(), pc.c, op->w));
        }
      }
      const RowRange in_rows = sl.in.rows[std::size_t(b)];
      if (!(in_rows == layer_input_rows(sl, o)))
        throw std::logic_error("depth-first: band rows of " + L.name + " disagree with its receptive field");
      const RowBand band = is_upsample(L) ? RowBand{in_rows.lo, in_rows.rows()} : input_band(g, o.lo, o.rows());
      // Computed rows go straight into the tile, or (Cache, with rows carried) into the
      // scratch tile and then after the carried rows.
      const std::uint32_t out_addr = carried > 0 ? plan.buffers[std::size_t(t.scratch)].at(b) : tile_addr;
      Instruction c;
      c.layer = L.name;
      if (is_upsample(L)) {
        std::vector<Instruction> moves;
        upsample_moves(L.name, operand_addr(sl.in), in_rows, out_addr, o, g.c_in, g.w_in, L.resize_h, L.resize_w, e,
                       moves);
        c = std::move(moves.back());
        moves.pop_back();
        for (auto& m : moves) code.push_back(std::move(m));
      } else if (L.kind == LayerKind::Conv) {
        isa::ConvParams cp = band_conv_params(g, band);
        cp.in_addr = operand_addr(sl.in);
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
          cp.epilogue.residual_addr = operand_addr(sl.res);
        }
        cp.epilogue.act = L.act;
        cp.epilogue.act_alpha = L.act_alpha;
        cp.epilogue.act_beta = L.act_beta;
        if (!L.requant.empty()) {
          cp.epilogue.requant = L.int8;
          cp.epilogue.requant.addr = sl.requant_addr;
        }
        if (cp.h_out() != o.rows()) throw std::logic_error("depth-first: CONV band of " + L.name + " has wrong height");
        c.op = Opcode::Conv;
        c.params = cp;
      } else if (L.kind == LayerKind::Eltwise) {
        isa::EltwiseParams ep;
        ep.op = L.eltwise;
        ep.a_addr = operand_addr(sl.in);
        ep.b_addr = operand_addr(sl.res);
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
        pp.in_addr = operand_addr(sl.in);
        pp.out_addr = out_addr;
        pp.c = g.c_in;
        if (pp.h_out() != o.rows()) throw std::logic_error("depth-first: POOL band of " + L.name + " has wrong height");
        c.op = Opcode::Pool;
        c.params = pp;
      }
      if (c.op == Opcode::Conv && group_channels(sl) < g.c_out) {
        // One CONV per output-channel group, each after its group's weights: channels
        // [co0, co0 + n) of the output (and residual) tile are n planes of the [C, rows, W]
        // band from plane co0; bias and int8 requantisation pairs from entry co0.
        const isa::ConvParams whole = std::get<isa::ConvParams>(c.params);
        const int per = group_channels(sl);
        const std::uint64_t plane = std::uint64_t(whole.h_out()) * std::uint64_t(whole.w_out()) * std::uint64_t(e);
        const std::uint64_t per_channel = std::uint64_t(g.cin_per_group()) * g.kh * g.kw * std::uint64_t(e);
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
          code.push_back(std::move(ci));
        }
      } else {
        code.push_back(std::move(c));
      }
      if (carried > 0)
        code.push_back(move_rows(L.name, out_addr, o.rows(),
                                 std::uint32_t(tile_addr + std::uint64_t(carried) * std::uint64_t(t.w) * std::uint64_t(e)),
                                 tile.rows(), o.rows(), t.c, t.w));
      info[k].steps += 1;
      info[k].band_rows = std::max(info[k].band_rows, o.rows());
      info[k].array_cycles += band_cycles(L, g, o.rows(), band.rows, ctx.array, ctx.lanes);
      info[k].recompute_macs += band_macs(L, g, o.rows());
      if (t.stored) dma_ins(Opcode::Store, L.name, t.name, band_desc(t.name, t.c, t.h, t.w, o, out_addr));
    }
  }
  for (std::size_t k = 0; k < plan.layers.size(); ++k) {
    const LayerSpec& L = *plan.layers[k].spec;
    info[k].recompute_macs -= std::min(info[k].recompute_macs, L.macs);
    if (L.kind != LayerKind::Conv) info[k].array_cycles = 0;  // vector layers: the report's own formula
    info[k].tile = "stack " + std::to_string(plan.summary.id) + ": " + std::to_string(bands) +
                   (bands == 1 ? " band of " : " bands of ") + std::to_string(plan.summary.band_rows) + " rows of " +
                   plan.summary.layers.back() + ", " +
                   std::to_string(info[k].band_rows) + " rows here (" + info[k].overlap + ")";
  }

  add_hazard_tokens(code, ctx.dtype);
  if (code.empty() || code.front().op != Opcode::Load) throw std::logic_error("depth-first: stack starts without a LOAD");
  if (!first) {
    // The fence every layer starts with (codegen.hpp): no LOAD before every earlier compute
    // and STORE has finished.
    const isa::Token cp2ld{isa::Queue::Compute, isa::Queue::Load}, st2ld{isa::Queue::Store, isa::Queue::Load};
    Instruction sc;
    sc.op = Opcode::Sync;
    sc.layer = code.front().layer;
    sc.params = isa::SyncParams{isa::Queue::Compute};
    sc.push = {cp2ld};
    Instruction ss = sc;
    ss.params = isa::SyncParams{isa::Queue::Store};
    ss.push = {st2ld};
    prog.push_back(sc);
    prog.push_back(ss);
    code.front().wait.insert(code.front().wait.begin(), {cp2ld, st2ld});
  }
  for (auto& in : code) prog.push_back(std::move(in));
  for (auto& i : info) infos.push_back(std::move(i));
}

}  // namespace npu::compiler::depth_first
