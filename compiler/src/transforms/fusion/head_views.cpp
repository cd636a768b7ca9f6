// The head split and merge Transposes a fused attention reads and writes through (head_views.hpp).
#include "npu/compiler/transforms/fusion/head_views.hpp"

#include "npu/compiler/ir/fused_attr.hpp"

namespace npu::compiler {

namespace {

const std::vector<std::int64_t> kHeadPerm{0, 2, 1, 3};

// Transpose node n is a head split/merge on the NPU between 4-D static shapes; else why not.
std::string head_transpose_problem(const Graph& g, const Node& n) {
  if (n.attr_ints("perm") != kHeadPerm) return "";  // not a head Transpose: nothing to say
  if (n.on_host) return n.name + " runs on the host";
  for (const std::string& t : {n.inputs[0], n.outputs[0]})
    if (!g.has_tensor(t) || !g.tensor(t).shape_known() || g.tensor(t).shape.size() != 4)
      return n.name + ": " + t + " has no static 4-D shape";
  return "";
}

// The head split Transpose producing t, or -1 (with the reason in `skipped` when it is one).
long split_of(const Graph& g, const std::string& t, std::vector<std::string>& skipped) {
  const auto p = g.producer(t);
  if (!p || g.nodes[*p].op_type != "Transpose" || g.nodes[*p].attr_ints("perm") != kHeadPerm) return -1;
  std::string why = head_transpose_problem(g, g.nodes[*p]);
  if (why.empty() && is_graph_output(g, t)) why = g.nodes[*p].name + ": " + t + " is a graph output (a KV cache: written anyway)";
  else if (why.empty() && sole_reader(g, t) < 0) why = g.nodes[*p].name + ": " + t + " has other readers";
  if (!why.empty()) skipped.push_back(why);
  return why.empty() ? long(*p) : -1;
}

// The head merge Transpose that is o's only reader, or -1.
long merge_of(const Graph& g, const std::string& o, std::vector<std::string>& skipped) {
  const long r = sole_reader(g, o);
  if (r < 0 || g.nodes[std::size_t(r)].op_type != "Transpose" || g.nodes[std::size_t(r)].attr_ints("perm") != kHeadPerm)
    return -1;
  const std::string why = head_transpose_problem(g, g.nodes[std::size_t(r)]);
  if (!why.empty()) skipped.push_back(why);
  return why.empty() ? r : -1;
}

}  // namespace

HeadViews find_head_views(const Graph& graph, const std::string& q, const std::string& v, const std::string& o) {
  HeadViews hv;
  hv.q = split_of(graph, q, hv.skipped);
  hv.v = split_of(graph, v, hv.skipped);
  hv.o = merge_of(graph, o, hv.skipped);
  return hv;
}

void take_head_views(Graph& graph, Node& attention, const HeadViews& hv, std::vector<std::string>& absorbed) {
  const struct {
    long node;
    std::size_t input;  // the attention input it replaces; 99: the output
    const char* attr;
  } views[] = {{hv.q, 0, fused_attr::kQueryView}, {hv.v, 2, fused_attr::kValueView}, {hv.o, 99, fused_attr::kOutView}};
  for (const auto& w : views) {
    if (w.node < 0) continue;
    const Node& t = graph.nodes[std::size_t(w.node)];
    std::string& end = w.input == 99 ? attention.outputs[0] : attention.inputs[w.input];
    graph.tensors.erase(end);  // Q, V or O [B, H, S, n]: never written
    end = w.input == 99 ? t.outputs[0] : t.inputs[0];
    attention.attrs[w.attr] = std::int64_t(1);
    absorbed.push_back(t.name);
  }
}

std::string head_views_note(const Graph& graph, const HeadViews& hv) {
  std::string taken;
  for (const auto& [node, what] : {std::pair{hv.q, "Q"}, std::pair{hv.v, "V"}, std::pair{hv.o, "O"}})
    if (node >= 0) taken += std::string(taken.empty() ? "" : ", ") + what + " (" + graph.nodes[std::size_t(node)].name + ")";
  std::string note = taken.empty() ? "" : "views of the head Transposes: " + taken;
  for (const std::string& s : hv.skipped) note += std::string(note.empty() ? "" : "; ") + "head Transpose kept: " + s;
  return note;
}

}  // namespace npu::compiler
