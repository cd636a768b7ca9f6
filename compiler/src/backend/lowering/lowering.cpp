// Lowering (lowering.hpp): the walk over the graph. Places each node on the NPU or the host,
// links aliases, zero-copy views and Concat inputs placed in their output, composes layout
// views, and hands every NPU node to its entry in the lowering table (lowering_table.hpp, one
// file per op family); each run of host nodes becomes one Host layer. Implements LowerCtx, the
// DDR bookkeeping the families lower through.
#include "npu/compiler/backend/lowering/lowering.hpp"
#include "npu/compiler/backend/lowering/int8/int8_lowering.hpp"
#include "npu/compiler/backend/lowering/weight_precision.hpp"
#include "frontend/onnx/onnx_subgraph.hpp"
#include "npu/base/checked_math.hpp"
#include "npu/base/user_text.hpp"

#include "backend/lowering/lowering_table.hpp"

#include <algorithm>
#include <set>

#include "npu/compiler/ir/kv_cache.hpp"
#include "npu/isa/cost/kv_cache_width.hpp"
#include "npu/isa/cost/precision.hpp"
#include <fmt/format.h>
#include "npu/compiler/transforms/pass.hpp"
#include "npu/compiler/transforms/canonicalize/shape_inference.hpp"
#include "npu/compiler/transforms/canonicalize/einsum_shape.hpp"

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
    case LayerKind::Gather: return "gather";
    case LayerKind::Attention: return "attention";
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

using lowering::concat_outer;
using lowering::is_const;

// Why an op cannot run on the NPU ("" if it can). `n` has no host-produced inputs.
std::string host_reason(const Graph& g, const Node& n) {
  const std::string& op = n.op_type;
  if (auto r = lowering::shapes_known(g, n); !r.empty()) return "data-dependent shape: " + r;
  if (const lowering::OpLowering* e = lowering::find(op)) return e->check(g, n);
  return "op " + op + " has no NPU lowering";
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
  } else if (const auto einsum = op == "Einsum" ? einsum_shape(g, n) : std::nullopt) {
    macs += einsum->loop_size;  // every index combination multiplies once (two operands)
  } else if ((op == "LSTM" || op == "GRU" || op == "RNN") && shape(0).size() == 3 && n.inputs.size() > 2) {
    // seq x batch x (W + R elements): every gate's input and recurrent matrix-vector products.
    macs += std::uint64_t(shape(0)[0]) * std::uint64_t(shape(0)[1]) * (el(n.inputs[1]) + el(n.inputs[2]));
  } else {
    for (const auto& o : n.outputs) ops += el(o);
  }
}

// Layers are keyed by name downstream (int8 scales, SRAM plans, per-layer report rows), so two
// layers of one name would silently share data and rows. The importer makes node names unique in
// their program spelling; a pass that made up a clashing name is a bug to report, not to run.
void require_unique_layer_names(const std::vector<LayerSpec>& layers) {
  std::set<std::string> seen;
  for (const LayerSpec& L : layers)
    if (!seen.insert(L.name).second)
      throw ConfigError("internal error: two layers are named '" + L.name +
                        "' (a compiler pass gave two nodes one name); please report it with the model");
}

class Lowerer : public lowering::LowerCtx {
 public:
  Lowerer(const Graph& g, const HwConfig& hw)
      : g_(g), e_(dtype_bytes(hw.mac_array.dtype)), int8_(hw.mac_array.dtype == DType::Int8 && is_quantised(g)),
        hw_source_(hw.source),
        sram_capacity_(hw.sram.capacity_bytes), mac_array_(hw.mac_array) {}

  LoweredGraph run() {
    out_.act_bytes = e_;
    out_.int8_execution = int8_;
    classify();
    plan_kv_appends();
    link_aliases_and_concats();
    compose_views();
    for (const auto& in : g_.inputs)
      if (!kv_past_.count(in)) touch(in);
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
    // The past cache has no region of its own: it is the first rows of each (batch, head)
    // block of present's region (LoweredGraph::kv_appends says which).
    for (const KvAppend& a : out_.kv_appends)
      if (out_.place.count(a.present)) {
        out_.place[a.past] = out_.place.at(a.present);
        out_.bytes[a.past] = tensor_bytes(a.past);
      }
    finish_kinds();
    require_unique_layer_names(out_.layers);
    out_.weight_dtype_bytes = weight_dtype_tensor_bytes(out_, mac_array_);
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
    } else if (e_ == 1 && L.kind == LayerKind::Layout && !L.taps_h.i0.empty() && L.linear_weights.empty()) {
      // An int8 config timing an unquantised graph: the bilinear Resize is costed as the program
      // the quantised graph runs (codegen/resize_linear_int8.cpp, ELTWISE lerp / lerp_round),
      // not as a copy; its weight table is 4 B per output row and column, as int8_layer's.
      L.requant = L.name + ".requant";
      touch_param(L.requant, (L.taps_h.i0.size() + L.taps_w.i0.size()) * 4);
    }
    touch(L.output);
    out_.layers.push_back(std::move(L));
  }
  // The common end of a Conv/Gemm layer: epilogue activation, MACs, the DDR tensors it
  // reads (input, weights, bias at 4 B per output channel), then the layer itself.
  void finish_mac(const Node& n, LayerSpec& L) override {
    lowering::epilogue_act(n, L);
    L.macs = L.geom.macs() * std::uint64_t(std::max(L.batch, 1));
    if (L.depth.on()) L.macs = L.geom.macs() * L.depth.taps_run();  // one 2-D conv per (od, kd) run
    if (!L.glu_gate.empty()) L.macs *= 2;  // fuse-swiglu: the gate GEMM's MACs too
    touch(L.inputs[0]);
    touch(L.weight);
    touch(L.glu_gate);
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
  std::uint64_t sram_capacity() const override { return sram_capacity_; }
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
  // Registers a graph tensor read/written by an NPU layer (its root in first-use order).
  void touch(const std::string& t) override {
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
      if (kv_present_.count(root_graph)) d.kind = isa::TensorKind::KvCache;
      if (std::find(g_.inputs.begin(), g_.inputs.end(), root_graph) != g_.inputs.end() ||
          host_tensors_.count(root_graph))
        d.kind = isa::TensorKind::Input;
      root_index_[p.root] = out_.ddr_tensors.size();
      out_.ddr_tensors.push_back(d);
    }
  }

  // LowerCtx::int32_ids: every tensor on the way is an integer one, linked to its input's bytes
  // (link_aliases_and_concats: an alias or a view), down to an integer graph input.
  bool int32_ids(const std::string& t0) const override {
    std::string t = t0;
    for (int guard = 0; guard < 1000 && g_.has_tensor(t); ++guard) {
      const Tensor& tt = g_.tensor(t);
      if (tt.is_constant || (tt.type != ElemType::Int64 && tt.type != ElemType::Int32)) return false;
      const auto p = g_.producer(t);
      if (!p) return std::find(g_.inputs.begin(), g_.inputs.end(), t) != g_.inputs.end();
      const auto it = link_.find(t);
      if (role_[*p] != Role::Alias || it == link_.end() || g_.nodes[*p].inputs.empty() ||
          it->second.root != g_.nodes[*p].inputs[0])
        return false;
      t = it->second.root;
    }
    return false;
  }
  [[noreturn]] void fail(const Node& n, const std::string& why) const override { lowering::fail(g_, n, why); }
  const std::set<std::string>& composed() const override { return composed_; }
  const lowering::ConcatCopies* concat_copies(const Node& n) const override {
    auto it = concat_copies_.find(n.name);
    return it == concat_copies_.end() ? nullptr : &it->second;
  }

 private:
  enum class Role { Const, Host, Alias, Npu };

  // Why a node whose inputs are all constants stays on the host. A Loop/Scan/If body may read
  // tensors of the enclosing graph it does not list as inputs (Mask R-CNN's paste_masks_in_image
  // Loop reads the masks and boxes): then its result depends on the data, not a fold.
  std::string all_const_reason(const Node& n) const {
    std::string computed;
    int k = 0;
    for (const std::string& t : outer_scope_reads(n))
      if (!is_const(g_, t) && k++ < 3) computed += (computed.empty() ? "'" : ", '") + echo(t) + "'";
    if (computed.empty()) return "all inputs are constants (an op the front-end does not fold)";
    return "its inputs are constants, but its subgraph reads " + computed + (k > 3 ? " and more" : "") +
           ", which the program computes: the result depends on the data, so it cannot be folded at import";
  }

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
      if (all_const) reason = all_const_reason(n);
      if (reason.empty() && n.on_host) reason = n.host_reason.empty() ? "placed on the host by the front-end" : n.host_reason;
      if (reason.empty()) reason = host_reason(g_, n);
      // A batch above 1 or a 1-D convolution has a fix on the user's side (--input-shape,
      // re-export): an error naming it, not a network quietly simulated on the host.
      if (reason.rfind("batch ", 0) == 0 || reason.rfind("1-D convolution", 0) == 0)
        throw ConfigError((g_.source.empty() ? "model '" + g_.name + "'" : g_.source) + ": error: node '" +
                          n.name + "' (" + n.op_type + "): cannot be lowered to the NPU: " + reason);
      if (!reason.empty()) {
        place_on_host(i, reason);
        continue;
      }
      if (const lowering::OpLowering* e = lowering::find(n.op_type); e && e->alias) role_[i] = Role::Alias;
    }
  }

  // Host results come back: an NPU node reading one loads it from DDR, where the host wrote it
  // (a crossing, costed in the host layer). The inputs it reads from the NPU are host-visible
  // (nodes come in graph order, so a host-produced input is already in host_tensors_).
  void place_on_host(std::size_t i, const std::string& reason) {
    const Node& n = g_.nodes[i];
    role_[i] = Role::Host;
    // host_nodes is in graph order: a node placed after classify() goes before the later ones.
    const auto at = std::lower_bound(host_index_.begin(), host_index_.end(), i) - host_index_.begin();
    host_index_.insert(host_index_.begin() + at, i);
    out_.host_nodes.insert(out_.host_nodes.begin() + at, {n.name, n.op_type, reason});
    for (const auto& o : n.outputs) host_tensors_.insert(o);
    for (const auto& in : n.inputs)
      if (!in.empty() && !is_const(g_, in) && !host_tensors_.count(in)) host_visible_.insert(in);
  }

  // A Cast to a float type of a graph input's int32 ids (int32_ids) would be a zero-copy view
  // whose int32 bytes every float reader took as fp32 values (an HF export's attention_mask
  // Cast: [1, 0, 1, 3] read as 1.4e-45, 0, ...). The NPU has no int32 -> fp32 conversion, so it
  // stays on the host, which says why; "" for any other node.
  std::string int32_read_as_float(const Node& n) const {
    if (n.op_type != "Cast" || n.inputs.empty() || n.outputs.empty() || !int32_ids(n.inputs[0])) return "";
    const std::int64_t to = n.attr_int("to", 0);  // ONNX FLOAT 1, FLOAT16 10, DOUBLE 11, BFLOAT16 16
    if (to != 1 && to != 10 && to != 11 && to != 16) return "";
    return "Cast of the integer graph input '" + root_input(n.inputs[0]) +
           "' to float: integer graph inputs are int32 in DDR, as the runtime feeds them, and the NPU has no "
           "int32 -> fp32 conversion (feed the input as float, or cast it before the model)";
  }

  // The graph input an int32_ids tensor views.
  std::string root_input(std::string t) const {
    for (auto it = link_.find(t); it != link_.end(); it = link_.find(t)) t = it->second.root;
    return t;
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

  // KV-cache appends (ir/kv_cache.hpp) on the NPU: past lives inside present, so the Concat is
  // a Copy layer of the new rows only, one piece per (batch, head) block, each stored at row
  // P of its block: DDR bytes groups x N x D x elem read (the new rows) and as many written.
  void plan_kv_appends() {
    for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
      KvAppend a;
      if (role_[i] != Role::Npu || !kv_append_problem(g_, g_.nodes[i], &a).empty()) continue;
      const std::uint64_t e = std::uint64_t(e_), rows = a.past_rows + a.new_rows;
      const std::uint64_t piece = a.new_rows * a.row_elems * e;
      lowering::ConcatCopies cc;
      for (std::uint64_t b = 0; b < a.groups; ++b) {
        cc.inputs.push_back(a.groups == 1 ? a.fresh : subview(a.fresh, b * piece, piece));
        cc.dest_offsets.push_back((b * rows + a.past_rows) * a.row_elems * e);
      }
      refuse_kv_width(a);
      concat_copies_[a.node] = std::move(cc);
      kv_past_.insert(a.past);
      kv_present_.insert(a.present);
      out_.kv_appends.push_back(a);
    }
  }

  // A KV cache in a type other than the array's (mac_array.kv_cache_dtype) would need a
  // converting append and narrower attention reads; until the back end emits them it refuses
  // rather than count the cache at the array's width (docs/config.md "Precisions").
  void refuse_kv_width(const KvAppend& a) const {
    const std::string why = isa::kv_cache_width_refusal(mac_array_);
    if (why.empty()) return;
    throw ConfigError(fmt::format("{}: error: {} (KV append '{}'); remove the key or set it to 'same'",
                                  hw_source_.empty() ? std::string("hardware config") : hw_source_, why, a.node));
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
        if (const std::string why = int32_read_as_float(n); !why.empty()) {
          place_on_host(i, why);
          continue;
        }
        const auto offsets = e->view(g_, n);
        if (offsets.empty() || offsets.size() != n.outputs.size()) continue;
        // Offsets are elements of input 0: int32 ids (a Slice of input_ids) are 4 B each.
        const std::uint64_t eb = int32_ids(n.inputs[0]) ? 4 : std::uint64_t(e_);
        for (std::size_t k = 0; k < n.outputs.size(); ++k) {
          if (n.outputs[k].empty()) continue;
          link_[n.outputs[k]] = {n.inputs[0], offsets[k] * eb};
          alias_outputs.insert(n.outputs[k]);
        }
        out_.aliases.push_back(n.name);
        role_[i] = Role::Alias;
      }
    }
    for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      if (role_[i] != Role::Npu || n.op_type != "Concat" || concat_outer(g_, n) != 1 || concat_copies_.count(n.name))
        continue;
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
    for (const std::string& t : lowering::scatter_expands(g_, npu)) composed_.insert(t);  // scatter_ops.cpp
    for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      bool any = false;
      for (const auto& o : n.outputs)
        if (composed_.count(o)) any = true;
      if (any) out_.composed.push_back(n.name);
    }
  }

  // An integer graph input (token ids) is int32 in DDR, as the runtime feeds it, and so is
  // every integer view of it (int32_ids). Integer tensors computed in the program (Faster
  // R-CNN's index arithmetic, by NPU or host nodes) are at the activation width its layers
  // store: the NPU has no integer data path, their traffic is costed at that width.
  std::uint64_t tensor_bytes(const std::string& t) const {
    if (auto it = sub_bytes_.find(t); it != sub_bytes_.end()) return it->second;
    const Tensor& tt = g_.tensor(t);
    if (int32_ids(t))
      return checked_mul(std::uint64_t(tt.elements()), std::uint64_t(4),
                         "error: bytes of tensor '" + echo(t) + "' (int32 elements x 4)");
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

  // One NPU-placed node: its family's entry in the lowering table emits its layer(s).
  void lower_node(const Node& n) {
    const lowering::OpLowering* e = lowering::find(n.op_type);
    if (!e || !e->lower) lowering::fail(g_, n, "internal: no lowering for an NPU-placed " + n.op_type);
    e->lower(*this, n);
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
  std::string hw_source_;
  std::uint64_t sram_capacity_ = 0;
  MacArrayConfig mac_array_;  // for the GEMM weights stored in weight_dtype (weight_precision.hpp)
  LoweredGraph out_;
  std::vector<Role> role_;
  std::set<std::string> host_tensors_;   // produced on the host
  std::vector<std::size_t> host_index_;  // node index of each out_.host_nodes entry (ascending)
  std::set<std::string> host_visible_;   // produced on the NPU, read by the host
  std::map<std::string, std::uint64_t> sub_bytes_;  // subview name -> its bytes
  std::map<std::string, DdrPlace> link_; // graph tensor -> (graph tensor it lives in, offset)
  std::set<std::string> composed_;       // layout op outputs no layer computes (compose_views)
  std::map<std::string, lowering::ConcatCopies> concat_copies_;
  std::set<std::string> kv_past_, kv_present_;  // KV-cache appends' past inputs, present outputs
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
