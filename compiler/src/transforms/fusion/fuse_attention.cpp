#include "npu/compiler/transforms/fusion/fuse_attention.hpp"

#include <cmath>

#include "npu/compiler/transforms/fusion/head_views.hpp"
#include "npu/compiler/transforms/fusion/kv_repeat.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

namespace npu::compiler {

namespace {

// A mask element at or below this is "masked": e^(kMasked + s - m) is 0 in fp32 for any
// |s - m| < 1e8, so a key block masked throughout contributes nothing and may be skipped.
constexpr float kMasked = -1e9f;

// The chain Softmax <- [Add mask] <- [Div|Mul scale] <- MatMul([Div|Mul qscale](Q), K^T), and the
// P V MatMul. qscale is the query pre-scale torch's nn.MultiheadAttention writes (q / sqrt(d)
// before the MatMul): (Q / c) K^T = (Q K^T) / c, so it joins the attention's scale.
struct Chain {
  long qk = -1, scale = -1, add = -1, softmax = -1, pv = -1, qscale = -1;
  std::string mask;  // the Add's other operand ("" without an Add)
};

long producer_of(const Graph& g, const std::string& t, const char* op) {
  const auto p = g.producer(t);
  return p && g.nodes[*p].op_type == op ? long(*p) : -1;
}

// The Div or Mul by a constant scalar producing `t`, and which of its inputs is the data
// (0 or 1); {-1, -1} when there is none.
std::pair<long, int> scalar_scaling(const Graph& g, const std::string& t) {
  for (const char* op : {"Div", "Mul"}) {
    const long s = producer_of(g, t, op);
    if (s < 0) continue;
    const Node& n = g.nodes[std::size_t(s)];
    const int k = constant_scalar(g, n.inputs[1]) ? 0 : (op[0] == 'M' && constant_scalar(g, n.inputs[0])) ? 1 : -1;
    if (k >= 0) return {s, k};
  }
  return {-1, -1};
}

// The factor node `k` (a scalar_scaling) multiplies its data by: v for Mul, 1 / v for Div.
float factor_of(const Graph& g, long k) {
  if (k < 0) return 1.0f;
  const Node& n = g.nodes[std::size_t(k)];
  const bool lhs_const = n.op_type == "Mul" && constant_scalar(g, n.inputs[0]);
  const float v = g.tensor(n.inputs[lhs_const ? 0 : 1]).float_data[0];
  return n.op_type == "Div" ? 1.0f / v : v;
}

// The query the attention reads: the query pre-scale's data input, or the QK MatMul's own.
const std::string& query_of(const Graph& g, const Chain& c) {
  const Node& qk = g.nodes[std::size_t(c.qk)];
  if (c.qscale < 0) return qk.inputs[0];
  const Node& n = g.nodes[std::size_t(c.qscale)];
  return n.inputs[constant_scalar(g, n.inputs[1]) ? 0 : 1];
}

Chain find_chain(const Graph& g, std::size_t softmax) {
  Chain c;
  c.softmax = long(softmax);
  std::string x = g.nodes[softmax].inputs[0];
  if (long a = producer_of(g, x, "Add"); a >= 0) {
    const Node& add = g.nodes[std::size_t(a)];
    for (int k = 0; k < 2 && c.add < 0; ++k) {
      const auto p = g.producer(add.inputs[std::size_t(k)]);
      const std::string& op = p ? g.nodes[*p].op_type : std::string();
      if (op == "MatMul" || op == "Div" || op == "Mul") {
        c.add = a;
        c.mask = add.inputs[std::size_t(1 - k)];
        x = add.inputs[std::size_t(k)];
      }
    }
  }
  if (const auto [s, k] = scalar_scaling(g, x); s >= 0) {
    c.scale = s;
    x = g.nodes[std::size_t(s)].inputs[std::size_t(k)];
  }
  c.qk = producer_of(g, x, "MatMul");
  if (c.qk >= 0) {  // a pre-scale read by the QK MatMul alone (its output vanishes in the fusion)
    const std::string& q = g.nodes[std::size_t(c.qk)].inputs[0];
    const long s = scalar_scaling(g, q).first;
    if (s >= 0 && g.consumers(q).size() == 1 && !is_graph_output(g, q)) c.qscale = s;
  }
  const auto readers = g.consumers(g.nodes[softmax].outputs[0]);
  if (readers.size() == 1 && g.nodes[readers[0]].op_type == "MatMul" &&
      g.nodes[readers[0]].inputs[0] == g.nodes[softmax].outputs[0])
    c.pv = long(readers[0]);
  return c;
}

Chain chain_of(const Graph& g, const Candidate& c) {
  return find_chain(g, std::size_t(find_node(g, c.anchor)));
}

float scale_of(const Graph& g, const Chain& c) { return factor_of(g, c.scale) * factor_of(g, c.qscale); }

using Shape = std::vector<std::int64_t>;

Shape batch_of(const Shape& s) { return Shape(s.begin(), s.end() - 2); }

// "" when Q [.., Sq, d], K^T [.., d, Sk] and V [.., Sk, dv] share their batch axes, else why not.
std::string shapes_problem(const Graph& g, const Node& qk, const Node& pv) {
  for (const auto& t : {qk.inputs[0], qk.inputs[1], pv.inputs[1]})
    if (!g.has_tensor(t) || !g.tensor(t).shape_known() || g.tensor(t).shape.size() < 3)
      return "operand " + t + " has no static shape of rank 3 or more";
  const Shape& q = g.tensor(qk.inputs[0]).shape;
  const Shape& kt = g.tensor(qk.inputs[1]).shape;
  const Shape& v = g.tensor(pv.inputs[1]).shape;
  if (g.tensor(qk.inputs[1]).is_constant || g.tensor(pv.inputs[1]).is_constant)
    return "K or V is a constant (a weight MatMul, not attention)";
  if (batch_of(q) != batch_of(kt) || batch_of(q) != batch_of(v))
    return "Q " + shape_string(q) + ", K^T " + shape_string(kt) + " and V " + shape_string(v) +
           " do not share their batch axes (broadcast heads: expand them first)";
  if (kt[kt.size() - 1] != v[v.size() - 2]) return "K^T and V disagree on the number of keys";
  return "";
}

// "" when the mask is absent or a constant [.., Sq, Sk] with leading axes of 1, else why not.
std::string mask_problem(const Graph& g, const Chain& c, std::int64_t sq, std::int64_t sk) {
  if (c.add < 0) return "";
  const Tensor& m = g.tensor(c.mask);
  if (!m.is_constant) return "the mask " + c.mask + " is computed at run time, not a constant (a padding mask)";
  const Shape& s = m.shape;
  const bool tail = s.size() >= 2 && s[s.size() - 2] == sq && s[s.size() - 1] == sk;
  bool lead_ones = true;
  for (std::size_t i = 0; i + 2 < s.size(); ++i) lead_ones = lead_ones && s[i] == 1;
  // A weight without values (a built-in network's) is a general mask: every block reads its tile.
  const bool values_ok = m.float_data.empty() || m.float_data.size() == std::size_t(sq * sk);
  if (!tail || !lead_ones || !values_ok)
    return "the mask " + c.mask + " " + shape_string(s) + " is not one [" + std::to_string(sq) + ", " +
           std::to_string(sk) + "] matrix shared by every batch and head";
  return "";
}

// The causal offset o (row i sees keys j <= i + o, o = Sk - Sq) when the mask is causal:
// 0 there and <= kMasked elsewhere; -1 otherwise.
std::int64_t causal_offset(const std::vector<float>& m, std::int64_t sq, std::int64_t sk) {
  const std::int64_t o = sk - sq;
  for (std::int64_t i = 0; i < sq; ++i)
    for (std::int64_t j = 0; j < sk; ++j) {
      const float v = m[std::size_t(i * sk + j)];
      if (j <= i + o ? v != 0.0f : !(v <= kMasked)) return -1;
    }
  return o;
}

// The Transpose whose output is K^T when the attention may read its input X instead: 4-D, d
// X's innermost axis (perm[2] = 3), K^T read by the QK MatMul alone and no graph output.
long key_transpose(const Graph& g, const Node& qk) {
  const std::string& kt = qk.inputs[1];
  const long t = producer_of(g, kt, "Transpose");
  if (t < 0 || g.nodes[std::size_t(t)].on_host || is_graph_output(g, kt) || g.consumers(kt).size() != 1) return -1;
  const std::vector<std::int64_t> perm = g.nodes[std::size_t(t)].attr_ints("perm");
  const auto& x = g.tensor(g.nodes[std::size_t(t)].inputs[0]);
  return perm.size() == 4 && x.shape.size() == 4 && perm[2] == 3 ? t : -1;
}

// Grouped-query attention: K (under its absorbed Transpose) and V both come from head repeats
// of one group g, which the attention reads through (fused_attr::kKvGroup).
struct KvRepeats {
  KvRepeat k, v;
  std::string problem;  // why the attention reads the expanded heads ("" when used or no repeat)
  bool used() const { return problem.empty() && k.found() && v.found(); }
};

KvRepeats kv_repeats(const Graph& g, const Node& qk, const Node& pv) {
  KvRepeats r;
  const long kt = key_transpose(g, qk);
  if (kt >= 0) r.k = find_kv_repeat(g, g.nodes[std::size_t(kt)].inputs[0]);
  r.v = find_kv_repeat(g, pv.inputs[1]);
  const bool any = !r.k.source.empty() || !r.k.problem.empty() || !r.v.source.empty() || !r.v.problem.empty();
  if (!any) return r;
  if (!r.k.problem.empty()) r.problem = "K: " + r.k.problem;
  else if (!r.v.problem.empty()) r.problem = "V: " + r.v.problem;
  else if (r.k.source.empty()) r.problem = "V is a head repeat but K^T is no sole-reader Transpose of one";
  else if (r.v.source.empty()) r.problem = "K is a head repeat but V is not";
  else if (g.nodes[std::size_t(kt)].attr_ints("perm") != std::vector<std::int64_t>{0, 1, 3, 2})
    r.problem = "K's Transpose moves the head axis of its head repeat";
  else if (r.k.group != r.v.group)
    r.problem = "K and V repeat their heads " + std::to_string(r.k.group) + " and " + std::to_string(r.v.group) + " times";
  return r;
}

// The --explain note on the KV heads: read once per group, or why they are read expanded.
std::string kv_note(const Graph& g, const KvRepeats& r) {
  if (!r.problem.empty()) return "K/V heads read expanded (" + r.problem + ")";
  if (!r.used()) return "";
  const std::int64_t hkv = g.tensor(r.v.source).shape[1];
  return "GQA: " + std::to_string(hkv) + " KV heads read for groups of " + std::to_string(r.k.group) +
         " query heads (head repeats absorbed)";
}

// The head Transposes the attention reads Q and V and writes O through: V under its head
// repeat when the attention reads the un-repeated heads.
HeadViews head_views(const Graph& g, const std::string& query, const Node& pv, const KvRepeats& r) {
  return find_head_views(g, query, r.used() ? r.v.source : pv.inputs[1], pv.outputs[0]);
}

std::string join(std::string a, const std::string& b) { return b.empty() ? a : a.empty() ? b : a + "; " + b; }

}  // namespace

std::vector<Candidate> FuseAttention::match(const Graph& graph) const {
  std::vector<Candidate> out;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& s = graph.nodes[i];
    if (s.op_type != "Softmax" || s.inputs.empty()) continue;
    const Chain c = find_chain(graph, i);
    if (c.qk < 0 || c.pv < 0) continue;
    Candidate cand{s.name, {s.name, graph.nodes[std::size_t(c.qk)].name}, ""};
    for (long k : {c.scale, c.add, c.pv, c.qscale})
      if (k >= 0) cand.nodes.push_back(graph.nodes[std::size_t(k)].name);
    cand.label = graph.nodes[std::size_t(c.qk)].name + " -> " + s.name + " -> " + graph.nodes[std::size_t(c.pv)].name;
    out.push_back(std::move(cand));
  }
  return out;
}

Legality FuseAttention::check(const Graph& graph, const Candidate& cand) const {
  const Chain c = chain_of(graph, cand);
  if (c.qk < 0 || c.pv < 0) return Legality::decline("the chain changed (an earlier rewrite)");
  const Node& sm = graph.nodes[std::size_t(c.softmax)];
  const Node& qk = graph.nodes[std::size_t(c.qk)];
  const Node& pv = graph.nodes[std::size_t(c.pv)];
  const Shape& x = graph.tensor(sm.inputs[0]).shape;
  const std::int64_t axis = sm.attr_int("axis", graph.opset >= 13 ? -1 : 1);
  if (axis != -1 && axis != std::int64_t(x.size()) - 1)
    return Legality::decline("Softmax along axis " + std::to_string(axis) +
                             ", not the last: the online softmax normalises each query's row of keys");
  if (graph.tensor(sm.inputs[0]).quant || graph.tensor(sm.outputs[0]).quant)
    return Legality::decline("the scores are quantised: int8 has no online-softmax rule (the integer Softmax "
                             "normalises whole rows), so MatMul, Softmax and MatMul run as int8 layers");
  for (long k : {c.qk, c.scale, c.add, c.softmax, c.pv, c.qscale})
    if (k >= 0 && graph.nodes[std::size_t(k)].on_host) return Legality::decline(graph.nodes[std::size_t(k)].name + " runs on the host");
  if (const std::string p = shapes_problem(graph, qk, pv); !p.empty()) return Legality::decline(p);
  const Shape& q = graph.tensor(qk.inputs[0]).shape;
  const Shape& kt = graph.tensor(qk.inputs[1]).shape;
  if (const std::string p = mask_problem(graph, c, q[q.size() - 2], kt.back()); !p.empty()) return Legality::decline(p);
  for (long k : {c.qk, c.scale, c.add, c.softmax}) {
    if (k < 0) continue;
    const std::string& t = graph.nodes[std::size_t(k)].outputs[0];
    if (is_graph_output(graph, t)) return Legality::decline(t + " is a graph output (the scores would have to be written)");
    if (graph.consumers(t).size() != 1) return Legality::decline(t + " has other readers (the scores would have to be written)");
  }
  const float scale = scale_of(graph, c);
  if (!std::isfinite(scale) || scale == 0.0f) return Legality::decline("the scale is " + std::to_string(scale));
  const KvRepeats rep = kv_repeats(graph, qk, pv);
  std::string note = join(kv_note(graph, rep), head_views_note(graph, head_views(graph, query_of(graph, c), pv, rep)));
  if (c.qscale >= 0)
    note = join(note, "the query pre-scale " + graph.nodes[std::size_t(c.qscale)].name + " joins the attention's scale");
  if (c.add >= 0 && graph.tensor(c.mask).float_data.empty())
    note += std::string(note.empty() ? "" : "; ") + "the mask " + c.mask +
            " has no values to prove it causal: every key block reads its tile";
  return Legality::ok(note);
}

void FuseAttention::rewrite(Graph& graph, const Candidate& cand) const {
  const Chain c = chain_of(graph, cand);
  const Node qk = graph.nodes[std::size_t(c.qk)];
  const Node pv = graph.nodes[std::size_t(c.pv)];
  const float scale = scale_of(graph, c);
  std::int64_t offset = -1;
  if (c.add >= 0) {
    const Shape& q = graph.tensor(qk.inputs[0]).shape;
    const std::int64_t sk = graph.tensor(qk.inputs[1]).shape.back();
    const std::vector<float>& m = graph.tensor(c.mask).float_data;
    offset = m.empty() ? -1 : causal_offset(m, q[q.size() - 2], sk);
  }
  const long kt = key_transpose(graph, qk);
  const KvRepeats rep = kv_repeats(graph, qk, pv);
  const std::string query = query_of(graph, c);
  const HeadViews views = head_views(graph, query, pv, rep);
  std::vector<std::string> absorbed;
  for (long k : {c.qk, c.scale, c.add, c.pv, kt, c.qscale})
    if (k >= 0) absorbed.push_back(graph.nodes[std::size_t(k)].name);
  if (c.qscale >= 0) graph.tensors.erase(qk.inputs[0]);  // the scaled query is never written
  std::string key = qk.inputs[1], value = pv.inputs[1];
  if (kt >= 0) {  // read K out of the Transpose's input: K^T is never written
    const Node& t = graph.nodes[std::size_t(kt)];
    key = t.inputs[0];
    graph.tensors.erase(qk.inputs[1]);
  }
  if (rep.used()) {  // GQA: read the un-repeated heads; the expanded copies are never written
    key = rep.k.source;
    value = rep.v.source;
    for (const KvRepeat* r : {&rep.k, &rep.v})
      for (const std::string& name : r->nodes) {
        absorbed.push_back(name);
        graph.tensors.erase(graph.nodes[std::size_t(find_node(graph, name))].outputs[0]);
      }
  }
  const std::vector<std::int64_t> key_perm = kt >= 0 ? graph.nodes[std::size_t(kt)].attr_ints("perm") : std::vector<std::int64_t>{};
  for (long k : {c.qk, c.scale, c.add, c.softmax})
    if (k >= 0) graph.tensors.erase(graph.nodes[std::size_t(k)].outputs[0]);
  Node& a = graph.nodes[std::size_t(c.softmax)];
  a.op_type = "Attention";
  a.inputs = {query, key, value};
  if (!c.mask.empty()) a.inputs.push_back(c.mask);
  a.outputs = {pv.outputs[0]};
  a.attrs.erase("axis");
  a.attrs[fused_attr::kAttention] = std::int64_t(1);
  a.attrs[fused_attr::kAttentionScale] = scale;
  if (offset >= 0) a.attrs[fused_attr::kCausalOffset] = offset;
  if (!key_perm.empty()) a.attrs[fused_attr::kKeyPerm] = key_perm;
  if (rep.used()) a.attrs[fused_attr::kKvGroup] = rep.k.group;
  take_head_views(graph, a, views, absorbed);
  merge_nodes(graph, cand.anchor, absorbed);
}

NPU_REGISTER_PASS(FuseAttention, 750);

}  // namespace npu::compiler
