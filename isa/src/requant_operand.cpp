// Legality of the int8 requantisation operand (requant_operand.hpp).
#include "npu/isa/requant_operand.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace npu::isa {

namespace {

bool in_int8(int v) { return v >= -128 && v <= 127; }

// `pad_code`: a POOL avg_pad, whose zp=IN,IN without requant is the code of its padding taps.
std::string ranges(const Requant& r, bool has_b, bool pad_code) {
  for (auto [name, v] : {std::pair<const char*, int>{"zp (input)", r.in_zp}, {"zp (b)", r.b_zp}, {"zp (output)", r.out_zp},
                         {"clamp min", r.clamp_min}, {"clamp max", r.clamp_max}})
    if (!in_int8(v)) return fmt::format("{} {} is outside the int8 range [-128, 127]", name, v);
  if (!has_b && r.b_zp != 0) return "zp of a b operand on an instruction with one input";
  if (r.clamp_min > r.clamp_max) return fmt::format("clamp min {} > max {}", r.clamp_min, r.clamp_max);
  if (!r.on && pad_code && r.clamp_min == -128 && r.clamp_max == 127) {
    if (r.in_zp != r.out_zp)
      return fmt::format("zp={},{} on POOL avg_pad: its padding's code is the input's zero point and the pool keeps "
                         "its grid, so IN and OUT are equal", r.in_zp, r.out_zp);
    return "";
  }
  if (!r.on && (r.in_zp != 0 || r.b_zp != 0 || r.out_zp != 0 || r.clamp_min != -128 || r.clamp_max != 127))
    return "zp/clamp given without requant (they are part of the int8 requantisation)";
  return "";
}

}  // namespace

bool act_uses_lut(ActOp op) {
  switch (op) {
    case ActOp::None:
    case ActOp::Relu:
    case ActOp::Clip:
    case ActOp::Identity:
    case ActOp::ScaleShift:
    case ActOp::Softmax:
    case ActOp::LayerNorm:
    case ActOp::RmsNorm:
    case ActOp::SoftmaxOnline:
    case ActOp::Rope: return false;
    default: return true;
  }
}

std::uint64_t requant_table_bytes(const Instruction& inst) {
  const Requant* r = requant_of(inst);
  if (!r || !r->on) return 0;
  if (const auto* c = std::get_if<ConvParams>(&inst.params)) return std::uint64_t(std::max(c->c_out, 0)) * Requant::kPairBytes;
  if (const auto* g = std::get_if<GemmParams>(&inst.params)) return std::uint64_t(std::max(g->n, 0)) * Requant::kPairBytes;
  if (const auto* a = std::get_if<ActParams>(&inst.params)) {
    if (a->op == ActOp::ScaleShift) return std::uint64_t(std::max(a->channels, 0)) * Requant::kPairBytes;
    if (a->op == ActOp::Softmax) return kSoftmaxTableBytes;
    if (a->op == ActOp::LayerNorm || a->op == ActOp::RmsNorm)
      return (a->elems / std::uint64_t(std::max(a->channels, 1)) + 1) * Requant::kPairBytes;
    return act_uses_lut(a->op) ? kActLutBytes : Requant::kActTableBytes;
  }
  if (const auto* e = std::get_if<EltwiseParams>(&inst.params)) {
    if (is_lerp(e->op)) return std::uint64_t(e->broadcast() ? e->b_elems : e->elems) * kParamElemBytes;  // weights
    return e->op == EltwiseOp::Mul ? kEltwiseMulTableBytes : Requant::kEltwiseTableBytes;
  }
  return Requant::kActTableBytes;  // POOL global_avg: one pair
}

const Requant* requant_of(const Instruction& inst) {
  if (const auto* c = std::get_if<ConvParams>(&inst.params)) return &c->epilogue.requant;
  if (const auto* g = std::get_if<GemmParams>(&inst.params)) return &g->epilogue.requant;
  if (const auto* a = std::get_if<ActParams>(&inst.params)) return &a->requant;
  if (const auto* e = std::get_if<EltwiseParams>(&inst.params)) return &e->requant;
  if (const auto* p = std::get_if<PoolParams>(&inst.params)) return &p->requant;
  return nullptr;
}

std::string requant_problem(const Instruction& inst) {
  const Requant* r = requant_of(inst);
  if (!r) return "";
  const auto* pool = std::get_if<PoolParams>(&inst.params);
  const bool pad_code = pool && pool->op == PoolOp::AvgPad;
  if (std::string why = ranges(*r, inst.op == Opcode::Eltwise, pad_code); !why.empty()) return why;
  if (r->mask_lowest) {
    const auto* act = std::get_if<ActParams>(&inst.params);
    if (act && act->op == ActOp::Softmax && !r->on)
      return "mask=-128 on ACT op=softmax without requant=: the mask is part of the int8 softmax, whose exp table "
             "requant= gives; add requant=ADDRESS (docs/isa.md) or leave mask out";
    if (!act || act->op != ActOp::Softmax)
      return fmt::format("mask=-128 on {}: only an int8 ACT op=softmax (with requant=) has masked keys; leave it out",
                         act ? "ACT op=" + std::string(to_string(act->op)) : std::string(to_string(inst.op)));
  }
  if (const auto* el = std::get_if<EltwiseParams>(&inst.params); el && is_lerp(el->op)) {
    if (!r->on)
      return fmt::format("ELTWISE op={} without requant=: its requant operand is the table of int32 blend weights "
                         "(docs/isa.md \"ELTWISE lerp\"); give its SRAM address", to_string(el->op));
    if (r->in_zp != 0 || r->b_zp != 0 || r->out_zp != 0 || r->clamp_min != -128 || r->clamp_max != 127)
      return fmt::format("zp/clamp on ELTWISE op={}: the blend's weights sum to 2^10, so a zero point passes "
                         "through and the result is already in range; give none", to_string(el->op));
    return "";
  }
  if (!r->on) return "";
  const Epilogue* e = nullptr;
  if (const auto* c = std::get_if<ConvParams>(&inst.params)) e = &c->epilogue;
  if (const auto* g = std::get_if<GemmParams>(&inst.params)) e = &g->epilogue;
  if (e) {
    const char* other = e->has_scale_shift ? "scale_shift"
                        : e->has_residual  ? "residual"
                        : e->has_mul       ? "mul"
                        : e->has_in_scale  ? "in_scale"
                                           : nullptr;
    if (other)
      return fmt::format("requant cannot be combined with '{}' on {} (int8 has no rule for it; run it as a separate "
                         "instruction)", other, to_string(inst.op));
    if (e->act != ActOp::None && e->act != ActOp::Relu && e->act != ActOp::Clip)
      return fmt::format("requant with act={}: the int8 epilogue applies the activation as the clamp, so act must "
                         "be none, relu or clip", to_string(e->act));
  }
  if (const auto* a = std::get_if<ActParams>(&inst.params)) {
    if (a->op != ActOp::Relu && a->op != ActOp::Clip && a->op != ActOp::Identity && a->op != ActOp::ScaleShift &&
        a->op != ActOp::Softmax && a->op != ActOp::LayerNorm && a->op != ActOp::RmsNorm && !act_uses_lut(a->op))
      return fmt::format("requant on ACT op={}: int8 ACT is relu, clip, identity (a rescale and a clamp), "
                         "scale_shift (a per-channel affine map), softmax, layer_norm, rms_norm (integer row "
                         "statistics) or an element-wise function (a lookup table); not softmax_online or rope",
                         to_string(a->op));
    if (a->has_residual) return "requant cannot be combined with 'res' on ACT (use an ELTWISE add with requant)";
    if (act_uses_lut(a->op) && (r->in_zp != 0 || r->out_zp != 0))
      return fmt::format("zp on ACT op={}: its requant operand is a 256-entry lookup table that holds the zero "
                         "points; give none", to_string(a->op));
  }
  if (const auto* p = std::get_if<PoolParams>(&inst.params))
    if (p->op != PoolOp::GlobalAvg)
      return fmt::format("requant on POOL op={}: int8 POOL requantises only global_avg (max and avg keep their "
                         "input's grid)", to_string(p->op));
  if (const auto* el = std::get_if<EltwiseParams>(&inst.params))
    if (el->op != EltwiseOp::Add && el->op != EltwiseOp::Mul)
      return fmt::format("requant on ELTWISE op={}: int8 ELTWISE is add, mul, lerp or lerp_round", to_string(el->op));
  return "";
}

}  // namespace npu::isa
