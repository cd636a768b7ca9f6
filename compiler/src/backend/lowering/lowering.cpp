#include "npu/compiler/backend/lowering/lowering.hpp"
#include "npu/compiler/backend/lowering/int8/int8_lowering.hpp"
#include "npu/base/checked_math.hpp"
#include "npu/base/user_text.hpp"

#include "backend/lowering/lowering_table.hpp"

#include <algorithm>
#include <set>

#include "npu/compiler/transforms/pass.hpp"
#include "npu/compiler/transforms/canonicalize/shape_inference.hpp"

namespace npu::compiler {

const char* to_string(LayerKind k) {
  switch (k) {
    case LayerKind::Conv: return "conv";
    case LayerKind::Gemm: return "gemm";
    case LayerKind::Act: return "act";
    case LayerKind::Eltwise: return "eltwise";
    case LayerKind::Pool: return "pool";
    case LayerKind::Resize: return "resize";
    case LayerKind::Copy: return "copy";
    case LayerKind::Layout: return "layout";
    case LayerKind::Host: return "host";
  }
  return "?";
}

std::string isa_name(const std::string& name) {
  std::string s = name.empty() ? std::string("_") : name;
  for (char& c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '.' || c == '/' || c == ':' || c == '+' || c == '-';
    if (!ok) c = '_';
  }
  return s;
}

namespace {

const std::set<std::string> kAliasOps = {"Flatten", "Reshape", "Identity", "Squeeze", "Unsqueeze", "Dropout"};
const std::set<std::string> kActOps = {"Relu", "Clip", "LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish"};

isa::ActOp act_from_name(const std::string& s) {
  if (s == "relu" || s == "Relu") return isa::ActOp::Relu;
  if (s == "clip" || s == "Clip") return isa::ActOp::Clip;
  if (s == "leaky_relu" || s == "LeakyRelu") return isa::ActOp::LeakyRelu;
  if (s == "sigmoid" || s == "Sigmoid") return isa::ActOp::Sigmoid;
  if (s == "silu") return isa::ActOp::Silu;
  if (s == "hard_sigmoid" || s == "HardSigmoid") return isa::ActOp::HardSigmoid;
  if (s == "hard_swish" || s == "HardSwish") return isa::ActOp::HardSwish;
  if (s == "gelu" || s == "Gelu") return isa::ActOp::Gelu;
  return isa::ActOp::None;
}

[[noreturn]] void fail(const Graph& g, const Node& n, const std::string& why) {
  throw ConfigError(g.name + ": node '" + n.name + "' (" + n.op_type + "): error: " + why);
}

bool is_const(const Graph& g, const std::string& t) { return !t.empty() && g.has_tensor(t) && g.tensor(t).is_constant; }

const std::vector<std::int64_t>& shape_of(const Graph& g, const Node& n, const std::string& t) {
  if (!g.has_tensor(t)) fail(g, n, "tensor '" + t + "' is not in the graph");
  const Tensor& tt = g.tensor(t);
  if (!tt.shape_known())
    fail(g, n, "tensor '" + t + "' has unknown shape " + shape_string(tt.shape) +
                   " (run shape inference, or give the model input a static shape)");
  return tt.shape;
}

// Fills the activation of a Conv/Gemm epilogue from the fused attributes.
void epilogue_act(const Node& n, LayerSpec& L) {
  const std::string act = n.attr_string(fused_attr::kAct, "");
  if (act.empty()) return;
  L.act = act_from_name(act);
  const float lo = -3.4e38f, hi = 3.4e38f;
  if (L.act == isa::ActOp::Clip) {
    L.act_alpha = n.has_attr(fused_attr::kActAlpha) ? n.attr_float(fused_attr::kActAlpha, 0) : lo;
    L.act_beta = n.has_attr(fused_attr::kActBeta) ? n.attr_float(fused_attr::kActBeta, 0) : hi;
    // ONNX Clip: with min > max every value becomes max (Operators.md, Clip-13).
    if (L.act_alpha > L.act_beta) L.act_alpha = L.act_beta;
  } else {
    L.act_alpha = n.attr_float(fused_attr::kActAlpha, 0);
    L.act_beta = n.attr_float(fused_attr::kActBeta, 0);
  }
}

// Pads for one spatial axis: explicit pads, or auto_pad SAME_UPPER/SAME_LOWER/VALID.
void axis_pads(const std::string& auto_pad, int in, int out, int k, int s, int d, int explicit_begin,
               int explicit_end, int& begin, int& end) {
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    const int total = std::max(0, (out - 1) * s + d * (k - 1) + 1 - in);
    begin = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    end = total - begin;
  } else if (auto_pad == "VALID") {
    begin = end = 0;
  } else {
    begin = explicit_begin;
    end = explicit_end;
  }
}

// "batch N: ...; pass --input-shape NAME=1xCxHxW" for every graph input with a batch > 1.
std::string batch_problem(const Graph& g, std::int64_t batch) {
  std::string fix;
  for (const auto& in : g.inputs) {
    if (!g.has_tensor(in)) continue;
    const auto& s = g.tensor(in).shape;
    if (s.empty() || s[0] <= 1) continue;
    std::string dims = "1";
    for (std::size_t i = 1; i < s.size(); ++i) dims += "x" + std::to_string(s[i]);
    fix += std::string(fix.empty() ? "" : " ") + "--input-shape " + in + "=" + dims;
  }
  if (fix.empty()) fix = "--input-shape NAME=1xCxHxW for the graph input";
  return "batch " + std::to_string(batch) +
         ": the NPU lowering supports batch 1 (run the images one at a time); pass " + fix;
}

// Why an op cannot run on the NPU ("" if it can). `n` has no host-produced inputs.
std::string host_reason(const Graph& g, const Node& n) {
  const std::string& op = n.op_type;
  if (auto r = lowering::shapes_known(g, n); !r.empty()) return "data-dependent shape: " + r;
  if (const lowering::OpLowering* e = lowering::find(op)) return e->check(g, n);
  auto rank4_batch1 = [&](const std::string& t) -> std::string {
    if (!g.has_tensor(t)) return "input '" + t + "' missing";
    const auto& s = g.tensor(t).shape;
    if (s.size() != 4) {
      if (op == "Conv" && s.size() == 3)
        return "1-D convolution (input " + shape_string(s) +
               "): the NPU lowering supports 2-D convolutions on 4-D NCHW tensors only; re-export the "
               "model with it as a 2-D Conv with a 1xK kernel on an N x C x 1 x L input";
      return "needs a 4-D NCHW tensor, got " + shape_string(s) +
             "; re-export the model with 4-D NCHW activations for this op";
    }
    if (s[0] < 1) return batch_problem(g, s[0]);  // batch N >= 1: images one after another
    return "";
  };
  if (op == "Conv") {
    if (n.inputs.size() < 2 || !is_const(g, n.inputs[1])) return "Conv weights are not constant";
    if (auto r = rank4_batch1(n.inputs[0]); !r.empty()) return r;
    const auto d = n.attr_ints("dilations", {1, 1});
    if (d.size() == 2 && d[0] != d[1]) return "different dilations per axis";
    if (n.inputs.size() >= 3 && !n.inputs[2].empty() && !is_const(g, n.inputs[2])) return "Conv bias is not constant";
    return "";
  }
  if (op == "Gemm" || op == "MatMul") {
    if (n.inputs.size() < 2 || !is_const(g, n.inputs[1])) return op + " with a non-constant B operand";
    if (!g.has_tensor(n.inputs[0]) || g.tensor(n.inputs[0]).shape.size() != 2 || g.tensor(n.inputs[1]).shape.size() != 2)
      return op + " on tensors that are not 2-D";
    if (n.attr_int("transA", 0) != 0) return "Gemm with transA=1";
    if (n.inputs.size() >= 3 && !n.inputs[2].empty()) {
      const std::int64_t nn = g.tensor(n.outputs[0]).shape.back();
      if (!is_const(g, n.inputs[2]) || g.tensor(n.inputs[2]).elements() != nn)
        return "Gemm C is not a constant vector of N elements";
    }
    return "";
  }
  if (op == "BatchNormalization") {
    std::size_t outs = 0;
    for (const auto& o : n.outputs) outs += o.empty() ? 0 : 1;
    if (outs != 1 || n.attr_int("training_mode", 0) != 0) return "training-form BatchNormalization";
    return rank4_batch1(n.inputs[0]);
  }
  if (kActOps.count(op)) {
    if (op == "Clip")
      for (std::size_t i = 1; i < n.inputs.size(); ++i)
        if (!n.inputs[i].empty() && !is_const(g, n.inputs[i])) return "Clip bound computed at run time";
    return "";
  }
  if (op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" || op == "GlobalMaxPool") {
    if (n.outputs.size() > 1 && !n.outputs[1].empty()) return "MaxPool with an Indices output";
    return rank4_batch1(n.inputs[0]);
  }
  if (op == "Resize" || op == "Upsample") {
    for (std::size_t i = 1; i < n.inputs.size(); ++i)
      if (!n.inputs[i].empty() && !is_const(g, n.inputs[i])) return "Resize scales/sizes computed at run time";
    return rank4_batch1(n.inputs[0]);  // integer nearest: upsampling layer; else a layout copy
  }
  if (kAliasOps.count(op)) return "";
  if (op == "Concat") return "";  // outermost axis: zero copy / copies; inner axis: a layout copy
  return "op " + op + " has no NPU lowering";
}

// Product of the Concat output's axes before the concat axis (1: inputs are contiguous slices).
std::int64_t concat_outer(const Graph& g, const Node& n) {
  const auto& out = g.tensor(n.outputs[0]).shape;
  std::int64_t axis = n.attr_int("axis", 1);
  if (axis < 0) axis += std::int64_t(out.size());
  std::int64_t outer = 1;
  for (std::int64_t i = 0; i < axis && i < std::int64_t(out.size()); ++i) outer *= out[std::size_t(i)];
  return outer;
}

bool is_resize_nearest_integer(const Graph& g, const Node& n) {
  if (n.attr_string("mode", "nearest") != "nearest") return false;
  const auto& in = g.tensor(n.inputs[0]).shape;
  const auto& out = g.tensor(n.outputs[0]).shape;
  return out.size() == 4 && in.size() == 4 && out[1] == in[1] && out[2] % in[2] == 0 && out[3] % in[3] == 0;
}

// Work of one host-placed node: MACs for the MAC ops, one op per output element otherwise.
void host_work(const Graph& g, const Node& n, std::uint64_t& macs, std::uint64_t& ops) {
  auto el = [&](const std::string& t) -> std::uint64_t {
    return g.has_tensor(t) && g.tensor(t).shape_known() ? std::uint64_t(g.tensor(t).elements()) : 0;
  };
  auto shape = [&](std::size_t i) -> std::vector<std::int64_t> {
    return i < n.inputs.size() && g.has_tensor(n.inputs[i]) ? g.tensor(n.inputs[i]).shape : std::vector<std::int64_t>{};
  };
  const std::string& op = n.op_type;
  const std::uint64_t out = n.outputs.empty() ? 0 : el(n.outputs[0]);
  if (op == "Conv" && shape(1).size() >= 3) {
    std::uint64_t per = 1;
    for (std::size_t d = 1; d < shape(1).size(); ++d) per *= std::uint64_t(shape(1)[d]);
    macs += out * per;  // out * Cin/group * kh * kw (ONNX W is [Cout, Cin/group, kh, kw])
  } else if (op == "ConvTranspose" && shape(1).size() >= 3) {
    std::uint64_t per = 1;
    for (std::size_t d = 1; d < shape(1).size(); ++d) per *= std::uint64_t(shape(1)[d]);
    macs += el(n.inputs[0]) * per;  // every input element meets Cout/group * kh * kw weights
  } else if ((op == "MatMul" || op == "Gemm") && !shape(0).empty()) {
    const std::uint64_t k = std::uint64_t(n.attr_int("transA", 0) ? shape(0).front() : shape(0).back());
    macs += out * k;
  } else if ((op == "LSTM" || op == "GRU" || op == "RNN") && shape(0).size() == 3 && n.inputs.size() > 2) {
    // seq x batch x (W + R elements): every gate's input and recurrent matrix-vector products.
    macs += std::uint64_t(shape(0)[0]) * std::uint64_t(shape(0)[1]) * (el(n.inputs[1]) + el(n.inputs[2]));
  } else {
    for (const auto& o : n.outputs) ops += el(o);
  }
}

class Lowerer : public lowering::LowerCtx {
 public:
  Lowerer(const Graph& g, const HwConfig& hw)
      : g_(g), e_(dtype_bytes(hw.mac_array.dtype)), int8_(hw.mac_array.dtype == DType::Int8 && is_quantised(g)) {}

  LoweredGraph run() {
    out_.act_bytes = e_;
    out_.int8_execution = int8_;
    classify();
    link_aliases_and_concats();
    compose_views();
    for (const auto& in : g_.inputs) touch(in);
    std::vector<std::size_t> host_run;
    for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
      if (role_[i] == Role::Host) {
        host_run.push_back(i);
      } else if (role_[i] == Role::Npu) {
        lower_host_run(host_run);
        lower_node(g_.nodes[i]);
      }
    }
    lower_host_run(host_run);
    finish_kinds();
    return std::move(out_);
  }

  // ---- lowering::LowerCtx ----
  const Graph& graph() const override { return g_; }
  int elem_bytes() const override { return e_; }
  LayerSpec base(const Node& n, LayerKind kind) override {
    LayerSpec L;
    L.name = isa_name(n.name);
    L.op_type = n.op_type;
    L.covers = covered_nodes(n);
    L.kind = kind;
    L.output = n.outputs.at(0);
    return L;
  }
  void finish(LayerSpec& L) override {
    for (const auto& in : L.inputs) touch(in);
    if (!L.weight.empty()) touch(L.weight);
    if (!L.residual.empty()) touch(L.residual);
    if (!L.in_scale.empty()) touch(L.in_scale);
    if (int8_) {  // integer parameters of a quantised graph (int8_lowering.hpp)
      const Int8Layer q = int8_layer(g_, L);
      L.int8 = q.imm;
      L.int8_problem = q.problem;
      if (!q.table.empty()) {
        L.requant = L.name + ".requant";
        touch_param(L.requant, q.table.size() * 4);
      }
    }
    touch(L.output);
    out_.layers.push_back(std::move(L));
  }
  // The common end of a Conv/Gemm layer: epilogue activation, MACs, the DDR tensors it
  // reads (input, weights, bias at 4 B per output channel), then the layer itself.
  void finish_mac(const Node& n, LayerSpec& L) override {
    epilogue_act(n, L);
    L.macs = L.geom.macs() * std::uint64_t(std::max(L.batch, 1));
    touch(L.inputs[0]);
    touch(L.weight);
    if (!L.bias.empty()) touch_param(L.bias, std::uint64_t(L.geom.c_out) * isa::kParamElemBytes);
    finish(L);
  }
  // A DDR-only parameter tensor (bias, scale/shift, LayerNorm gamma/beta).
  void touch_param(const std::string& name, std::uint64_t bytes) override {
    declare_own(name, isa::TensorKind::Weight, bytes);
  }
  std::string subview(const std::string& of, std::uint64_t offset, std::uint64_t bytes) override {
    const std::string name = of + "@" + std::to_string(offset) + "+" + std::to_string(bytes);
    link_[name] = {of, offset};
    sub_bytes_[name] = bytes;
    return name;
  }
  std::string temp_tensor(const std::string& name, std::uint64_t bytes) override {
    declare_own(name, isa::TensorKind::Intermediate, bytes);
    return name;
  }
  // A DDR tensor that exists only in the program (no graph tensor behind it), declared once.
  void declare_own(const std::string& name, isa::TensorKind kind, std::uint64_t bytes) {
    if (out_.place.count(name)) return;
    const std::string root = root_name(name);
    out_.place[name] = {root, 0};
    out_.bytes[name] = bytes;
    declared_.insert(root);
    root_index_[root] = out_.ddr_tensors.size();
    out_.ddr_tensors.push_back({root, kind, bytes});
  }
  [[noreturn]] void fail(const Node& n, const std::string& why) const override { npu::compiler::fail(g_, n, why); }
  const std::set<std::string>& composed() const override { return composed_; }

 private:
  enum class Role { Const, Host, Alias, Npu };

  void classify() {
    role_.resize(g_.nodes.size(), Role::Npu);
    for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      if (n.op_type == "Constant") {
        role_[i] = Role::Const;
        continue;
      }
      std::string reason;
      bool all_const = !n.inputs.empty();
      for (const auto& in : n.inputs) all_const = all_const && (in.empty() || is_const(g_, in));
      if (all_const) reason = "all inputs are constants (an op the front-end does not fold)";
      if (reason.empty() && n.on_host) reason = n.host_reason.empty() ? "placed on the host by the front-end" : n.host_reason;
      if (reason.empty()) reason = host_reason(g_, n);
      // A batch above 1 or a 1-D convolution has a fix on the user's side (--input-shape,
      // re-export): an error naming it, not a network quietly simulated on the host.
      if (reason.rfind("batch ", 0) == 0 || reason.rfind("1-D convolution", 0) == 0)
        throw ConfigError((g_.source.empty() ? "model '" + g_.name + "'" : g_.source) + ": error: node '" +
                          n.name + "' (" + n.op_type + "): cannot be lowered to the NPU: " + reason);
      if (!reason.empty()) {
        // Host results come back: an NPU node reading one loads it from DDR, where the
        // host wrote it (a crossing, costed in the host layer).
        role_[i] = Role::Host;
        out_.host_nodes.push_back({n.name, n.op_type, reason});
        for (const auto& o : n.outputs) host_tensors_.insert(o);
        continue;
      }
      if (kAliasOps.count(n.op_type)) role_[i] = Role::Alias;
    }
    for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
      if (role_[i] != Role::Host) continue;
      for (const auto& in : g_.nodes[i].inputs)
        if (!in.empty() && !is_const(g_, in) && !host_tensors_.count(in)) host_visible_.insert(in);
    }
  }

  // A maximal run of consecutive host nodes -> one Host layer (one HOST instruction).
  void lower_host_run(std::vector<std::size_t>& run) {
    if (run.empty()) return;
    std::set<std::string> produced;
    for (std::size_t i : run)
      for (const auto& o : g_.nodes[i].outputs) produced.insert(o);
    LayerSpec L;
    const Node& first = g_.nodes[run.front()];
    L.name = isa_name("host:" + first.name);
    L.op_type = first.op_type;
    L.kind = LayerKind::Host;
    auto bytes_or_unsized = [&](const std::string& t) -> std::uint64_t {
      if (!g_.has_tensor(t) || !g_.tensor(t).shape_known()) {
        ++L.host_unsized;
        return 0;
      }
      return checked_mul(std::uint64_t(g_.tensor(t).elements()), std::uint64_t(e_),
                       "error: bytes of tensor '" + echo(t) + "' (elements x element bytes)");
    };
    std::set<std::string> read;
    for (std::size_t i : run) {
      const Node& n = g_.nodes[i];
      L.covers.push_back(n.name);
      host_work(g_, n, L.host_macs, L.host_ops);
      for (const auto& in : n.inputs) {
        if (in.empty() || produced.count(in) || !read.insert(in).second) continue;
        L.host_rd_bytes += bytes_or_unsized(in);
        if (!is_const(g_, in)) L.inputs.push_back(in);
      }
      for (const auto& o : n.outputs) {
        if (o.empty()) continue;
        bool used_outside = is_graph_output(g_, o);
        for (std::size_t c : g_.consumers(o))
          used_outside = used_outside || std::find(run.begin(), run.end(), c) == run.end();
        if (!used_outside) continue;
        L.host_outputs.push_back(o);
        L.host_wr_bytes += bytes_or_unsized(o);
      }
    }
    for (const auto& in : L.inputs)
      if (g_.tensor(in).shape_known()) touch(in);
    L.output = L.host_outputs.empty() ? std::string() : L.host_outputs.front();
    out_.layers.push_back(std::move(L));
    run.clear();
  }

  // Links: alias outputs point at their input; zero-copy concat inputs at the concat output.
  void link_aliases_and_concats() {
    std::set<std::string> alias_outputs;
    for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      if (role_[i] == Role::Alias) {
        if (is_const(g_, n.inputs[0])) continue;
        link_[n.outputs[0]] = {n.inputs[0], 0};
        alias_outputs.insert(n.outputs[0]);
        out_.aliases.push_back(n.name);
      } else if (role_[i] == Role::Npu) {
        // Zero-copy views (Slice/Split along the outermost axis, all-zero Pad).
        const lowering::OpLowering* e = lowering::find(n.op_type);
        if (!e || !e->view) continue;
        const auto offsets = e->view(g_, n);
        if (offsets.empty() || offsets.size() != n.outputs.size()) continue;
        for (std::size_t k = 0; k < n.outputs.size(); ++k) {
          if (n.outputs[k].empty()) continue;
          link_[n.outputs[k]] = {n.inputs[0], offsets[k] * std::uint64_t(e_)};
          alias_outputs.insert(n.outputs[k]);
        }
        out_.aliases.push_back(n.name);
        role_[i] = Role::Alias;
      }
    }
    for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      if (role_[i] != Role::Npu || n.op_type != "Concat" || concat_outer(g_, n) != 1) continue;
      std::uint64_t offset = 0;
      std::vector<std::string> copies;
      std::vector<std::uint64_t> copy_offsets;
      std::set<std::string> seen;
      for (const auto& in : n.inputs) {
        const std::uint64_t bytes = tensor_bytes(in);
        // An input that is a pure alias (Reshape, Flatten, Squeeze...: the same bytes at
        // offset 0) of a tensor an NPU layer writes places that tensor instead: YOLOv5's head
        // concatenates the Reshapes of three layout layers' outputs.
        std::string placed = in;
        while (alias_outputs.count(placed) && link_.count(placed) && link_.at(placed).offset == 0 &&
               !is_graph_output(g_, placed) && !is_const(g_, link_.at(placed).root) &&
               tensor_bytes(link_.at(placed).root) == bytes)
          placed = link_.at(placed).root;
        const auto p = g_.producer(placed);
        const bool eligible = !is_const(g_, placed) && p && role_[*p] == Role::Npu && !alias_outputs.count(placed) &&
                              !link_.count(placed) && !is_graph_output(g_, placed) && !is_graph_output(g_, in) &&
                              std::count(n.inputs.begin(), n.inputs.end(), in) == 1 && !seen.count(in) &&
                              !seen.count(placed);
        seen.insert(in);
        seen.insert(placed);
        if (eligible) {
          link_[placed] = {n.outputs[0], offset};
        } else {
          copies.push_back(in);
          copy_offsets.push_back(offset);
        }
        offset += bytes;
      }
      if (copies.empty()) {
        out_.aliases.push_back(n.name);
        role_[i] = Role::Alias;  // no code: its producers store into it
      } else {
        concat_copies_[n.name] = {copies, copy_offsets};
      }
    }
  }

  // Layout op outputs read only by MOVE layers are computed by no layer of their own: the
  // readers read through them (lowering_table.hpp composed_views). A node all of whose
  // outputs are composed emits no layer; its name goes to LoweredGraph::composed.
  void compose_views() {
    std::vector<bool> npu(g_.nodes.size());
    for (std::size_t i = 0; i < g_.nodes.size(); ++i) npu[i] = role_[i] == Role::Npu;
    std::set<std::string> placed;
    for (const auto& [t, where] : link_) placed.insert(t);
    auto move_concat = [&](const Node& c) {
      return !concat_copies_.count(c.name) && concat_outer(g_, c) != 1 && !lowering::concat_pieces(g_, c).empty();
    };
    composed_ = lowering::composed_views(g_, npu, placed, move_concat, int8_);
    for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      bool any = false;
      for (const auto& o : n.outputs)
        if (composed_.count(o)) any = true;
      if (any) out_.composed.push_back(n.name);
    }
  }

  std::uint64_t tensor_bytes(const std::string& t) const {
    if (auto it = sub_bytes_.find(t); it != sub_bytes_.end()) return it->second;
    return checked_mul(std::uint64_t(g_.tensor(t).elements()), std::uint64_t(e_),
                       "error: bytes of tensor '" + echo(t) + "' (elements x element bytes)");
  }

  // Root region and offset of a graph tensor.
  DdrPlace resolve(const std::string& t) const {
    DdrPlace p{t, 0};
    for (int guard = 0; guard < 1000; ++guard) {
      auto it = link_.find(p.root);
      if (it == link_.end()) break;
      p.offset += it->second.offset;
      p.root = it->second.root;
    }
    return p;
  }

  // Registers a graph tensor read/written by an NPU layer (its root in first-use order).
  void touch(const std::string& t) {
    if (t.empty() || out_.place.count(t)) return;
    DdrPlace p = resolve(t);
    const std::string root_graph = p.root;
    p.root = root_name(root_graph);
    out_.place[t] = p;
    out_.bytes[t] = tensor_bytes(t);
    if (!declared_.count(p.root)) {
      declared_.insert(p.root);
      DdrTensor d;
      d.name = p.root;
      d.bytes = tensor_bytes(root_graph);
      d.kind = is_const(g_, root_graph) ? isa::TensorKind::Weight : isa::TensorKind::Intermediate;
      if (std::find(g_.inputs.begin(), g_.inputs.end(), root_graph) != g_.inputs.end() ||
          host_tensors_.count(root_graph))
        d.kind = isa::TensorKind::Input;
      root_index_[p.root] = out_.ddr_tensors.size();
      out_.ddr_tensors.push_back(d);
    }
  }

  // Unique .npuasm name for a graph tensor name.
  std::string root_name(const std::string& graph_name) {
    auto it = root_names_.find(graph_name);
    if (it != root_names_.end()) return it->second;
    std::string n = isa_name(graph_name);
    for (int k = 2; used_names_.count(n); ++k) n = isa_name(graph_name) + "~" + std::to_string(k);
    used_names_.insert(n);
    root_names_[graph_name] = n;
    return n;
  }

  void lower_node(const Node& n) {
    const std::string& op = n.op_type;
    if (const lowering::OpLowering* e = lowering::find(op)) return e->lower(*this, n);
    if ((op == "Resize" || op == "Upsample") && !is_resize_nearest_integer(g_, n)) {
      // Bilinear / non-integer: a streaming copy that reads the input once and writes the
      // output once (the interpolation's 4 taps per element are not costed separately).
      LayerSpec L = base(n, LayerKind::Layout);
      L.inputs = {n.inputs[0]};
      L.in_elems = std::uint64_t(g_.tensor(n.inputs[0]).elements());
      L.elems = std::uint64_t(g_.tensor(n.outputs[0]).elements());
      L.channels = int(g_.tensor(n.outputs[0]).shape.at(1));
      return finish(L);
    }
    if (op == "Conv") return lower_conv(n);
    if (op == "Gemm" || op == "MatMul") return lower_gemm(n);
    if (op == "BatchNormalization") {
      LayerSpec L = base(n, LayerKind::Act);
      const auto& s = shape_of(g_, n, n.inputs[0]);
      L.inputs = {n.inputs[0]};
      L.act = isa::ActOp::ScaleShift;
      L.channels = int(s[1]);
      L.elems = std::uint64_t(g_.tensor(n.inputs[0]).elements());
      L.scale_shift = n.name + ".scale_shift";
      touch(n.inputs[0]);
      touch_param(L.scale_shift, 2ull * L.channels * isa::kParamElemBytes);
      if (s[0] > 1) {
        // A batch: one ACT layer per image (its channels' params are the same scale/shift).
        const std::uint64_t per = L.elems / std::uint64_t(s[0]) * std::uint64_t(e_);
        for (std::int64_t b = 0; b < s[0]; ++b) {
          LayerSpec Lb = L;
          Lb.name = L.name + ":n" + std::to_string(b);
          Lb.elems = L.elems / std::uint64_t(s[0]);
          Lb.inputs = {subview(n.inputs[0], std::uint64_t(b) * per, per)};
          Lb.output = subview(L.output, std::uint64_t(b) * per, per);
          finish(Lb);
        }
        return;
      }
      return finish(L);
    }
    if (kActOps.count(op)) {
      LayerSpec L = base(n, LayerKind::Act);
      const auto& s = shape_of(g_, n, n.inputs[0]);
      L.inputs = {n.inputs[0]};
      L.act = act_from_name(op);
      L.channels = s.size() >= 2 ? int(s[1]) : 1;
      L.elems = std::uint64_t(g_.tensor(n.inputs[0]).elements());
      if (op == "Clip") {
        L.act_alpha = -3.4e38f;
        L.act_beta = 3.4e38f;
        if (n.has_attr("min")) L.act_alpha = n.attr_float("min", 0);
        if (n.has_attr("max")) L.act_beta = n.attr_float("max", 0);
        if (n.inputs.size() > 1 && is_const(g_, n.inputs[1]) && !g_.tensor(n.inputs[1]).float_data.empty())
          L.act_alpha = g_.tensor(n.inputs[1]).float_data[0];
        if (n.inputs.size() > 2 && is_const(g_, n.inputs[2]) && !g_.tensor(n.inputs[2]).float_data.empty())
          L.act_beta = g_.tensor(n.inputs[2]).float_data[0];
        if (L.act_alpha > L.act_beta) L.act_alpha = L.act_beta;  // ONNX: min > max -> every value is max
      } else if (op == "LeakyRelu") {
        L.act_alpha = n.attr_float("alpha", 0.01f);
      } else if (op == "HardSigmoid") {
        L.act_alpha = n.attr_float("alpha", 0.2f);
        L.act_beta = n.attr_float("beta", 0.5f);
      }
      return finish(L);
    }
    if (op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" || op == "GlobalMaxPool")
      return lower_pool(n);
    if (op == "Resize" || op == "Upsample") {
      LayerSpec L = base(n, LayerKind::Resize);
      const auto& in = shape_of(g_, n, n.inputs[0]);
      const auto& o = shape_of(g_, n, n.outputs[0]);
      L.inputs = {n.inputs[0]};
      L.channels = int(in[0] * in[1]);  // a batch's planes one after another
      L.geom.c_in = L.geom.c_out = L.channels;
      L.geom.h_in = int(in[2]);
      L.geom.w_in = int(in[3]);
      L.geom.h_out = int(o[2]);
      L.geom.w_out = int(o[3]);
      L.resize_h = int(o[2] / in[2]);
      L.resize_w = int(o[3] / in[3]);
      L.elems = std::uint64_t(g_.tensor(n.outputs[0]).elements());
      L.layout = lowering::upsample_pieces(g_, n);
      return finish(L);
    }
    if (op == "Concat" && !concat_copies_.count(n.name)) {
      // Along an inner axis: the inputs interleave in the output; a layout copy that reads
      // every input once and writes the output once.
      LayerSpec L = base(n, LayerKind::Layout);
      for (const auto& in : n.inputs) {
        L.inputs.push_back(in);
        L.in_elems += std::uint64_t(g_.tensor(in).elements());
      }
      L.elems = std::uint64_t(g_.tensor(n.outputs[0]).elements());
      L.layout = lowering::concat_pieces(g_, n, &composed_);
      lowering::read_through_composed(g_, composed_, L);
      return finish(L);
    }
    if (op == "Concat") {
      LayerSpec L = base(n, LayerKind::Copy);
      const auto& cc = concat_copies_.at(n.name);
      L.inputs = cc.first;
      L.dest_offsets = cc.second;
      L.elems = std::uint64_t(g_.tensor(n.outputs[0]).elements());
      return finish(L);
    }
    npu::compiler::fail(g_, n, "internal: no lowering for an NPU-placed " + op);
  }

  void lower_conv(const Node& n) {
    LayerSpec L = base(n, LayerKind::Conv);
    const auto& x = shape_of(g_, n, n.inputs[0]);
    const auto& w = shape_of(g_, n, n.inputs[1]);
    const auto& y = shape_of(g_, n, n.outputs[0]);
    ConvGeom& c = L.geom;
    L.batch = int(x[0]);
    c.c_in = int(x[1]);
    c.h_in = int(x[2]);
    c.w_in = int(x[3]);
    c.c_out = int(w[0]);
    c.h_out = int(y[2]);
    c.w_out = int(y[3]);
    const auto ks = n.attr_ints("kernel_shape", {w[2], w[3]});
    c.kh = int(ks.at(0));
    c.kw = int(ks.at(1));
    const auto st = n.attr_ints("strides", {1, 1});
    c.stride_h = int(st.at(0));
    c.stride_w = int(st.at(1));
    c.dilation = int(n.attr_ints("dilations", {1, 1}).at(0));
    c.group = int(n.attr_int("group", 1));
    const auto pads = n.attr_ints("pads", {0, 0, 0, 0});
    const std::string ap = n.attr_string("auto_pad", "NOTSET");
    axis_pads(ap, c.h_in, c.h_out, c.kh, c.stride_h, c.dilation, int(pads.at(0)), int(pads.at(2)), c.pad_top,
              c.pad_bottom);
    axis_pads(ap, c.w_in, c.w_out, c.kw, c.stride_w, c.dilation, int(pads.at(1)), int(pads.at(3)), c.pad_left,
              c.pad_right);
    const int h_expect = (c.h_in + c.pad_top + c.pad_bottom - c.dilation * (c.kh - 1) - 1) / c.stride_h + 1;
    const int w_expect = (c.w_in + c.pad_left + c.pad_right - c.dilation * (c.kw - 1) - 1) / c.stride_w + 1;
    if (h_expect < 1 || w_expect < 1)
      npu::compiler::fail(g_, n, "the " + std::to_string(c.kh) + "x" + std::to_string(c.kw) + " window (dilation " +
                                     std::to_string(c.dilation) + ") does not fit the padded input " +
                                     shape_string(x) + ": the output would be empty; pad the input or use a smaller kernel");
    if (h_expect != c.h_out || w_expect != c.w_out || c.c_in % c.group != 0 || c.c_out % c.group != 0 ||
        int(w[1]) != c.c_in / c.group)
      npu::compiler::fail(g_, n, "output shape " + shape_string(y) + " disagrees with the Conv attributes and input " +
                      shape_string(x) + " (expected [1, " + std::to_string(c.c_out) + ", " +
                      std::to_string(h_expect) + ", " + std::to_string(w_expect) + "])");
    L.inputs = {n.inputs[0]};
    L.weight = n.inputs[1];
    if (n.inputs.size() >= 3 && !n.inputs[2].empty()) L.bias = n.inputs[2];
    if (n.attr_int(fused_attr::kResidual, 0) != 0) L.residual = n.inputs.at(3);
    L.in_scale = n.attr_string(fused_attr::kInScale, "");
    finish_mac(n, L);
  }

  void lower_gemm(const Node& n) {
    LayerSpec L = base(n, LayerKind::Gemm);
    const auto& a = shape_of(g_, n, n.inputs[0]);
    const auto& b = shape_of(g_, n, n.inputs[1]);
    const bool trans_b = n.op_type == "Gemm" && n.attr_int("transB", 0) != 0;
    ConvGeom& c = L.geom;
    c.h_in = c.h_out = int(a[0]);
    c.c_in = int(a[1]);
    c.c_out = int(trans_b ? b[0] : b[1]);
    c.w_in = c.w_out = 1;
    c.gemm = true;
    L.inputs = {n.inputs[0]};
    L.weight = n.inputs[1];
    if (n.op_type == "Gemm" && n.inputs.size() >= 3 && !n.inputs[2].empty()) L.bias = n.inputs[2];
    finish_mac(n, L);
  }

  void lower_pool(const Node& n) {
    LayerSpec L = base(n, LayerKind::Pool);
    const auto& x = shape_of(g_, n, n.inputs[0]);
    const auto& y = shape_of(g_, n, n.outputs[0]);
    ConvGeom& c = L.geom;
    c.c_in = c.c_out = c.group = int(x[0] * x[1]);  // a batch's planes pool one after another
    c.h_in = int(x[2]);
    c.w_in = int(x[3]);
    c.h_out = int(y[2]);
    c.w_out = int(y[3]);
    L.inputs = {n.inputs[0]};
    L.channels = c.c_in;
    if (n.op_type == "GlobalAveragePool" || n.op_type == "GlobalMaxPool") {
      L.pool = n.op_type == "GlobalAveragePool" ? isa::PoolOp::GlobalAvg : isa::PoolOp::Max;
      c.kh = c.h_in;
      c.kw = c.w_in;
      return finish(L);
    }
    L.pool = n.op_type == "MaxPool" ? isa::PoolOp::Max : isa::PoolOp::Avg;
    const auto ks = n.attr_ints("kernel_shape");
    if (ks.size() != 2) npu::compiler::fail(g_, n, "kernel_shape must have 2 values");
    c.kh = int(ks[0]);
    c.kw = int(ks[1]);
    const auto st = n.attr_ints("strides", {1, 1});
    c.stride_h = int(st.at(0));
    c.stride_w = int(st.at(1));
    const auto pads = n.attr_ints("pads", {0, 0, 0, 0});
    const std::string ap = n.attr_string("auto_pad", "NOTSET");
    axis_pads(ap, c.h_in, c.h_out, c.kh, c.stride_h, 1, int(pads.at(0)), int(pads.at(2)), c.pad_top, c.pad_bottom);
    axis_pads(ap, c.w_in, c.w_out, c.kw, c.stride_w, 1, int(pads.at(1)), int(pads.at(3)), c.pad_left, c.pad_right);
    // ceil_mode=1 (or any rounding up): extend the bottom/right padding so that the ISA's
    // floor formula gives the graph's output size.
    c.pad_bottom = std::max(c.pad_bottom, (c.h_out - 1) * c.stride_h + c.kh - c.h_in - c.pad_top);
    c.pad_right = std::max(c.pad_right, (c.w_out - 1) * c.stride_w + c.kw - c.w_in - c.pad_left);
    if ((c.h_in + c.pad_top + c.pad_bottom - c.kh) / c.stride_h + 1 != c.h_out ||
        (c.w_in + c.pad_left + c.pad_right - c.kw) / c.stride_w + 1 != c.w_out)
      npu::compiler::fail(g_, n, "output shape " + shape_string(y) + " disagrees with the pooling attributes");
    finish(L);
  }

  void finish_kinds() {
    auto mark_output = [&](const std::string& t) {
      auto it = out_.place.find(t);
      DdrPlace p;
      if (it != out_.place.end()) {
        p = it->second;
      } else {
        // A graph output no layer touches: a view (zero-copy Slice/Split/Reshape) of bytes a
        // layer writes, at its offset inside them (the offset was dropped: a channel Slice's
        // output read back the first channels of its input).
        const DdrPlace r = resolve(t);
        auto rn = root_names_.find(r.root);
        if (rn == root_names_.end()) return;
        p.root = rn->second;
        p.offset = r.offset;
      }
      auto idx = root_index_.find(p.root);
      if (idx == root_index_.end()) return;
      if (std::find(g_.outputs.begin(), g_.outputs.end(), t) != g_.outputs.end()) out_.output_place[t] = p;
      DdrTensor& d = out_.ddr_tensors[idx->second];
      if (d.kind == isa::TensorKind::Intermediate) d.kind = isa::TensorKind::Output;
    };
    for (const auto& o : g_.outputs) mark_output(o);
    for (const auto& t : host_visible_) mark_output(t);
  }

  const Graph& g_;
  int e_;
  bool int8_ = false;  // int8 config and a quantised graph
  LoweredGraph out_;
  std::vector<Role> role_;
  std::set<std::string> host_tensors_;   // produced on the host
  std::set<std::string> host_visible_;   // produced on the NPU, read by the host
  std::map<std::string, std::uint64_t> sub_bytes_;  // subview name -> its bytes
  std::map<std::string, DdrPlace> link_; // graph tensor -> (graph tensor it lives in, offset)
  std::set<std::string> composed_;       // layout op outputs no layer computes (compose_views)
  std::map<std::string, std::pair<std::vector<std::string>, std::vector<std::uint64_t>>> concat_copies_;
  std::set<std::string> declared_;
  std::map<std::string, std::size_t> root_index_;
  std::map<std::string, std::string> root_names_;
  std::set<std::string> used_names_;
};

}  // namespace

LoweredGraph lower(const Graph& graph, const HwConfig& hw) { return Lowerer(graph, hw).run(); }

std::string npu_lowering_problem(const Graph& graph, const Node& node) {
  if (node.op_type == "Constant") return "";
  return host_reason(graph, node);
}

}  // namespace npu::compiler
