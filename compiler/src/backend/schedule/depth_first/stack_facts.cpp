// The depth-first planner's facts about single layers of the lowered graph: which layers may
// join a stack, who reads and writes which DDR tensor, the pieces of a Concat, and the rows a
// stack layer reads. Reference: docs/depth_first.md.
#include <algorithm>
#include <cstdint>

#include "backend/schedule/depth_first/stack_planner.hpp"

namespace npu::compiler {

RowRange input_rows(const ConvGeom& g, RowRange out) {
  if (out.empty()) return {};
  const RowBand b = input_band(g, out.lo, out.rows());
  return {b.first_row, b.first_row + b.rows};
}

namespace depth_first {

Planner::Planner(const PlanInputs& in) : in_(in), lg_(in.lg), e_(in.opt.act_bytes) {
  for (std::size_t j = 0; j < lg_.layers.size(); ++j) {
    const LayerSpec& L = lg_.layers[j];
    std::vector<std::string> reads = L.inputs;
    for (const std::string* t : {&L.residual, &L.in_scale})
      if (!t->empty()) reads.push_back(*t);
    for (const auto& t : reads) {
      if (!lg_.place.count(t)) continue;
      readers_by_root_[root(t)].push_back({j, t});
    }
    if (!L.output.empty() && lg_.place.count(L.output)) {
      producer_[L.output] = j;
      written_by_root_[root(L.output)].push_back(L.output);
    }
  }
  for (const auto& t : lg_.ddr_tensors) kind_[t.name] = t.kind;
  for (std::size_t j = 0; j < lg_.layers.size(); ++j) {
    const LayerSpec& L = lg_.layers[j];
    if (L.kind == LayerKind::Conv || L.kind == LayerKind::Pool || is_upsample(L)) geom_[j] = L.geom;
  }
  // An element-wise layer of two same-shape tensors: the [C, H, W] of a Conv/Pool producing
  // one of its inputs (nothing else records H and W separately).
  for (std::size_t j = 0; j < lg_.layers.size(); ++j) {
    const LayerSpec& L = lg_.layers[j];
    if (L.kind != LayerKind::Eltwise || L.b_elems != 0 || L.inputs.size() != 2 || L.output.empty()) continue;
    for (const auto& t : L.inputs) {
      auto p = producer_.find(t);
      if (p == producer_.end() || !geom_.count(p->second)) continue;
      const ConvGeom& pg = geom_.at(p->second);
      const std::uint64_t n = std::uint64_t(pg.c_out) * pg.h_out * pg.w_out;
      bool same = n == L.elems;
      for (const auto& u : L.inputs) same = same && lg_.bytes.count(u) && lg_.bytes.at(u) == n * std::uint64_t(e_);
      if (!same) continue;
      ConvGeom g;
      g.c_in = g.c_out = g.group = pg.c_out;
      g.h_in = g.h_out = pg.h_out;
      g.w_in = g.w_out = pg.w_out;
      geom_[j] = g;
      break;
    }
  }
}

bool Planner::stackable(const LayerSpec& L, std::string& why) const {
  if (L.kind == LayerKind::Host) {
    why = "host op: " + L.name + " runs on the host";
    return false;
  }
  const bool conv = L.kind == LayerKind::Conv, pool = L.kind == LayerKind::Pool, up = is_upsample(L);
  if (L.kind == LayerKind::Eltwise && !geom_.count(index_of(L))) {
    why = "op not tileable: " + L.name + " is an element-wise " + L.op_type +
          " with broadcasting or of tensors whose shape no Conv/pool gives";
    return false;
  }
  if (!conv && !pool && !up && L.kind != LayerKind::Eltwise) {
    why = std::string("op not tileable: ") + L.name + " is " + to_string(L.kind) + " " + L.op_type;
    return false;
  }
  if (pool && L.pool == isa::PoolOp::GlobalAvg) {
    why = "op not tileable: " + L.name + " is a global pooling (needs every row)";
    return false;
  }
  if (conv && L.batch > 1) {
    why = "op not tileable: " + L.name + " has a batch above 1";
    return false;
  }
  if (conv && (!L.in_scale.empty() || L.weight.empty())) {
    why = "op not tileable: " + L.name + " scales its input channels (fuse-se-gate)";
    return false;
  }
  if (!L.depth_first) {
    why = "op not tileable: " + L.name + " was not marked by fuse-layers";
    return false;
  }
  return true;
}

// Bytes of a conv layer's weights (c_out x c_in/group x kh x kw elements).
std::uint64_t Planner::weight_bytes(const LayerSpec& L) const {
  const ConvGeom& g = L.geom;
  return std::uint64_t(g.c_out) * g.cin_per_group() * g.kh * g.kw * std::uint64_t(e_);
}

// Tensors `a` and `b` (placed in DDR) share bytes: same root, intersecting ranges.
bool Planner::overlaps(const std::string& a, const std::string& b) const {
  const DdrPlace &pa = lg_.place.at(a), &pb = lg_.place.at(b);
  if (!lg_.bytes.count(a) || !lg_.bytes.count(b)) return pa.root == pb.root;  // unknown extent: assume they do
  return pa.root == pb.root && pa.offset < pb.offset + lg_.bytes.at(b) && pb.offset < pa.offset + lg_.bytes.at(a);
}

bool Planner::produced_in(const std::string& t, std::size_t s, std::size_t e) const {
  auto it = producer_.find(t);
  return it != producer_.end() && it->second >= s && it->second <= e;
}

bool Planner::is_graph_output(const std::string& t) const {
  auto it = kind_.find(root(t));
  return it != kind_.end() && it->second == isa::TensorKind::Output;
}

// The channel blocks (Concat pieces) tensor `t` of H x W planes consists of, when no layer
// writes `t` itself but layers write every part of its DDR range in whole planes (a Concat
// along C placed as zero-copy slices, lowering.hpp); else none.
std::vector<Piece> Planner::concat_pieces(const std::string& t, int h, int w) const {
  if (t.empty() || producer_.count(t) || !lg_.place.count(t) || !lg_.bytes.count(t)) return {};
  const DdrPlace& P = lg_.place.at(t);
  const std::uint64_t lo = P.offset, hi = lo + lg_.bytes.at(t);
  const std::uint64_t plane = std::uint64_t(h) * std::uint64_t(w) * std::uint64_t(e_);
  auto it = written_by_root_.find(P.root);
  if (it == written_by_root_.end() || plane == 0) return {};
  std::vector<std::pair<std::uint64_t, std::string>> parts;
  for (const std::string& u : it->second) {
    const std::uint64_t o = lg_.place.at(u).offset, b = lg_.bytes.at(u);
    if (o >= lo && o + b <= hi) parts.push_back({o, u});
  }
  std::sort(parts.begin(), parts.end());
  std::vector<Piece> out;
  std::uint64_t at = lo;
  for (const auto& [o, u] : parts) {
    const std::uint64_t b = lg_.bytes.at(u);
    if (o != at || b % plane != 0) return {};
    Piece pc;
    pc.tensor = u;
    pc.c_offset = int((o - lo) / plane);
    pc.c = int(b / plane);
    out.push_back(std::move(pc));
    at = o + b;
  }
  if (at != hi) return {};
  return out;
}

// [C, H, W] of operand `t` of layer `k` (its data input, or its residual / second input).
bool Planner::operand_shape(std::size_t k, const std::string& t, int& c, int& h, int& w) const {
  auto g = geom_.find(k);
  if (g == geom_.end()) return false;
  const LayerSpec& L = lg_.layers[k];
  if (!L.inputs.empty() && t == L.inputs[0]) {
    c = g->second.c_in, h = g->second.h_in, w = g->second.w_in;
  } else {
    c = g->second.c_out, h = g->second.h_out, w = g->second.w_out;
  }
  return true;
}

// Layer k reads `t` as a Concat some of whose pieces the stack [s, e] computes.
bool Planner::gathers_from(const LayerSpec& L, const std::string& t, std::size_t s, std::size_t e) const {
  int c = 0, h = 0, w = 0;
  if (!operand_shape(index_of(L), t, c, h, w)) return false;
  for (const Piece& p : concat_pieces(t, h, w))
    if (produced_in(p.tensor, s, e)) return true;
  return false;
}

// M reads tensor `t`: as an operand, or as a piece of a Concat operand.
bool Planner::reads(const LayerSpec& M, const std::string& t) const {
  std::vector<const std::string*> ops;
  for (const auto& u : M.inputs) ops.push_back(&u);
  ops.push_back(&M.residual);
  for (const std::string* u : ops) {
    if (u->empty()) continue;
    if (*u == t) return true;
    int c = 0, h = 0, w = 0;
    if (!operand_shape(index_of(M), *u, c, h, w)) continue;
    for (const Piece& p : concat_pieces(*u, h, w))
      if (p.tensor == t) return true;
  }
  return false;
}

// Every layer but the last feeds a later layer of the stack.
bool Planner::valid_end(std::size_t s, std::size_t e) const {
  for (std::size_t k = s; k < e; ++k) {
    bool fed = false;
    for (std::size_t m = k + 1; m <= e && !fed; ++m) {
      const LayerSpec& M = lg_.layers[m];
      fed = reads(M, lg_.layers[k].output);
    }
    if (!fed) return false;
  }
  return true;
}

bool is_upsample(const LayerSpec& L) {
  const ConvGeom& g = L.geom;
  return L.kind == LayerKind::Resize && !L.layout.empty() && L.resize_h >= 1 && L.resize_w >= 1 && g.c_in >= 1 &&
         g.c_in == g.c_out && g.h_out == g.h_in * L.resize_h && g.w_out == g.w_in * L.resize_w;
}

RowRange layer_input_rows(const StackLayer& sl, RowRange out) {
  if (out.empty()) return {};
  if (is_upsample(*sl.spec)) {
    const int f = sl.spec->resize_h;
    return {out.lo / f, (out.hi - 1) / f + 1};
  }
  return input_rows(sl.geom, out);
}

}  // namespace depth_first
}  // namespace npu::compiler
