#include "npu/hw/functional/ops.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace npu::hw::functional {

void eltwise(const isa::EltwiseParams& p, BackingStore& sram) {
  if (isa::is_lerp(p.op))
    throw std::invalid_argument(std::string("fp32 data path: ELTWISE op=") + isa::to_string(p.op) +
                                " is the int8 integer blend (docs/isa.md); an fp32 program blends with sub, mul, add");
  const std::uint64_t n = p.elems;
  const std::vector<float> a = sram.read_f32(p.a_addr, n);
  const std::vector<float> b = sram.read_f32(p.b_addr, p.broadcast() ? p.b_elems : n);
  std::vector<float> out(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    const float x = a[i], y = b[p.b_index(i)];
    float r = 0.0f;
    switch (p.op) {
      case isa::EltwiseOp::Add: r = x + y; break;
      case isa::EltwiseOp::Mul: r = x * y; break;
      case isa::EltwiseOp::Sub: r = x - y; break;
      case isa::EltwiseOp::Div: r = x / y; break;
      case isa::EltwiseOp::Max: r = std::max(x, y); break;
      case isa::EltwiseOp::Min: r = std::min(x, y); break;
      case isa::EltwiseOp::Pow: r = std::pow(x, y); break;
      case isa::EltwiseOp::RSub: r = y - x; break;
      case isa::EltwiseOp::RDiv: r = y / x; break;
      case isa::EltwiseOp::Lerp:
      case isa::EltwiseOp::LerpRound: break;  // refused above
      case isa::EltwiseOp::Equal: r = x == y ? 1.0f : 0.0f; break;
      case isa::EltwiseOp::Less: r = x < y ? 1.0f : 0.0f; break;
      case isa::EltwiseOp::Greater: r = x > y ? 1.0f : 0.0f; break;
      case isa::EltwiseOp::LessEqual: r = x <= y ? 1.0f : 0.0f; break;
      case isa::EltwiseOp::GreaterEqual: r = x >= y ? 1.0f : 0.0f; break;
      case isa::EltwiseOp::And: r = (x != 0.0f && y != 0.0f) ? 1.0f : 0.0f; break;
      case isa::EltwiseOp::Or: r = (x != 0.0f || y != 0.0f) ? 1.0f : 0.0f; break;
      case isa::EltwiseOp::Xor: r = ((x != 0.0f) != (y != 0.0f)) ? 1.0f : 0.0f; break;
      case isa::EltwiseOp::Mod: r = x - std::floor(x / y) * y; break;  // ONNX Mod fmod=0: divisor's sign
      case isa::EltwiseOp::FMod: r = std::fmod(x, y); break;

    }
    out[i] = r;
  }
  sram.write_f32(p.out_addr, out);
}

}  // namespace npu::hw::functional
