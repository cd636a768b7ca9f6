// MOVE (docs/isa.md): values copied unchanged along a strided box, SRAM -> SRAM. Bytes are
// copied as they are, so one function serves fp32 and int8 programs alike.
#include <array>
#include <cstring>
#include <vector>

#include "npu/hw/functional/ops.hpp"

namespace npu::hw::functional {

void move(const isa::MoveParams& p, int elem_bytes, BackingStore& sram) {
  const std::uint64_t e = std::uint64_t(elem_bytes);
  const std::uint64_t n = p.elems();
  if (n == 0) return;
  // Both boxes are read whole (unwritten SRAM reads 0), the out box is written back whole, so
  // the bytes between its strided elements keep their values, except the first `zero`
  // elements, which are cleared first (a zero-insertion's gaps).
  std::vector<unsigned char> in(p.span_elems(p.in_stride) * e), out(p.out_elems() * e);
  sram.read(p.in_addr, in.data(), in.size());
  sram.read(p.out_addr, out.data(), out.size());
  std::memset(out.data(), 0, std::size_t(p.zero) * e);  // zero <= out_elems()
  constexpr int D = isa::MoveParams::kMaxDims;
  std::array<std::uint32_t, D> idx{};
  std::uint64_t src = 0, dst = 0;  // element offsets of the current index
  for (std::uint64_t k = 0; k < n; ++k) {
    std::memcpy(out.data() + dst * e, in.data() + src * e, e);
    // Odometer over the extents, innermost first; offsets follow incrementally.
    for (int d = 0; d < D; ++d) {
      const std::size_t i = std::size_t(d);
      if (++idx[i] < p.extent[i]) {
        src += p.in_stride[i];
        dst += p.out_stride[i];
        break;
      }
      src -= std::uint64_t(idx[i] - 1) * p.in_stride[i];
      dst -= std::uint64_t(idx[i] - 1) * p.out_stride[i];
      idx[i] = 0;
    }
  }
  sram.write(p.out_addr, out.data(), out.size());
}

}  // namespace npu::hw::functional
