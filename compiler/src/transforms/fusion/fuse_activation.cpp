#include "npu/compiler/transforms/fusion/fuse_activation.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

#include <algorithm>
#include <set>

namespace npu::compiler {

namespace {

const char* act_name(const Node& n) {
  const std::string& op = n.op_type;
  if (op == "Relu") return "relu";
  if (op == "Clip") return "clip";
  if (op == "LeakyRelu") return "leaky_relu";
  if (op == "Sigmoid") return "sigmoid";
  if (op == "HardSigmoid") return "hard_sigmoid";
  if (op == "HardSwish") return "hard_swish";
  if (op == "Tanh") return "tanh";  // a GAN generator's output, an LSTM-free tanh head: the ACT unit's tanh
  if (op == "Gelu")  // recognise_activations.hpp; an approximate other than none/tanh stays a layer (lowering says why)
    return n.attr_string("approximate", "none") == "tanh" ? "gelu_tanh"
           : n.attr_string("approximate", "none") == "none" ? "gelu" : nullptr;
  return nullptr;
}

// The Mul of a SiLU pair rooted at Sigmoid node `s`, or -1: Sigmoid's output feeds exactly
// one node, a Mul whose two inputs are the Sigmoid's input and output.
long silu_mul(const Graph& g, const Node& s) {
  if (s.inputs.empty() || s.outputs.empty()) return -1;
  const auto cons = g.consumers(s.outputs[0]);
  if (cons.size() != 1) return -1;
  const Node& m = g.nodes[cons[0]];
  if (m.op_type != "Mul" || m.inputs.size() != 2) return -1;
  const bool pair = (m.inputs[0] == s.inputs[0] && m.inputs[1] == s.outputs[0]) ||
                    (m.inputs[1] == s.inputs[0] && m.inputs[0] == s.outputs[0]);
  return pair ? long(cons[0]) : -1;
}

std::string join_names(const std::vector<std::string>& v, std::size_t from, const char* sep) {
  std::string s;
  for (std::size_t i = from; i < v.size(); ++i) s += (i > from ? sep : "") + v[i];
  return s;
}

// Clip bound from attribute (opset < 11) or constant input (opset >= 11).
// Returns false with `why` when the bound is computed at run time.
bool clip_bound(const Graph& g, const Node& clip, int input, const char* attr, bool& present, float& value,
                bool& materialised, std::string& why) {
  present = false;
  materialised = true;
  if (clip.has_attr(attr)) {
    present = true;
    value = clip.attr_float(attr, 0);
    return true;
  }
  if (clip.inputs.size() <= std::size_t(input) || clip.inputs[std::size_t(input)].empty()) return true;
  const std::string& name = clip.inputs[std::size_t(input)];
  if (!g.has_tensor(name) || !g.tensor(name).is_constant) {
    why = std::string("Clip ") + attr + " '" + name + "' is computed at run time";
    return false;
  }
  present = true;
  const Tensor& t = g.tensor(name);
  if (t.float_data.empty()) {
    materialised = false;
    present = false;
  } else {
    value = t.float_data[0];
  }
  return true;
}

}  // namespace

std::vector<Candidate> FuseActivation::match(const Graph& graph) const {
  std::vector<Candidate> out;
  std::set<std::string> silu_muls;
  for (const auto& n : graph.nodes) {
    if (!act_name(n) || n.inputs.empty()) continue;
    std::vector<std::string> acts{n.name};
    if (n.op_type == "Sigmoid") {
      const long m = silu_mul(graph, n);
      if (m >= 0) acts.push_back(graph.nodes[std::size_t(m)].name);
    }
    const std::string& x = n.inputs[0];
    const auto p = graph.producer(x);
    if (!p) continue;
    const Node& pn = graph.nodes[*p];
    const std::string act_label = join_names(acts, 0, " + ");
    if (pn.op_type == "Conv" || pn.op_type == "Gemm" || pn.op_type == "MatMul") {
      std::vector<std::string> nodes{pn.name};
      nodes.insert(nodes.end(), acts.begin(), acts.end());
      out.push_back({pn.name, nodes, pn.name + " -> " + act_label});
    } else if (pn.op_type == "BatchNormalization" || pn.op_type == "Add") {
      // Between a Conv and the activation: reported, never rewritten.
      std::string conv;
      for (const auto& in : pn.inputs) {
        const auto q = in.empty() ? std::nullopt : graph.producer(in);
        if (q && (graph.nodes[*q].op_type == "Conv" || graph.nodes[*q].op_type == "Gemm")) {
          conv = graph.nodes[*q].name;
          if (pn.op_type == "BatchNormalization") break;
        }
      }
      if (conv.empty()) continue;
      std::vector<std::string> nodes{pn.name};
      nodes.insert(nodes.end(), acts.begin(), acts.end());
      out.push_back({"", nodes, conv + " -> " + act_label});
    }
  }
  return out;
}

Legality FuseActivation::check(const Graph& graph, const Candidate& c) const {
  const Node& first = graph.nodes[std::size_t(find_node(graph, c.nodes[0]))];
  const Node& act = graph.nodes[std::size_t(find_node(graph, c.nodes[1]))];
  if (c.anchor.empty()) {
    if (first.op_type == "BatchNormalization")
      return Legality::decline("BatchNormalization " + first.name + " between conv and " + act.op_type +
                               " (not folded before this pass: fold-batchnorm absent or later in the strategy)");
    for (const std::string& in : first.inputs)  // a constant Add: not a residual, and not a bias either
      if (graph.has_tensor(in) && graph.tensor(in).is_constant)
        return Legality::decline("Add " + first.name + " of constant '" + in + "' " +
                                 shape_string(graph.tensor(in).shape) + " between conv and " +
                                 act.op_type + ": not one value per output channel, so neither a bias " +
                                 "(recognise-affine) nor a residual (fuse-residual); it stays a layer");
    return Legality::decline("Add " + first.name + " between conv and " + act.op_type + " (see fuse-residual)");
  }
  const Node& anchor = first;
  if (const std::string host = host_anchor_decline(anchor, act.op_type); !host.empty()) return Legality::decline(host);
  const std::string existing = anchor.attr_string(fused_attr::kAct, "");
  if (!existing.empty()) return Legality::decline(anchor.op_type + " already has activation " + existing + " fused");
  const std::string& x = act.inputs[0];
  if (is_graph_output(graph, x)) return Legality::decline(anchor.op_type + " output is a graph output");
  std::set<std::string> allowed(c.nodes.begin() + 1, c.nodes.end());
  std::string others;
  for (std::size_t i : graph.consumers(x))
    if (!allowed.count(graph.nodes[i].name)) others += (others.empty() ? "" : ", ") + graph.nodes[i].name;
  if (!others.empty()) return Legality::decline(anchor.op_type + " output also feeds " + others);
  // Quantised model: the fused epilogue requantises straight to the activation's output grid,
  // which equals the unfused result only when the anchor's output is on that grid too.
  const Tensor& xt = graph.tensor(x);
  const Tensor& yt = graph.tensor(act.outputs[0]);
  if (yt.quant && act.op_type != "Relu" && act.op_type != "Clip")
    return Legality::decline(act.op_type + " of a quantised model stays a layer of its own (the int8 epilogue "
                             "applies only Relu and Clip, as its clamp; " + act.op_type + " runs by table)");
  if (xt.quant && yt.quant &&
      (xt.quant->scale != yt.quant->scale || xt.quant->zero_point != yt.quant->zero_point || xt.quant->type != yt.quant->type))
    return Legality::decline(anchor.op_type + " output '" + x + "' and " + act.op_type +
                             " output are quantised with different parameters (int8 would skip a requantisation)");
  if (c.nodes.size() == 3 && graph.consumers(x).size() != 2)
    return Legality::decline("SiLU input must feed exactly the Sigmoid and the Mul");
  // SiLU: the Sigmoid's own output disappears in the fusion; a graph output (or another
  // reader) needs it.
  if (c.nodes.size() == 3 && is_graph_output(graph, act.outputs[0]))
    return Legality::decline("Sigmoid output " + act.outputs[0] + " is a graph output");
  if (act.op_type == "Clip") {
    bool present, materialised_lo, materialised_hi;
    float v;
    std::string why;
    if (!clip_bound(graph, act, 1, "min", present, v, materialised_lo, why)) return Legality::decline(why);
    if (!clip_bound(graph, act, 2, "max", present, v, materialised_hi, why)) return Legality::decline(why);
    if (!materialised_lo || !materialised_hi) return Legality::ok("Clip bounds constant but not materialised");
  }
  return Legality::ok();
}

void FuseActivation::rewrite(Graph& graph, const Candidate& c) const {
  Node& anchor = graph.nodes[std::size_t(find_node(graph, c.anchor))];
  const Node act = graph.nodes[std::size_t(find_node(graph, c.nodes[1]))];
  const Node last = graph.nodes[std::size_t(find_node(graph, c.nodes.back()))];
  const bool silu = c.nodes.size() == 3;
  std::string name = silu ? "silu" : act_name(act);
  anchor.attrs[fused_attr::kAct] = name;
  if (act.op_type == "Clip") {
    bool present, materialised;
    float v = 0;
    std::string why;
    clip_bound(graph, act, 1, "min", present, v, materialised, why);
    if (present) anchor.attrs[fused_attr::kActAlpha] = v;
    clip_bound(graph, act, 2, "max", present, v, materialised, why);
    if (present) anchor.attrs[fused_attr::kActBeta] = v;
  } else if (act.op_type == "LeakyRelu") {
    anchor.attrs[fused_attr::kActAlpha] = act.attr_float("alpha", 0.01f);
  } else if (act.op_type == "HardSigmoid") {
    anchor.attrs[fused_attr::kActAlpha] = act.attr_float("alpha", 0.2f);
    anchor.attrs[fused_attr::kActBeta] = act.attr_float("beta", 0.5f);
  }
  const std::string old_out = anchor.outputs[0];
  anchor.outputs[0] = last.outputs[0];
  graph.tensors.erase(old_out);
  if (silu) graph.tensors.erase(act.outputs[0]);
  merge_nodes(graph, c.anchor, std::vector<std::string>(c.nodes.begin() + 1, c.nodes.end()));
}

NPU_REGISTER_PASS(FuseActivation, 400);

}  // namespace npu::compiler
