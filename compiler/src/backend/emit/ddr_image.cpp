// DDR image emitter and tensor placements for runs with data (ddr_image.hpp).
#include "npu/compiler/backend/emit/ddr_image.hpp"

#include "backend/emit/ddr_image_int8.hpp"
#include "backend/emit/placed_constants.hpp"
#include "npu/compiler/backend/lowering/int8/int8_lowering.hpp"
#include "npu/compiler/ir/pool_window.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

namespace npu::compiler {

namespace {

bool has_values(const Tensor& t) {
  return t.is_constant && t.elements() >= 0 && std::int64_t(t.float_data.size()) == t.elements();
}

bool integer_tensor(const Tensor& t) { return t.type == ElemType::Int64 || t.type == ElemType::Int32; }

// An integer or bool constant an NPU layer reads (a detection head's class count in a Mod, a
// level number in an Equal): its values, as every NPU tensor holds them, in the activation
// type (fp32 here; exact up to 2^24).
bool has_int_values(const Tensor& t) {
  return t.is_constant && t.type != ElemType::Float32 && t.type != ElemType::Float16 && t.float_data.empty() &&
         t.elements() >= 0 && std::int64_t(t.int_data.size()) == t.elements();
}

std::vector<float> constant_values(const Tensor& t) {
  if (!has_int_values(t)) return t.float_data;
  return std::vector<float>(t.int_data.begin(), t.int_data.end());
}

std::string where(const CompileResult& r) {
  return r.graph.source.empty() ? "model '" + r.graph.name + "'" : r.graph.source;
}


// The N tile of a GEMM layer: N of its first GEMM instruction (tile 0 is a full tile, or
// the whole N when there is one tile), 0 when the layer has no GEMM.
int gemm_n_tile(const CompileResult& r, const std::string& layer) {
  for (const isa::Instruction& in : r.program.instructions)
    if (in.op == isa::Opcode::Gemm && in.layer == layer) return std::get<isa::GemmParams>(in.params).n;
  return 0;
}

// A GEMM layer's B operand: the graph constant and the element offset of its slice (batched
// MatMul layers read subviews "B@offset+bytes"); nullptr when B is computed at run time.
const Tensor* gemm_weight_source(const CompileResult& r, const std::string& w, std::uint64_t& elem_offset) {
  const auto [name, offset] = constant_of_place(r.graph, w);
  elem_offset = offset / 4;
  return name.empty() ? nullptr : &r.graph.tensor(name);
}

void put(std::vector<DdrSegment>& out, const std::string& what, std::uint64_t addr, const std::vector<float>& v) {
  DdrSegment s;
  s.what = what;
  s.ddr_addr = addr;
  s.bytes.resize(v.size() * 4);
  std::memcpy(s.bytes.data(), v.data(), s.bytes.size());
  out.push_back(std::move(s));
}

std::uint64_t region_addr(const CompileResult& r, const DdrPlace& p) {
  for (const isa::TensorDecl& d : r.program.tensors)
    if (d.name == p.root) return d.ddr_addr + p.offset;
  throw std::logic_error("ddr_image: region '" + p.root + "' is not declared");
}

// Bytes and element type of a graph input/output: fp32, or int8 on its grid.
void set_elements(const CompileResult& r, const Tensor& t, TensorPlacement& p) {
  const std::uint64_t n = std::uint64_t(std::max<std::int64_t>(t.elements(), 0));
  const auto grid = r.lowered.int8_execution ? activation_grid(t) : std::nullopt;
  p.int8 = grid.has_value();
  if (grid) p.scale = grid->scale, p.zero_point = grid->zero_point;
  p.bytes = n * (p.int8 ? 1 : 4);
}

// The mode of a Resize layer's node ("?" when not found), for its message.
std::string resize_mode(const Graph& g, const LayerSpec& L) {
  const Node* n = L.covers.empty() ? nullptr : node_named(g, L.covers[0]);
  return n ? n->attr_string("mode", "nearest") : std::string("?");
}

}  // namespace

std::vector<std::string> functional_problems(const CompileResult& r) {
  std::vector<std::string> out;
  const Graph& g = r.graph;
  if (r.program.dtype == DType::Int8 && !r.lowered.int8_execution)
    out.push_back("the program's dtype is int8 but the model carries no quantisation (no tensor has scale and zero "
                  "point): quantise it first (a QDQ/QLinear model, or the post-training quantisation pass), or use "
                  "a config with mac_array.dtype: fp32");
  else if (r.program.dtype != DType::Fp32 && r.program.dtype != DType::Int8)
    out.push_back(std::string("the program's dtype is ") + to_string(r.program.dtype) +
                  ": the data path computes fp32 and int8 programs only (use a config with mac_array.dtype: fp32)");
  if (r.lowered.int8_execution) int8_problems(r, out);
  // A KV-cache append in int8: the past cache is written block by block inside present
  // (ddr_image_int8.cpp put_int8_input), on present's grid (the Concat shares it).
  for (const LayerSpec& L : r.lowered.layers) {
    const std::string id = "layer '" + L.name + "' (" + L.op_type + ")";
    switch (L.kind) {
      case LayerKind::Host: out.push_back(id + " runs on the host; host partitions are costed, not computed"); break;
      case LayerKind::Layout:
        if (!L.bound_note.empty())
          out.push_back(id + ": " + L.bound_note + " (the data path has no Loop: each trip's Resize size depends on its box, "
                             "which the program does not compute)");
        else if (L.layout.empty() && L.op_type == "Resize" && !L.linear_resize())
          out.push_back(id + ": only nearest Resize is computed (by MOVE: integer factors, or a fraction whose "
                             "index map repeats within 64 residues); this Resize is mode '" +
                             resize_mode(g, L) + "' or its nearest map does not repeat, which the ISA only costs as a "
                             "streaming pass: it is not computed");
        else if (L.layout.empty() && !L.zero_insert && !L.linear_resize())
          out.push_back(id + " is a layout copy the ISA costs as a streaming pass (no MOVE lowering for this op or "
                             "form); it is not computed");
        // int8: the zero insertion's 0 bytes are the real 0 on a grid with zero point 0, which the
        // ConvTranspose's CONV layer requires (its int8_problem says so otherwise)
        break;
      case LayerKind::Resize:
        if (L.layout.empty())
          out.push_back(id + ": nearest upsampling in this coordinate mode has no MOVE lowering (an identity ACT "
                             "only costs it); it is not computed");
        break;
      default: break;
    }
    if (!L.scale_shift.empty()) {  // BN scale/shift or LayerNorm gamma/beta: made from the node's constants
      const Node* pn = node_named(g, L.scale_shift.substr(0, L.scale_shift.rfind('.')));
      const bool bn = pn && pn->op_type == "BatchNormalization";
      const std::size_t need = bn ? 5 : 2;
      for (std::size_t i = 1; pn && i < pn->inputs.size() && i < (bn ? 5 : 3); ++i)
        if (!pn->inputs[i].empty() && (!g.has_tensor(pn->inputs[i]) || !has_values(g.tensor(pn->inputs[i]))))
          out.push_back(id + ": parameter '" + pn->inputs[i] + "' has no fp32 values (a structural model)");
      if (!pn || pn->inputs.size() < need)
        out.push_back(id + ": parameters of '" + L.scale_shift + "' not found");
    }
    const Node* n = L.covers.empty() ? nullptr : node_named(g, L.covers[0]);
    if (!n) continue;
    if (L.kind == LayerKind::Pool && (n->op_type == "ReduceSum" || n->op_type == "ReduceMin"))
      out.push_back(id + " runs as a pool of equal cost (global_avg/max), which computes another value");
    if (L.kind == LayerKind::Pool && L.pool == isa::PoolOp::Avg && avg_pool_counts_padding(g, *n))
      out.push_back(id + " has count_include_pad=1 and a window past the padding (ceil_mode, or a 3-D pool); POOL "
                    "avg divides by the taps inside the input, avg_pad by the whole window");
    if (L.kind == LayerKind::Gemm) {
      if (n->op_type == "Gemm" && n->attr_int("transA", 0) != 0) out.push_back(id + " has transA=1");
      if (!L.bias.empty() && g.has_tensor(L.bias) && g.tensor(L.bias).elements() != L.geom.c_out)
        out.push_back(id + ": bias '" + L.bias + "' has " + std::to_string(g.tensor(L.bias).elements()) +
                      " elements, not one per output column (" + std::to_string(L.geom.c_out) + ")");
      // A B computed at run time is stored row-major by its producer and read by strided
      // LOADs per N tile (codegen.cpp); only constant weights are pre-tiled.
    }
  }
  for (const PlacedConstant& c : placed_constants(r)) {
    const std::string& name = c.name;
    if (!has_values(g.tensor(name)) && !has_int_values(g.tensor(name)))
      out.push_back("constant '" + name + "' has no values (a structural model): nothing to load");
  }
  return out;
}

std::vector<TensorPlacement> input_placements(const CompileResult& r) {
  std::vector<TensorPlacement> out;
  for (const std::string& t : r.graph.inputs) {
    if (!r.lowered.place.count(t))
      throw ConfigError(where(r) + ": error: graph input '" + t + "' is not read by the NPU program (it feeds " +
                        "host nodes only, or nothing); it has no DDR place");
    TensorPlacement p;
    p.name = t;
    p.ddr_tensor = r.lowered.place.at(t).root;
    p.ddr_addr = placed_ddr_addr(r, t);
    p.shape = r.graph.tensor(t).shape;
    set_elements(r, r.graph.tensor(t), p);
    for (const KvAppend& a : r.lowered.kv_appends)
      if (a.past == t) {
        const std::uint64_t row_bytes = a.row_elems * std::uint64_t(r.lowered.act_bytes);
        p.blocks = a.groups;
        p.block_bytes = a.past_rows * row_bytes;
        p.block_stride_bytes = (a.past_rows + a.new_rows) * row_bytes;
      }
    out.push_back(p);
  }
  return out;
}

std::vector<TensorPlacement> output_placements(const CompileResult& r) {
  std::vector<TensorPlacement> out;
  for (const std::string& t : r.graph.outputs) {
    auto it = r.lowered.output_place.find(t);
    if (it == r.lowered.output_place.end())
      throw ConfigError(where(r) + ": error: graph output '" + t + "' is not written by the NPU program " +
                        "(a host result, or a constant); it cannot be read back from DDR");
    TensorPlacement p;
    p.name = t;
    p.ddr_tensor = it->second.root;
    p.ddr_addr = region_addr(r, it->second);
    p.shape = r.graph.tensor(t).shape;
    set_elements(r, r.graph.tensor(t), p);
    out.push_back(p);
  }
  return out;
}

namespace {

// Throws ConfigError when the program cannot run with data (functional_problems) or `inputs`
// do not match the graph inputs (a name that is not one, a missing one, a wrong count).
void check_runnable(const CompileResult& r, const std::map<std::string, std::vector<float>>& inputs) {
  const std::vector<std::string> problems = functional_problems(r);
  if (!problems.empty()) {
    std::string msg = where(r) + ": error: the program for strategy '" + r.program.strategy +
                      "' cannot be executed with data:";
    for (const std::string& p : problems) msg += "\n  " + p;
    throw ConfigError(msg + "\n  fix: run it without data (timing only), or change the model/config as named");
  }
  const Graph& g = r.graph;
  for (const auto& [name, values] : inputs)
    if (std::find(g.inputs.begin(), g.inputs.end(), name) == g.inputs.end())
      throw ConfigError(where(r) + ": error: '" + name + "' is not a graph input (inputs: " +
                        [&] { std::string s; for (const auto& i : g.inputs) s += (s.empty() ? "" : ", ") + i; return s; }() + ")");
  for (const TensorPlacement& p : input_placements(r)) {
    const std::uint64_t n = p.bytes / (p.int8 ? 1 : 4);
    auto it = inputs.find(p.name);
    if (it == inputs.end())
      throw ConfigError(where(r) + ": error: no values given for graph input '" + p.name + "' (" + std::to_string(n) +
                        " fp32 elements expected)");
    if (it->second.size() != n)
      throw ConfigError(where(r) + ": error: graph input '" + p.name + "' needs " + std::to_string(n) +
                        " fp32 elements, got " + std::to_string(it->second.size()));
  }
}

// A layer's scale_shift parameters, a tensor only the program has: BatchNormalization's
// per-channel scale gamma / sqrt(var + eps) then shift beta - mean * scale (ONNX
// BatchNormalization, inference form), LayerNormalization's gamma[D] then beta[D], or
// RMSNormalization's gamma[D].
void put_scale_shift(const CompileResult& r, const LayerSpec& L, std::vector<DdrSegment>& out) {
  const Graph& g = r.graph;
  const std::string& ss = L.scale_shift;
  const std::size_t dot = ss.rfind('.');
  const Node* pn = node_named(g, ss.substr(0, dot));
  if (!pn) throw std::logic_error("ddr_image: no node for parameter tensor '" + ss + "'");
  auto vals = [&](std::size_t i) -> std::vector<float> {
    if (i >= pn->inputs.size() || pn->inputs[i].empty()) return {};
    return g.tensor(pn->inputs[i]).float_data;
  };
  std::vector<float> v;
  if (pn->op_type == "BatchNormalization") {
    const std::vector<float> gamma = vals(1), beta = vals(2), mean = vals(3), var = vals(4);
    const double eps = pn->attr_float("epsilon", 1e-5f);
    const std::size_t c = gamma.size();
    v.resize(2 * c);
    for (std::size_t k = 0; k < c; ++k) {
      const double scale = double(gamma[k]) / std::sqrt(double(var[k]) + eps);
      v[k] = float(scale);
      v[c + k] = float(double(beta[k]) - double(mean[k]) * scale);
    }
  } else if (pn->op_type == "RMSNormalization") {
    v = vals(1);
  } else {  // LayerNormalization: gamma[D] then beta[D]
    const std::vector<float> gamma = vals(1);
    std::vector<float> beta = vals(2);
    beta.resize(gamma.size(), 0.0f);
    v = gamma;
    v.insert(v.end(), beta.begin(), beta.end());
  }
  put(out, ss, placed_ddr_addr(r, ss), v);
}

// A GEMM's norm prologue parameters (fuse-norm-prologue): gamma[K] then, for LayerNormalization,
// beta[K], from the anchor node's inputs 4 and 5 (matmul_ops.cpp set_prologue names the tensor
// "<node>.norm_params").
void put_prologue_params(const CompileResult& r, const LayerSpec& L, std::vector<DdrSegment>& out) {
  const std::string& pp = L.prologue_params;
  const Node* n = node_named(r.graph, pp.substr(0, pp.rfind('.')));
  if (!n || n->inputs.size() < 6) throw std::logic_error("ddr_image: no prologue node for '" + pp + "'");
  std::vector<float> v = r.graph.tensor(n->inputs[4]).float_data;
  if (L.prologue == isa::ActOp::LayerNorm) {
    const std::vector<float>& beta = r.graph.tensor(n->inputs[5]).float_data;
    v.insert(v.end(), beta.begin(), beta.end());
  }
  put(out, pp, placed_ddr_addr(r, pp), v);
}

// A GEMM's rotary table (fuse-rope): cos[d] then sin[d] for each of the S positions, from the
// anchor node's inputs 6 and 7 (constants broadcasting to [S, d]; matmul_ops.cpp set_rope names
// the tensor "<node>.rope_table"). A table without values (a built-in network) is not written.
void put_rope_table(const CompileResult& r, const LayerSpec& L, std::vector<DdrSegment>& out) {
  const std::string& rt = L.rope_table;
  const Node* n = node_named(r.graph, rt.substr(0, rt.rfind('.')));
  if (!n || n->inputs.size() < 8) throw std::logic_error("ddr_image: no rotary node for '" + rt + "'");
  const std::vector<float>& c = r.graph.tensor(n->inputs[6]).float_data;
  const std::vector<float>& s = r.graph.tensor(n->inputs[7]).float_data;
  const std::size_t d = std::size_t(L.rope_dim), S = std::size_t(L.rope_positions);
  if (c.size() != S * d || s.size() != S * d) return;
  std::vector<float> v;
  v.reserve(2 * S * d);
  for (std::size_t p = 0; p < S; ++p) {
    v.insert(v.end(), c.begin() + std::ptrdiff_t(p * d), c.begin() + std::ptrdiff_t((p + 1) * d));
    v.insert(v.end(), s.begin() + std::ptrdiff_t(p * d), s.begin() + std::ptrdiff_t((p + 1) * d));
  }
  put(out, rt, placed_ddr_addr(r, rt), v);
}

// A GEMM layer's constant B pre-tiled by its N tile (x alpha, transB applied), and its bias
// x beta where beta != 1 (ONNX Gemm); these overwrite the natural copies. `n`: its anchor node.
// `weight`: L.weight, or fuse-swiglu's gate weights (LayerSpec::glu_gate), tiled alike.
void put_gemm_weights(const CompileResult& r, const LayerSpec& L, const Node& n, const std::string& weight,
                      std::vector<DdrSegment>& out) {
  std::uint64_t off = 0;
  const Tensor* b = gemm_weight_source(r, weight, off);
  if (!b) return;  // computed B: written row-major by its producer (one N tile, checked above)
  const std::uint64_t K = std::uint64_t(L.geom.c_in), N = std::uint64_t(L.geom.c_out);
  const bool trans_b = n.op_type == "Gemm" && n.attr_int("transB", 0) != 0;
  const float alpha = n.op_type == "Gemm" ? n.attr_float("alpha", 1.0f) : 1.0f;
  const std::uint64_t t = std::uint64_t(std::max(gemm_n_tile(r, L.name), 1));
  std::vector<float> tiled(K * N);
  for (std::uint64_t c0 = 0; c0 < N; c0 += t) {
    const std::uint64_t nt = std::min(t, N - c0);
    for (std::uint64_t k = 0; k < K; ++k)
      for (std::uint64_t c = 0; c < nt; ++c) {
        const std::uint64_t col = c0 + c;
        const float w = b->float_data[off + (trans_b ? col * K + k : k * N + col)];
        tiled[c0 * K + k * nt + c] = alpha * w;
      }
  }
  put(out, weight + " (pre-tiled by " + std::to_string(t) + " columns)", placed_ddr_addr(r, weight), tiled);
  const float beta = n.op_type == "Gemm" ? n.attr_float("beta", 1.0f) : 1.0f;
  if (weight == L.weight && !L.bias.empty() && beta != 1.0f) {
    std::vector<float> bias = r.graph.tensor(L.bias).float_data;
    for (float& x : bias) x *= beta;
    put(out, L.bias + " (x beta)", placed_ddr_addr(r, L.bias), bias);
  }
}

// A ConvTranspose's stride-1 CONV (conv_transpose.cpp) reads its weights as a Conv's
// [Cout, Cin/g, kh, kw]; ONNX gives [Cin, Cout/g, kh, kw]. Over the zero-inserted input the
// convolution equals the transposed one with the kernel flipped (Dumoulin & Visin 2016, sec. 4):
// W'[co][ci][a][b] = W[g Cin/g + ci][co - g Cout/g][kh-1-a][kw-1-b] for co in group g. This
// overwrites the natural copy.
void put_conv_transpose_weights(const CompileResult& r, const LayerSpec& L, std::vector<DdrSegment>& out) {
  const Tensor& w = r.graph.tensor(L.weight);
  const ConvGeom& c = L.geom;
  const std::uint64_t cin_g = std::uint64_t(c.cin_per_group()), cout_g = std::uint64_t(c.cout_per_group());
  const std::uint64_t kh = std::uint64_t(c.kh), kw = std::uint64_t(c.kw), taps = kh * kw;
  if (w.float_data.size() != std::uint64_t(c.c_in) * cout_g * taps) return;  // no values: refused above
  std::vector<float> v(w.float_data.size());
  for (std::uint64_t co = 0; co < std::uint64_t(c.c_out); ++co)
    for (std::uint64_t ci = 0; ci < cin_g; ++ci)
      for (std::uint64_t t = 0; t < taps; ++t) {
        const std::uint64_t src_ci = co / cout_g * cin_g + ci, src_co = co % cout_g;
        v[(co * cin_g + ci) * taps + t] = w.float_data[(src_ci * cout_g + src_co) * taps + (taps - 1 - t)];
      }
  put(out, L.weight + " (as the stride-1 conv's, flipped)", placed_ddr_addr(r, L.weight), v);
}

// A Conv over NCDHW (codegen/conv3d.cpp) reads its weights kd-major, [kD, Cout, Cin, kh, kw],
// so that one kd slice of an output-channel tile with every input channel is one contiguous
// run; ONNX gives [Cout, Cin, kD, kh, kw]: W'[kd][co][ci][t] = W[co][ci][kd][t]. This overwrites
// the natural copy.
void put_conv3d_weights(const CompileResult& r, const LayerSpec& L, std::vector<DdrSegment>& out) {
  const Tensor& w = r.graph.tensor(L.weight);
  const std::uint64_t co_n = std::uint64_t(L.geom.c_out), ci_n = std::uint64_t(L.geom.c_in);
  const std::uint64_t kd_n = std::uint64_t(L.depth.kd), taps = std::uint64_t(L.geom.kh) * std::uint64_t(L.geom.kw);
  if (w.float_data.size() != co_n * ci_n * kd_n * taps) return;  // no values: refused above
  std::vector<float> v(w.float_data.size());
  for (std::uint64_t co = 0; co < co_n; ++co)
    for (std::uint64_t ci = 0; ci < ci_n; ++ci)
      for (std::uint64_t kd = 0; kd < kd_n; ++kd)
        for (std::uint64_t t = 0; t < taps; ++t)
          v[((kd * co_n + co) * ci_n + ci) * taps + t] = w.float_data[((co * ci_n + ci) * kd_n + kd) * taps + t];
  put(out, L.weight + " (kd-major, as the depth taps read it)", placed_ddr_addr(r, L.weight), v);
}

}  // namespace

std::vector<DdrSegment> ddr_image(const CompileResult& r, const std::map<std::string, std::vector<float>>& inputs) {
  check_runnable(r, inputs);
  const Graph& g = r.graph;
  std::vector<DdrSegment> out;
  if (r.lowered.int8_execution) {
    int8_image(r, inputs, out);
    check_every_weight_written(r, out);
    return out;
  }
  // 1. Constants in their ONNX layout (whole, also those read only through subviews).
  for (const PlacedConstant& c : placed_constants(r)) put(out, c.name, c.ddr_addr, constant_values(g.tensor(c.name)));
  // 2. Parameters that exist only in the program, the GEMM weights pre-tiled, the
  //    ConvTranspose weights as a conv's and the Conv3d weights kd-major (these overwrite the
  //    natural copy written above).
  for (const LayerSpec& L : r.lowered.layers) {
    const Node* n = L.covers.empty() ? nullptr : node_named(g, L.covers[0]);
    if (!L.scale_shift.empty()) put_scale_shift(r, L, out);
    if (!L.prologue_params.empty()) put_prologue_params(r, L, out);
    if (!L.rope_table.empty()) put_rope_table(r, L, out);
    if (L.kind == LayerKind::Gemm && n) put_gemm_weights(r, L, *n, L.weight, out);
    if (L.kind == LayerKind::Gemm && n && !L.glu_gate.empty()) put_gemm_weights(r, L, *n, L.glu_gate, out);
    if (L.kind == LayerKind::Conv && n && n->op_type == "ConvTranspose") put_conv_transpose_weights(r, L, out);
    if (L.kind == LayerKind::Conv && L.depth.on()) put_conv3d_weights(r, L, out);
    if (!L.linear_weights.empty()) {  // a bilinear Resize's weights: rows', then columns'
      std::vector<float> v = L.taps_h.w;
      v.insert(v.end(), L.taps_w.w.begin(), L.taps_w.w.end());
      put(out, L.linear_weights, placed_ddr_addr(r, L.linear_weights), v);
    }
  }
  // 3. The graph inputs (checked above).
  //    An int64/int32 input (token ids) is stored as int32, 4 bytes an element (docs/functional.md).
  for (const TensorPlacement& p : input_placements(r)) {
    const std::vector<float>& v = inputs.at(p.name);
    if (integer_tensor(g.tensor(p.name))) {
      std::vector<std::int32_t> idx(v.begin(), v.end());
      DdrSegment s;
      s.what = p.name + " (int32)";
      s.ddr_addr = p.ddr_addr;
      s.bytes.resize(idx.size() * 4);
      std::memcpy(s.bytes.data(), idx.data(), s.bytes.size());
      out.push_back(std::move(s));
      continue;
    }
    if (p.blocks == 0) {
      put(out, p.name, p.ddr_addr, v);
      continue;
    }
    // A past KV cache: block k (one (batch, head) pair) at row 0 of present's block k.
    const std::size_t per = std::size_t(p.block_bytes / 4);
    for (std::uint64_t k = 0; k < p.blocks; ++k)
      put(out, p.name + " block " + std::to_string(k), p.ddr_addr + k * p.block_stride_bytes,
          std::vector<float>(v.begin() + std::ptrdiff_t(k * per), v.begin() + std::ptrdiff_t((k + 1) * per)));
  }
  check_every_weight_written(r, out);
  return out;
}

std::vector<float> decode_f32(const std::vector<unsigned char>& bytes) {
  if (bytes.size() % 4 != 0)
    throw ConfigError("error: " + std::to_string(bytes.size()) + " bytes are not a whole number of fp32 values");
  std::vector<float> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

}  // namespace npu::compiler
