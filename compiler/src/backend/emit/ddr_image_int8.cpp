// DDR image of int8 programs of quantised graphs (ddr_image_int8.hpp).
#include "backend/emit/ddr_image_int8.hpp"
#include "backend/emit/placed_constants.hpp"

#include <algorithm>
#include <cstring>
#include <set>
#include <stdexcept>

#include "npu/compiler/backend/lowering/int8/int8_lowering.hpp"

namespace npu::compiler {

namespace {


template <class T>
void put(std::vector<DdrSegment>& out, const std::string& what, std::uint64_t addr, const std::vector<T>& v) {
  DdrSegment s;
  s.what = what;
  s.ddr_addr = addr;
  s.bytes.resize(v.size() * sizeof(T));
  std::memcpy(s.bytes.data(), v.data(), s.bytes.size());  // little-endian host, as for fp32
  out.push_back(std::move(s));
}

int gemm_n_tile(const CompileResult& r, const std::string& layer) {
  for (const isa::Instruction& in : r.program.instructions)
    if (in.op == isa::Opcode::Gemm && in.layer == layer) return std::get<isa::GemmParams>(in.params).n;
  return 0;
}

// Output-channel axis of a layer's weights (int8_lowering.hpp).
int weight_axis(const Graph& g, const LayerSpec& L) {
  const Node* n = L.covers.empty() ? nullptr : node_named(g, L.covers[0]);
  if (L.kind != LayerKind::Gemm) return n && n->op_type == "ConvTranspose" ? 1 : 0;
  return n && n->op_type == "Gemm" && n->attr_int("transB", 0) != 0 ? 0 : 1;
}

// A ConvTranspose's int8 weights [Cin, Cout, kh, kw] (group 1) as its stride-1 CONV reads them:
// [Cout, Cin, kh, kw] with the kernel flipped (ddr_image.cpp put_conv_transpose_weights).
std::vector<std::int8_t> conv_transpose_layout(const std::vector<std::int8_t>& w, const ConvGeom& c) {
  const std::uint64_t ci_n = std::uint64_t(c.c_in), co_n = std::uint64_t(c.c_out);
  const std::uint64_t taps = std::uint64_t(c.kh) * std::uint64_t(c.kw);
  std::vector<std::int8_t> v(w.size());
  for (std::uint64_t co = 0; co < co_n; ++co)
    for (std::uint64_t ci = 0; ci < ci_n; ++ci)
      for (std::uint64_t t = 0; t < taps; ++t) v[(co * ci_n + ci) * taps + t] = w[(ci * co_n + co) * taps + (taps - 1 - t)];
  return v;
}

// A Conv over NCDHW's int8 weights [Cout, Cin, kD, kh, kw] kd-major, [kD, Cout, Cin, kh, kw], as
// its depth taps read them (ddr_image.cpp put_conv3d_weights, the fp32 copy).
std::vector<std::int8_t> conv3d_layout(const std::vector<std::int8_t>& w, const LayerSpec& L) {
  const std::uint64_t co_n = std::uint64_t(L.geom.c_out), ci_n = std::uint64_t(L.geom.c_in);
  const std::uint64_t kd_n = std::uint64_t(L.depth.kd), taps = std::uint64_t(L.geom.kh) * std::uint64_t(L.geom.kw);
  if (w.size() != co_n * ci_n * kd_n * taps)
    throw std::logic_error("ddr_image: Conv3d weights '" + L.weight + "' do not hold Cout x Cin x kD x kh x kw values");
  std::vector<std::int8_t> v(w.size());
  for (std::uint64_t co = 0; co < co_n; ++co)
    for (std::uint64_t ci = 0; ci < ci_n; ++ci)
      for (std::uint64_t kd = 0; kd < kd_n; ++kd)
        for (std::uint64_t t = 0; t < taps; ++t) v[((kd * co_n + co) * ci_n + ci) * taps + t] = w[((co * ci_n + ci) * kd_n + kd) * taps + t];
  return v;
}

bool is_view_op(const std::string& op) {
  return op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" || op == "Identity" ||
         op == "Dropout" || op == "Concat";
}

bool integer_tensor(const Tensor& t) { return t.type == ElemType::Int64 || t.type == ElemType::Int32; }

// Graph input `p` with `values`: token ids as int32 indices (4 B each, as in fp32: the gather
// LOAD reads them so); a float input quantised on its grid (ONNX QuantizeLinear), a past KV
// cache (p.blocks) written block by block at row 0 of present's blocks, as the fp32 image does.
void put_int8_input(const Graph& g, const TensorPlacement& p, const std::vector<float>& values,
                    std::vector<DdrSegment>& out) {
  if (integer_tensor(g.tensor(p.name))) {
    put(out, p.name + " (int32)", p.ddr_addr, std::vector<std::int32_t>(values.begin(), values.end()));
    return;
  }
  std::vector<std::int8_t> v;
  for (float x : values) v.push_back(quantise(x, *activation_grid(g.tensor(p.name))));
  if (p.blocks == 0) return put(out, p.name + " (int8)", p.ddr_addr, v);
  const std::size_t per = std::size_t(p.block_bytes);
  for (std::uint64_t k = 0; k < p.blocks; ++k)
    put(out, p.name + " (int8) block " + std::to_string(k), p.ddr_addr + k * p.block_stride_bytes,
        std::vector<std::int8_t>(v.begin() + std::ptrdiff_t(k * per), v.begin() + std::ptrdiff_t((k + 1) * per)));
}

}  // namespace

void int8_problems(const CompileResult& r, std::vector<std::string>& out) {
  const Graph& g = r.graph;
  for (const LayerSpec& L : r.lowered.layers)
    if (!L.int8_problem.empty())
      out.push_back("layer '" + L.name + "' (" + L.op_type + ") has no int8 lowering: " + L.int8_problem);
  for (const auto& list : {g.inputs, g.outputs})
    for (const std::string& t : list)
      if (g.has_tensor(t) && !integer_tensor(g.tensor(t)) && !activation_grid(g.tensor(t)))
        out.push_back("graph input/output '" + t + "' has no per-tensor int8 quantisation (Tensor::quant)");
  // Views and zero-copy concats move no bytes: their input must be on the output's grid.
  for (const std::string& a : r.lowered.aliases) {
    const Node* n = node_named(g, a);
    if (!n || !is_view_op(n->op_type) || n->outputs.empty() || !g.has_tensor(n->outputs[0])) continue;
    if (integer_tensor(g.tensor(n->outputs[0]))) continue;  // a view of token ids: int32 bytes, no grid
    const auto y = activation_grid(g.tensor(n->outputs[0]));
    for (const std::string& in : n->inputs) {
      if (in.empty() || !g.has_tensor(in) || g.tensor(in).is_constant) continue;
      const auto x = activation_grid(g.tensor(in));
      if (!x || !y || !(*x == *y)) {
        out.push_back(n->op_type + " '" + a + "' moves int8 bytes unchanged, but its input '" + in +
                      "' and output are not on the same int8 grid");
        break;
      }
    }
  }
  // Constants that are neither weights nor biases (e.g. an Add's constant operand): on their grid.
  // (A constant weight read per slice, "B@OFFSET+BYTES", is refused by the int8 lowering.)
  std::set<std::string> params;
  for (const LayerSpec& L : r.lowered.layers) {
    if (!L.weight.empty()) params.insert(L.weight);
    if (!L.bias.empty()) params.insert(L.bias);
    const std::size_t at = L.weight.rfind('@');
    if (at != std::string::npos && !g.has_tensor(L.weight)) params.insert(L.weight.substr(0, at));
  }
  for (const PlacedConstant& c : placed_constants(r)) {
    const std::string& name = c.name;
    if (params.count(name)) continue;
    if (!activation_grid(g.tensor(name)))
      out.push_back("constant '" + name + "' has no per-tensor int8 quantisation to store it with");
  }
}

void int8_image(const CompileResult& r, const std::map<std::string, std::vector<float>>& inputs,
                std::vector<DdrSegment>& out) {
  const Graph& g = r.graph;
  std::set<std::string> done;
  for (const LayerSpec& L : r.lowered.layers) {
    const Int8Layer q = int8_layer(g, L);
    if (!L.requant.empty()) put(out, L.requant, placed_ddr_addr(r, L.requant), q.table);
    if (!L.scale_shift.empty() && !q.scale_shift.empty() && done.insert(L.scale_shift).second)
      put(out, L.scale_shift + " (int32 w, b)", placed_ddr_addr(r, L.scale_shift), q.scale_shift);
    if (!L.bias.empty() && !q.bias.empty() && done.insert(L.bias).second)
      put(out, L.bias + " (int32)", placed_ddr_addr(r, L.bias), q.bias);
    if (L.kind == LayerKind::Gather) continue;  // its table: an int8 constant on its grid (below)
    if (L.weight.empty() || !g.has_tensor(L.weight) || !g.tensor(L.weight).is_constant || !done.insert(L.weight).second)
      continue;  // a computed B (attention) is an activation the program writes
    const Tensor& w = g.tensor(L.weight);
    const int axis = weight_axis(g, L);
    std::string problem;
    const std::vector<double> scales = weight_scales(w, axis, L.geom.c_out, problem);
    if (!problem.empty()) throw std::logic_error("ddr_image: " + problem);  // functional_problems reported it
    std::vector<std::int8_t> wq = quantise_weights(w, axis, scales);
    if (L.kind == LayerKind::Conv && axis == 1) wq = conv_transpose_layout(wq, L.geom);
    if (L.kind == LayerKind::Conv && L.depth.on()) wq = conv3d_layout(wq, L);
    if (L.kind == LayerKind::Gemm) {  // B as [K, N], pre-tiled by the program's N tile (ddr_image.hpp)
      const Node* n = L.covers.empty() ? nullptr : node_named(g, L.covers[0]);
      const bool trans_b = n && n->op_type == "Gemm" && n->attr_int("transB", 0) != 0;
      const std::uint64_t K = std::uint64_t(L.geom.c_in), N = std::uint64_t(L.geom.c_out);
      const std::uint64_t t = std::uint64_t(std::max(gemm_n_tile(r, L.name), 1));
      std::vector<std::int8_t> tiled(K * N);
      for (std::uint64_t c0 = 0; c0 < N; c0 += t) {
        const std::uint64_t nt = std::min(t, N - c0);
        for (std::uint64_t k = 0; k < K; ++k)
          for (std::uint64_t c = 0; c < nt; ++c)
            tiled[c0 * K + k * nt + c] = wq[trans_b ? (c0 + c) * K + k : k * N + c0 + c];
      }
      wq = std::move(tiled);
    }
    put(out, L.weight + " (int8)", placed_ddr_addr(r, L.weight), wq);
  }
  for (const PlacedConstant& c : placed_constants(r)) {
    if (done.count(c.name)) continue;
    const auto grid = activation_grid(g.tensor(c.name));
    if (!grid) continue;  // reported by int8_problems
    std::vector<std::int8_t> v;
    for (float x : g.tensor(c.name).float_data) v.push_back(quantise(x, *grid));
    put(out, c.name + " (int8)", c.ddr_addr, v);
  }
  for (const TensorPlacement& p : input_placements(r)) put_int8_input(g, p, inputs.at(p.name), out);
}

}  // namespace npu::compiler
