#include "npu/isa/instruction.hpp"

#include <algorithm>
#include <initializer_list>
#include <tuple>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/requant_operand.hpp"

namespace npu::isa {

const char* to_string(Queue q) {
  switch (q) {
    case Queue::Load: return "ld";
    case Queue::Compute: return "cp";
    case Queue::Store: return "st";
  }
  return "?";
}

std::string to_string(Token t) { return std::string(to_string(t.from)) + "2" + to_string(t.to); }

const char* to_string(ActOp a) {
  switch (a) {
    case ActOp::None: return "none";
    case ActOp::Relu: return "relu";
    case ActOp::Clip: return "clip";
    case ActOp::LeakyRelu: return "leaky_relu";
    case ActOp::Sigmoid: return "sigmoid";
    case ActOp::Silu: return "silu";
    case ActOp::HardSigmoid: return "hard_sigmoid";
    case ActOp::HardSwish: return "hard_swish";
    case ActOp::ScaleShift: return "scale_shift";
    case ActOp::Erf: return "erf";
    case ActOp::Exp: return "exp";
    case ActOp::Sqrt: return "sqrt";
    case ActOp::Reciprocal: return "reciprocal";
    case ActOp::Tanh: return "tanh";
    case ActOp::Gelu: return "gelu";
    case ActOp::Abs: return "abs";
    case ActOp::Neg: return "neg";
    case ActOp::Pow: return "pow";
    case ActOp::Identity: return "identity";
    case ActOp::Softmax: return "softmax";
    case ActOp::LayerNorm: return "layer_norm";
    case ActOp::GeluTanh: return "gelu_tanh";
    case ActOp::RmsNorm: return "rms_norm";
    case ActOp::SoftmaxOnline: return "softmax_online";
    case ActOp::Rope: return "rope";
    case ActOp::Log: return "log";
    case ActOp::Floor: return "floor";
    case ActOp::Ceil: return "ceil";
    case ActOp::Not: return "not";
    case ActOp::Trunc: return "trunc";
    case ActOp::ToBool: return "to_bool";
  }
  return "?";
}

bool is_row_wise(ActOp a) {
  return a == ActOp::Softmax || a == ActOp::LayerNorm || a == ActOp::RmsNorm || a == ActOp::SoftmaxOnline;
}

int act_passes(ActOp a) { return a == ActOp::RmsNorm || a == ActOp::SoftmaxOnline ? 2 : is_row_wise(a) ? 3 : 1; }

std::uint64_t act_param_elems(ActOp a, int channels, std::uint64_t elems, float alpha) {
  const std::uint64_t c = channels > 0 ? std::uint64_t(channels) : 0, row = c ? elems / c : 0;
  switch (a) {
    case ActOp::ScaleShift: return 2 * c;
    case ActOp::LayerNorm: return 2 * row;
    case ActOp::RmsNorm: return row;
    case ActOp::SoftmaxOnline: return 3 * c;  // running max, sum and correction per row
    case ActOp::Rope: return 2 * c * (alpha >= 1 ? std::uint64_t(alpha) : std::max<std::uint64_t>(row, 1));  // cos, sin
    default: return 0;
  }
}

const char* to_string(EltwiseOp e) {
  switch (e) {
    case EltwiseOp::Add: return "add";
    case EltwiseOp::Mul: return "mul";
    case EltwiseOp::Sub: return "sub";
    case EltwiseOp::Div: return "div";
    case EltwiseOp::Max: return "max";
    case EltwiseOp::Min: return "min";
    case EltwiseOp::Pow: return "pow";
    case EltwiseOp::RSub: return "rsub";
    case EltwiseOp::RDiv: return "rdiv";
    case EltwiseOp::Lerp: return "lerp";
    case EltwiseOp::LerpRound: return "lerp_round";
    case EltwiseOp::Equal: return "equal";
    case EltwiseOp::Less: return "less";
    case EltwiseOp::Greater: return "greater";
    case EltwiseOp::LessEqual: return "less_equal";
    case EltwiseOp::GreaterEqual: return "greater_equal";
    case EltwiseOp::And: return "and";
    case EltwiseOp::Or: return "or";
    case EltwiseOp::Xor: return "xor";
    case EltwiseOp::Mod: return "mod";
    case EltwiseOp::FMod: return "fmod";
  }
  return "?";
}

const char* to_string(PoolOp p) {
  switch (p) {
    case PoolOp::Max: return "max";
    case PoolOp::Avg: return "avg";
    case PoolOp::GlobalAvg: return "global_avg";
    case PoolOp::AvgPad: return "avg_pad";
  }
  return "?";
}

const char* to_string(Opcode o) {
  switch (o) {
    case Opcode::Load: return "LOAD";
    case Opcode::Store: return "STORE";
    case Opcode::Conv: return "CONV";
    case Opcode::Gemm: return "GEMM";
    case Opcode::Act: return "ACT";
    case Opcode::Eltwise: return "ELTWISE";
    case Opcode::Pool: return "POOL";
    case Opcode::Sync: return "SYNC";
    case Opcode::Host: return "HOST";
    case Opcode::Move: return "MOVE";
  }
  return "?";
}

const char* to_string(TensorKind k) {
  switch (k) {
    case TensorKind::Input: return "input";
    case TensorKind::Weight: return "weight";
    case TensorKind::Output: return "output";
    case TensorKind::Intermediate: return "intermediate";
    case TensorKind::KvCache: return "kv_cache";
  }
  return "?";
}

bool Epilogue::operator==(const Epilogue& o) const {
  return std::tie(has_bias, bias_addr, has_scale_shift, scale_shift_addr, has_residual, residual_addr, has_mul,
                  mul_addr, act, act_alpha, act_beta, has_in_scale, in_scale_addr, requant) ==
         std::tie(o.has_bias, o.bias_addr, o.has_scale_shift, o.scale_shift_addr, o.has_residual, o.residual_addr,
                  o.has_mul, o.mul_addr, o.act, o.act_alpha, o.act_beta, o.has_in_scale, o.in_scale_addr, o.requant);
}

bool DmaDesc::operator==(const DmaDesc& o) const {
  return std::tie(ddr_addr, sram_addr, elem_bytes, extent, ddr_stride_bytes, gather, index_addr, gather_rows,
                  index_float) == std::tie(o.ddr_addr, o.sram_addr, o.elem_bytes, o.extent, o.ddr_stride_bytes,
                                           o.gather, o.index_addr, o.gather_rows, o.index_float);
}

bool ConvParams::operator==(const ConvParams& o) const {
  return std::tie(in_addr, w_addr, out_addr, c_in, h_in, w_in, c_out, kh, kw, stride_h, stride_w, pad_top,
                  pad_left, pad_bottom, pad_right, dilation, group, epilogue, acc_in, acc_in_addr, acc_out,
                  acc_out_addr) ==
         std::tie(o.in_addr, o.w_addr, o.out_addr, o.c_in, o.h_in, o.w_in, o.c_out, o.kh, o.kw, o.stride_h,
                  o.stride_w, o.pad_top, o.pad_left, o.pad_bottom, o.pad_right, o.dilation, o.group,
                  o.epilogue, o.acc_in, o.acc_in_addr, o.acc_out, o.acc_out_addr);
}

bool GemmParams::operator==(const GemmParams& o) const {
  return std::tie(a_addr, b_addr, out_addr, m, n, k, epilogue) ==
         std::tie(o.a_addr, o.b_addr, o.out_addr, o.m, o.n, o.k, o.epilogue);
}

bool ActParams::operator==(const ActParams& o) const {
  return std::tie(op, in_addr, out_addr, param_addr, elems, channels, alpha, beta, has_param, has_residual,
                  residual_addr, requant) == std::tie(o.op, o.in_addr, o.out_addr, o.param_addr, o.elems, o.channels, o.alpha,
                                             o.beta, o.has_param, o.has_residual, o.residual_addr, o.requant);
}

bool EltwiseParams::operator==(const EltwiseParams& o) const {
  return std::tie(op, a_addr, b_addr, out_addr, elems, b_elems, b_inner, b_offset, requant) ==
         std::tie(o.op, o.a_addr, o.b_addr, o.out_addr, o.elems, o.b_elems, o.b_inner, o.b_offset, o.requant);
}

bool HostParams::operator==(const HostParams& o) const {
  return std::tie(cycles, macs, rd, wr, nodes) == std::tie(o.cycles, o.macs, o.rd, o.wr, o.nodes);
}

bool PoolParams::operator==(const PoolParams& o) const {
  return std::tie(op, in_addr, out_addr, c, h_in, w_in, kh, kw, stride_h, stride_w, pad_top, pad_left, pad_bottom,
                  pad_right, requant) == std::tie(o.op, o.in_addr, o.out_addr, o.c, o.h_in, o.w_in, o.kh, o.kw,
                                                  o.stride_h, o.stride_w, o.pad_top, o.pad_left, o.pad_bottom,
                                                  o.pad_right, o.requant);
}

std::uint64_t MoveParams::elems() const {
  std::uint64_t n = 1;
  for (int d = 0; d < kMaxDims; ++d)
    if (__builtin_mul_overflow(n, std::uint64_t(extent[std::size_t(d)]), &n)) return UINT64_MAX;
  return n;
}

std::uint64_t MoveParams::span_elems(const std::array<std::uint32_t, kMaxDims>& stride) const {
  std::uint64_t span = 1;
  for (std::size_t d = 0; d < std::size_t(kMaxDims); ++d) {
    if (extent[d] == 0) return 0;
    const std::uint64_t step = std::uint64_t(extent[d] - 1) * stride[d];  // < 2^64: both < 2^32
    if (__builtin_add_overflow(span, step, &span)) return UINT64_MAX;
  }
  return span;
}

std::uint64_t MoveParams::out_elems() const {
  const std::uint64_t span = span_elems(out_stride);
  return span == 0 ? 0 : std::max<std::uint64_t>(span, zero);
}

bool MoveParams::operator==(const MoveParams& o) const {
  return std::tie(in_addr, out_addr, rank, extent, in_stride, out_stride, zero) ==
         std::tie(o.in_addr, o.out_addr, o.rank, o.extent, o.in_stride, o.out_stride, o.zero);
}

Queue Instruction::queue() const {
  switch (op) {
    case Opcode::Load: return Queue::Load;
    case Opcode::Store: return Queue::Store;
    case Opcode::Sync: return std::get<SyncParams>(params).queue;
    default: return Queue::Compute;
  }
}

bool Instruction::operator==(const Instruction& o) const {
  return std::tie(op, layer, tensor, wait, push, params) == std::tie(o.op, o.layer, o.tensor, o.wait, o.push, o.params);
}

bool TensorDecl::operator==(const TensorDecl& o) const {
  return std::tie(name, kind, ddr_addr, bytes) == std::tie(o.name, o.kind, o.ddr_addr, o.bytes);
}

bool Program::operator==(const Program& o) const {
  return std::tie(version, name, strategy, dtype, compiled_for, tensors, instructions) ==
         std::tie(o.version, o.name, o.strategy, o.dtype, o.compiled_for, o.tensors, o.instructions);
}

namespace {

// Product of dimensions as bytes; a non-positive dimension makes the operand empty.
// Throws npu::ConfigError naming the dimensions when the product does not fit in 64 bits.
std::uint64_t dims_bytes(std::initializer_list<long long> dims, long long elem_bytes) {
  std::uint64_t n = elem_bytes > 0 ? std::uint64_t(elem_bytes) : 0;
  std::string expr;
  for (long long d : dims) {
    const std::uint64_t f = d > 0 ? std::uint64_t(d) : 0;
    std::uint64_t r = 0;
    if (__builtin_mul_overflow(n, f, &r)) {
      std::vector<std::uint64_t> all;
      for (long long x : dims) all.push_back(x > 0 ? std::uint64_t(x) : 0);
      std::string list;
      for (auto x : all) list += std::to_string(x) + " x ";
      throw ConfigError(fmt::format("operand bytes: {}{} (element bytes) exceeds the limit of {}", list, elem_bytes,
                                    describe_limit(kU64Max)));
    }
    n = r;
  }
  return n;
}

// A MOVE operand's bytes: span x element bytes, capped at 2^48 (far past any SRAM, and small
// enough that address + bytes cannot wrap): a span past the SRAM is reported by the checker as
// an SRAM range error, not as an arithmetic one.
std::uint64_t span_bytes(std::uint64_t span, long long elem_bytes) {
  constexpr std::uint64_t kCap = std::uint64_t(1) << 48;
  std::uint64_t r = 0;
  if (__builtin_mul_overflow(span, std::uint64_t(elem_bytes > 0 ? elem_bytes : 0), &r)) return kCap;
  return std::min(r, kCap);
}

// `in_scale_bytes`: in_scale[c_in] (CONV) or in_scale[k] (GEMM) in the program dtype.
void add_epilogue(std::vector<SramOperand>& ops, const Epilogue& e, long long channels, std::uint64_t out_bytes,
                  std::uint64_t in_scale_bytes) {
  if (e.has_in_scale) ops.push_back({"in_scale", e.in_scale_addr, in_scale_bytes, false});
  if (e.has_bias) ops.push_back({"bias", e.bias_addr, dims_bytes({channels}, kParamElemBytes), false});
  if (e.has_scale_shift)
    ops.push_back({"scale_shift", e.scale_shift_addr, dims_bytes({2, channels}, kParamElemBytes), false});
  if (e.has_residual) ops.push_back({"residual", e.residual_addr, out_bytes, false});
  if (e.has_mul) ops.push_back({"mul", e.mul_addr, out_bytes, false});
  if (e.requant.on) ops.push_back({"requant", e.requant.addr, dims_bytes({channels}, Requant::kPairBytes), false});
}

}  // namespace

std::vector<SramOperand> sram_operands(const Instruction& inst, DType dtype) {
  const long long eb = dtype_bytes(dtype);
  std::vector<SramOperand> ops;
  std::visit(
      [&](const auto& p) {
        using T = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<T, DmaDesc>) {
          ops.push_back({"sram", p.sram_addr, dims_bytes({p.extent[0], p.extent[1], p.extent[2]}, p.elem_bytes),
                         inst.op == Opcode::Load});
          if (p.gather) ops.push_back({"index", p.index_addr, dims_bytes({p.extent[1]}, 4), false});
        } else if constexpr (std::is_same_v<T, ConvParams>) {
          const long long cin_per_group = p.group > 0 ? p.c_in / p.group : 0;
          const bool shape_ok = p.stride_h > 0 && p.stride_w > 0;
          const std::uint64_t out = shape_ok ? dims_bytes({p.c_out, p.h_out(), p.w_out()}, eb) : 0;
          ops.push_back({"in", p.in_addr, dims_bytes({p.c_in, p.h_in, p.w_in}, eb), false});
          ops.push_back({"w", p.w_addr, dims_bytes({p.c_out, cin_per_group, p.kh, p.kw}, eb), false});
          // Partial sums (acc_in / acc_out) are 4 B per output element whatever the dtype.
          const std::uint64_t acc = shape_ok ? dims_bytes({p.c_out, p.h_out(), p.w_out()}, kAccElemBytes) : 0;
          if (p.acc_in) ops.push_back({"acc_in", p.acc_in_addr, acc, false});
          if (p.acc_out) {
            ops.push_back({"acc_out", p.acc_out_addr, acc, true});
            if (p.epilogue.has_in_scale) ops.push_back({"in_scale", p.epilogue.in_scale_addr, dims_bytes({p.c_in}, eb), false});
            if (p.epilogue.requant.on)
              ops.push_back({"requant", p.epilogue.requant.addr, dims_bytes({p.c_out}, Requant::kPairBytes), false});
          } else {
            ops.push_back({"out", p.out_addr, out, true});
            add_epilogue(ops, p.epilogue, p.c_out, out, dims_bytes({p.c_in}, eb));
          }
        } else if constexpr (std::is_same_v<T, GemmParams>) {
          const std::uint64_t out = dims_bytes({p.m, p.n}, eb);
          ops.push_back({"a", p.a_addr, dims_bytes({p.m, p.k}, eb), false});
          ops.push_back({"b", p.b_addr, dims_bytes({p.k, p.n}, eb), false});
          ops.push_back({"out", p.out_addr, out, true});
          add_epilogue(ops, p.epilogue, p.n, out, dims_bytes({p.k}, eb));
        } else if constexpr (std::is_same_v<T, ActParams>) {
          ops.push_back({"in", p.in_addr, dims_bytes({p.elems}, eb), false});
          if (p.has_residual) ops.push_back({"res", p.residual_addr, dims_bytes({p.elems}, eb), false});
          ops.push_back({"out", p.out_addr, dims_bytes({p.elems}, eb), true});
          if (act_param_elems(p.op, p.channels, p.elems, p.alpha) > 0)  // softmax_online updates its state in place
            ops.push_back({"param", p.param_addr,
                           dims_bytes({(long long)act_param_elems(p.op, p.channels, p.elems, p.alpha)}, kParamElemBytes),
                           p.op == ActOp::SoftmaxOnline});
          // scale_shift: one pair per channel; LUT ops: 256 B; softmax: its exp table; layer_norm and
          // rms_norm: the eps word pair and one pair per column; the others: one pair. Softmax and the
          // norms were listed as one pair: the rest of their tables looked free to keep-resident,
          // which placed a resident tensor over them (convnext_tiny's int8 LayerNorm read a pair of
          // activation bytes as its shift).
          if (p.requant.on) ops.push_back({"requant", p.requant.addr, requant_table_bytes(inst), false});
        } else if constexpr (std::is_same_v<T, EltwiseParams>) {
          // lerp: int8 taps in, int32 out; lerp_round: int32 taps in, int8 out (b never broadcast).
          const long long in_b = p.op == EltwiseOp::LerpRound ? kAccElemBytes : eb;
          const long long out_b = p.op == EltwiseOp::Lerp ? kAccElemBytes : eb;
          const bool b_full = is_lerp(p.op) || !p.broadcast();
          ops.push_back({"a", p.a_addr, dims_bytes({p.elems}, in_b), false});
          ops.push_back({"b", p.b_addr, dims_bytes({b_full ? p.elems : p.b_elems}, in_b), false});
          ops.push_back({"out", p.out_addr, dims_bytes({p.elems}, out_b), true});
          if (p.requant.on) ops.push_back({"requant", p.requant.addr, requant_table_bytes(inst), false});
        } else if constexpr (std::is_same_v<T, PoolParams>) {
          const bool shape_ok = p.stride_h > 0 && p.stride_w > 0;
          ops.push_back({"in", p.in_addr, dims_bytes({p.c, p.h_in, p.w_in}, eb), false});
          ops.push_back({"out", p.out_addr, shape_ok ? dims_bytes({p.c, p.h_out(), p.w_out()}, eb) : 0, true});
          if (p.requant.on) ops.push_back({"requant", p.requant.addr, Requant::kActTableBytes, false});
        } else if constexpr (std::is_same_v<T, MoveParams>) {
          const std::uint64_t touched = span_bytes(p.elems(), eb);
          ops.push_back({"in", p.in_addr, span_bytes(p.span_elems(p.in_stride), eb), false, touched});
          ops.push_back({"out", p.out_addr, span_bytes(p.out_elems(), eb), true, std::max<std::uint64_t>(touched, span_bytes(p.zero, eb))});
        }
      },
      inst.params);
  return ops;
}

}  // namespace npu::isa
