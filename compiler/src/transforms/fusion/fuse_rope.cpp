// fuse-rope (fuse_rope.hpp): a rotary position embedding -> the epilogue of the Q/K GEMM.
#include "npu/compiler/transforms/fusion/fuse_rope.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "npu/compiler/backend/tiling/tiling.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/ir/fused_attr.hpp"
#include "npu/isa/instruction.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

namespace npu::compiler {

namespace {

using Dims = std::vector<std::int64_t>;

// The rotary subgraph around one Add, by structure only (check() proves the math).
struct Rotary {
  std::string add, mul_cos, mul_sin, concat, neg, slice_hi, slice_lo;
  std::string x, cos, sin, rot, out;
  std::vector<std::string> nodes() const { return {add, mul_cos, mul_sin, concat, neg, slice_hi, slice_lo}; }
};

const Node* producer_node(const Graph& g, const std::string& t, const char* op) {
  const auto p = g.producer(t);
  if (!p || g.nodes[*p].op_type != op || g.nodes[*p].on_host) return nullptr;
  return &g.nodes[*p];
}

// Mul(rot, s) with rot = Concat(Neg(Slice(x)), Slice(x)), either Mul operand order.
bool read_rotate_half(const Graph& g, const Node& mul, Rotary& r) {
  for (int i = 0; i < 2; ++i) {
    const Node* cat = producer_node(g, mul.inputs[std::size_t(i)], "Concat");
    if (!cat || cat->inputs.size() != 2) continue;
    const Node* neg = producer_node(g, cat->inputs[0], "Neg");
    const Node* lo = producer_node(g, cat->inputs[1], "Slice");
    const Node* hi = neg ? producer_node(g, neg->inputs[0], "Slice") : nullptr;
    if (!hi || !lo || hi->inputs.empty() || lo->inputs.empty() || hi->inputs[0] != lo->inputs[0]) continue;
    r.mul_sin = mul.name, r.concat = cat->name, r.neg = neg->name, r.slice_hi = hi->name, r.slice_lo = lo->name;
    r.rot = cat->outputs[0], r.sin = mul.inputs[std::size_t(1 - i)], r.x = hi->inputs[0];
    return true;
  }
  return false;
}

// The rotary subgraph whose last node is Add `add`, or nullopt.
std::optional<Rotary> read_rotary(const Graph& g, const Node& add) {
  if (add.op_type != "Add" || add.on_host || add.inputs.size() != 2 || add.outputs.empty()) return std::nullopt;
  for (int i = 0; i < 2; ++i) {
    const Node* ms = producer_node(g, add.inputs[std::size_t(i)], "Mul");
    const Node* mc = producer_node(g, add.inputs[std::size_t(1 - i)], "Mul");
    Rotary r;
    if (!ms || !mc || ms->inputs.size() != 2 || mc->inputs.size() != 2 || !read_rotate_half(g, *ms, r)) continue;
    const int xi = mc->inputs[0] == r.x ? 0 : mc->inputs[1] == r.x ? 1 : -1;
    if (xi < 0) continue;
    r.add = add.name, r.mul_cos = mc->name, r.cos = mc->inputs[std::size_t(1 - xi)], r.out = add.outputs[0];
    return r;
  }
  return std::nullopt;
}

// Constant integer list input `t` (Slice starts/ends/axes/steps), or nullopt.
std::optional<Dims> const_ints(const Graph& g, const std::string& t) {
  if (t.empty() || !g.has_tensor(t) || !g.tensor(t).is_constant) return std::nullopt;
  const Tensor& c = g.tensor(t);
  if (!c.int_data.empty()) return c.int_data;
  if (c.float_data.empty()) return std::nullopt;
  Dims v;
  for (float f : c.float_data) v.push_back(std::int64_t(f));
  return v;
}

// The [start, end) a Slice keeps of the last axis (rank r, length d), clamped as ONNX does;
// nullopt when it slices another axis, more than one, with a step other than 1, or by
// values known only at run time.
std::optional<std::pair<std::int64_t, std::int64_t>> last_axis_range(const Graph& g, const Node& s, std::int64_t r,
                                                                     std::int64_t d) {
  std::optional<Dims> st, en, ax, sp;
  if (s.inputs.size() >= 3) {
    st = const_ints(g, s.inputs[1]), en = const_ints(g, s.inputs[2]);
    ax = s.inputs.size() >= 4 && !s.inputs[3].empty() ? const_ints(g, s.inputs[3]) : std::optional<Dims>(Dims{0});
    sp = s.inputs.size() >= 5 && !s.inputs[4].empty() ? const_ints(g, s.inputs[4]) : std::optional<Dims>(Dims{1});
  } else {  // opset < 10: attributes
    st = s.attr_ints("starts"), en = s.attr_ints("ends"), ax = s.attr_ints("axes", {0}), sp = Dims{1};
  }
  if (!st || !en || !ax || !sp || st->size() != 1 || en->size() != 1 || ax->size() != 1 || sp->size() != 1)
    return std::nullopt;
  if ((*ax)[0] != r - 1 && (*ax)[0] != -1) return std::nullopt;
  if ((*sp)[0] != 1) return std::nullopt;
  auto clamp = [d](std::int64_t v) { return std::clamp(v < 0 ? v + d : v, std::int64_t{0}, d); };
  return std::make_pair(clamp((*st)[0]), clamp((*en)[0]));
}

}  // namespace

namespace {

// Where x comes from: the weight GEMM and the head-split views between it and x.
struct Source {
  long gemm = -1;
  std::string reshape, transpose;  // "" when x is the GEMM output itself
  std::int64_t positions = 0, d = 0;
};

bool rope_weight_gemm(const Graph& g, const Node& n) {
  if (n.on_host || n.inputs.size() < 2) return false;
  if (n.op_type == "Gemm") return n.attr_int("transA", 0) == 0;
  if (n.op_type != "MatMul" || !g.has_tensor(n.inputs[1])) return false;
  const Tensor& b = g.tensor(n.inputs[1]);
  return b.is_constant && b.shape.size() == 2;
}

// Why tensor t cannot disappear into the fusion (read by more than its one reader in the
// rotary, a graph output, quantised), or "".
std::string private_problem(const Graph& g, const std::string& t, std::size_t readers) {
  if (is_graph_output(g, t)) return t + " is a graph output";
  if (g.consumers(t).size() != readers) return t + " has a reader outside the rotary embedding";
  if (g.tensor(t).quant) return t + " is quantised: int8 has no rule for a rotary epilogue";
  return "";
}

// The GEMM (and views) producing x [.., S, d]; `why` says what does not fit.
Source find_source(const Graph& g, const std::string& x, std::string& why) {
  Source s;
  const Dims& xs = g.tensor(x).shape;
  s.d = xs.back(), s.positions = xs[xs.size() - 2];
  std::string y = x;
  if (const Node* tr = producer_node(g, x, "Transpose")) {
    const Node* rs = producer_node(g, tr->inputs[0], "Reshape");
    if (tr->attr_ints("perm") != Dims{0, 2, 1, 3} || !rs) {
      why = "x comes from " + tr->name + ", not a head split (Reshape then Transpose perm 0,2,1,3)";
      return s;
    }
    const Dims& ys = g.tensor(rs->inputs[0]).shape;
    const Dims& rsh = g.tensor(rs->outputs[0]).shape;
    if (ys.size() != 3 || rsh.size() != 4 || ys[0] != rsh[0] || ys[1] != rsh[1] || ys[2] != rsh[2] * rsh[3]) {
      why = rs->name + " is not a head split [B, S, H d] -> [B, S, H, d]";
      return s;
    }
    for (const std::string& t : {rs->inputs[0], rs->outputs[0]})
      if (why = private_problem(g, t, 1); !why.empty()) return s;
    s.reshape = rs->name, s.transpose = tr->name, y = rs->inputs[0];
  }
  const auto p = g.producer(y);
  if (!p || !rope_weight_gemm(g, g.nodes[*p])) {
    why = "x is not the output of a weight GEMM (MatMul by a constant matrix, or Gemm)";
    return s;
  }
  if (g.nodes[*p].has_attr(fused_attr::kRope)) why = g.nodes[*p].name + " already has a rotary epilogue";
  s.gemm = long(*p);
  return s;
}

// Why table t (cos or sin) is not a constant broadcasting to [S, d] over x's other axes, or "".
std::string table_problem(const Graph& g, const std::string& t, const Dims& xs) {
  if (!g.has_tensor(t) || !g.tensor(t).is_constant) return "table " + t + " is not a constant";
  const Dims& ts = g.tensor(t).shape;
  if (ts.size() > xs.size() || ts.empty()) return "table " + t + " " + shape_string(ts) + " does not broadcast to x";
  const std::size_t off = xs.size() - ts.size();
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const std::size_t a = off + i;
    const bool pos_or_d = a + 2 >= xs.size();
    if (ts[i] != (pos_or_d ? xs[a] : 1) && !(ts[i] == 1 && xs[a] == 1))
      return "table " + t + " " + shape_string(ts) + " is not [S, d] = [" + std::to_string(xs[xs.size() - 2]) +
             ", " + std::to_string(xs.back()) + "] broadcast over " + shape_string(xs);
  }
  if (ts.size() < 2 && xs[xs.size() - 2] != 1) return "table " + t + " has no positions axis";
  if (g.tensor(t).quant) return "table " + t + " is quantised: int8 has no rule for a rotary epilogue";
  return "";
}

}  // namespace

namespace {

const Node& node(const Graph& g, const std::string& name) { return g.nodes[std::size_t(find_node(g, name))]; }

// Why the Slices / Concat do not compute rotate_half over x's last axis (d), or "".
std::string split_problem(const Graph& g, const Rotary& r, const Dims& xs) {
  const std::int64_t rank = std::int64_t(xs.size()), d = xs.back(), h = d / 2;
  if (d % 2 != 0) return "x's last axis has odd length " + std::to_string(d) + ": no halves to swap";
  std::int64_t axis = node(g, r.concat).attr_int("axis", 0);
  if (axis < 0) axis += rank;
  if (axis != rank - 1) return r.concat + " concatenates axis " + std::to_string(axis) + ", not the last";
  const auto hi = last_axis_range(g, node(g, r.slice_hi), rank, d);
  const auto lo = last_axis_range(g, node(g, r.slice_lo), rank, d);
  if (!hi || !lo) return "a Slice is not one constant range of the last axis with step 1";
  if (*hi != std::make_pair(h, d) || *lo != std::make_pair(std::int64_t{0}, h))
    return "the Slices keep [" + std::to_string(hi->first) + ", " + std::to_string(hi->second) + ") (negated) and [" +
           std::to_string(lo->first) + ", " + std::to_string(lo->second) + ") of the last axis, not rotate_half's [" +
           std::to_string(h) + ", " + std::to_string(d) + ") and [0, " + std::to_string(h) + ")";
  return "";
}

// Why the rotary around r cannot be a GEMM epilogue, or ""; fills `src`.
std::string rotary_problem(const Graph& g, const Rotary& r, Source& src) {
  if (!g.has_tensor(r.x) || !g.tensor(r.x).shape_known() || g.tensor(r.x).shape.size() < 2)
    return "x has no static shape of rank >= 2";
  const Dims& xs = g.tensor(r.x).shape;
  if (auto why = split_problem(g, r, xs); !why.empty()) return why;
  if (auto why = private_problem(g, r.x, 3); !why.empty()) return why;
  for (const std::string& n : {r.slice_hi, r.slice_lo, r.neg, r.concat, r.mul_cos, r.mul_sin})
    if (auto why = private_problem(g, node(g, n).outputs[0], 1); !why.empty()) return why;
  if (g.tensor(r.out).quant) return r.out + " is quantised: int8 has no rule for a rotary epilogue";
  for (const std::string& t : {r.cos, r.sin})
    if (auto why = table_problem(g, t, xs); !why.empty()) return why;
  std::string why;
  src = find_source(g, r.x, why);
  return why;
}

}  // namespace

std::vector<Candidate> FuseRope::match(const Graph& graph) const {
  std::vector<Candidate> out;
  for (const Node& add : graph.nodes) {
    const auto r = read_rotary(graph, add);
    if (!r) continue;
    std::string why;
    const Source s = graph.has_tensor(r->x) && graph.tensor(r->x).shape.size() >= 2 ? find_source(graph, r->x, why)
                                                                                     : Source{};
    const std::string anchor = s.gemm >= 0 ? graph.nodes[std::size_t(s.gemm)].name : add.name;
    std::vector<std::string> nodes = r->nodes();
    if (s.gemm >= 0) nodes.insert(nodes.begin(), anchor);
    out.push_back({anchor, nodes, r->x + " * cos + rotate_half(" + r->x + ") * sin -> epilogue of " + anchor});
  }
  return out;
}

Legality FuseRope::check(const Graph& graph, const Candidate& c) const {
  const std::string& add = c.nodes.size() == 8 ? c.nodes[1] : c.nodes[0];
  const long ai = find_node(graph, add);
  if (ai < 0 || find_node(graph, c.anchor) < 0) return Legality::decline("the nodes changed (an earlier rewrite)");
  const auto r = read_rotary(graph, graph.nodes[std::size_t(ai)]);
  if (!r) return Legality::decline("the nodes changed (an earlier rewrite)");
  Source src;
  if (auto why = rotary_problem(graph, *r, src); !why.empty()) return Legality::decline(why);
  return Legality::ok("head dim " + std::to_string(src.d) + ", " + std::to_string(src.positions) + " positions" +
                      (src.transpose.empty() ? "" : "; the head split " + src.reshape + ", " + src.transpose +
                                                        " now carries the rotated values"));
}

Legality FuseRope::fits(const Graph& graph, const Candidate& c, const HwConfig& hw) const {
  const auto r = read_rotary(graph, graph.nodes[std::size_t(find_node(graph, c.nodes.size() == 8 ? c.nodes[1] : c.nodes[0]))]);
  std::string why;
  const Source src = r ? find_source(graph, r->x, why) : Source{};
  if (src.gemm < 0 || src.d <= 0) return Legality::ok();
  const Node& gemm = graph.nodes[std::size_t(src.gemm)];
  if (!graph.has_tensor(gemm.inputs[1]) || graph.tensor(gemm.inputs[1]).shape.size() != 2) return Legality::ok();
  const Dims& ws = graph.tensor(gemm.inputs[1]).shape;
  const bool trans_b = gemm.op_type == "Gemm" && gemm.attr_int("transB", 0) != 0;
  const std::uint64_t k = std::uint64_t(trans_b ? ws[1] : ws[0]), n = std::uint64_t(trans_b ? ws[0] : ws[1]);
  const std::uint64_t d = std::uint64_t(src.d), e = std::uint64_t(dtype_bytes(hw.mac_array.dtype));
  // The fused GEMM's minimal tile as the tiler sizes it (codegen conv_layer_options): whole
  // heads per N tile with each row's cos/sin, the norm prologue's parameters if fused, the
  // int8 requantisation pairs, on the config's SRAM banks.
  const Tensor& a = graph.tensor(gemm.inputs[0]);
  std::int64_t m = 1;
  for (std::size_t i = 0; i + 1 < a.shape.size(); ++i) m *= std::max<std::int64_t>(a.shape[i], 1);
  ConvGeom g;
  g.gemm = true;
  g.c_in = int(k), g.c_out = int(n), g.h_in = g.h_out = int(m), g.w_in = g.w_out = 1;
  TilingOptions o = hardware_tiling_options(hw);
  o.act_bytes = int(e);
  o.co_multiple = int(d);
  o.rope_row_bytes = 2 * d * isa::kParamElemBytes;
  const std::string prologue = gemm.attr_string(fused_attr::kPrologue, "");
  if (!prologue.empty())
    o.prologue_param_bytes =
        isa::act_param_elems(prologue == "LayerNormalization" ? isa::ActOp::LayerNorm : isa::ActOp::RmsNorm, 1, k) *
        isa::kParamElemBytes;
  if (graph.tensor(gemm.outputs[0]).quant)  // an int8 execution: 8 B requant pairs after the bias (12 B a channel)
    o.reserved_param_bytes_per_channel = std::max(o.reserved_param_bytes_per_channel, 12);
  const std::uint64_t need = conv_min_sram_bytes(g, o);
  if (need <= hw.sram.capacity_bytes) return Legality::ok();
  return Legality::decline(fmt::format(
      "an output tile of {} would hold whole heads of {} columns ({} x {} weights of {} B, with their cos/sin rows): "
      "its minimal tile needs {} bytes, more than sram.capacity {} bytes; the rotary stays separate vector passes",
      gemm.name, d, d, k, e, need, hw.sram.capacity_bytes));
}

void FuseRope::rewrite(Graph& graph, const Candidate& c) const {
  const auto r = read_rotary(graph, graph.nodes[std::size_t(find_node(graph, c.nodes[1]))]);
  std::string why;
  const Source src = find_source(graph, r->x, why);
  Node& gemm = graph.nodes[std::size_t(src.gemm)];
  gemm.inputs.resize(8);  // A, B, bias, residual, gamma, beta (each or ""), cos, sin
  gemm.inputs[6] = r->cos, gemm.inputs[7] = r->sin;
  gemm.attrs[fused_attr::kRope] = src.d;
  gemm.attrs[fused_attr::kRopePositions] = src.positions;
  std::string covers = gemm.attr_string(fused_attr::kCovers, "");
  for (const std::string& n : r->nodes()) covers += (covers.empty() ? "" : ";") + n;
  gemm.attrs[fused_attr::kCovers] = covers;
  if (src.transpose.empty())
    gemm.outputs[0] = r->out;
  else
    graph.nodes[std::size_t(find_node(graph, src.transpose))].outputs[0] = r->out;
  const std::vector<std::string> gone = r->nodes();
  for (const std::string& n : gone)
    if (const Node& dead = node(graph, n); dead.outputs[0] != r->out) graph.tensors.erase(dead.outputs[0]);
  graph.tensors.erase(r->x);
  graph.nodes.erase(std::remove_if(graph.nodes.begin(), graph.nodes.end(),
                                   [&](const Node& n) { return std::count(gone.begin(), gone.end(), n.name) > 0; }),
                    graph.nodes.end());
}

NPU_REGISTER_PASS(FuseRope, 740);

}  // namespace npu::compiler
