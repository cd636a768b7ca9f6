#include "npu/hw/functional/data_path.hpp"

#include <stdexcept>

#include "npu/hw/functional/ops.hpp"

namespace npu::hw {

namespace {
// SRAM pages are small: tiles are KB-sized and the whole SRAM is a few MiB.
constexpr std::uint64_t kSramPageBytes = 4096;
}  // namespace

DataPath::DataPath(BackingStore& ddr, std::uint64_t sram_capacity_bytes, DType dtype)
    : ddr_(ddr), sram_("SRAM", sram_capacity_bytes, kSramPageBytes) {
  if (dtype != DType::Fp32)
    throw std::invalid_argument(std::string("the functional data path computes fp32 programs only; this program's "
                                            "dtype is ") + to_string(dtype) +
                                " (int8 requantisation and fp16 storage are not implemented yet): use a config "
                                "with mac_array.dtype: fp32, or run without data");
}

void DataPath::execute(const isa::Instruction& in) {
  switch (in.op) {
    case isa::Opcode::Load: functional::dma(std::get<isa::DmaDesc>(in.params), true, ddr_, sram_); break;
    case isa::Opcode::Store: functional::dma(std::get<isa::DmaDesc>(in.params), false, ddr_, sram_); break;
    case isa::Opcode::Conv: functional::conv(std::get<isa::ConvParams>(in.params), sram_); break;
    case isa::Opcode::Gemm: functional::gemm(std::get<isa::GemmParams>(in.params), sram_); break;
    case isa::Opcode::Act: functional::act(std::get<isa::ActParams>(in.params), sram_); break;
    case isa::Opcode::Eltwise: functional::eltwise(std::get<isa::EltwiseParams>(in.params), sram_); break;
    case isa::Opcode::Pool: functional::pool(std::get<isa::PoolParams>(in.params), sram_); break;
    case isa::Opcode::Sync:
    case isa::Opcode::Host: break;
  }
  ++executed_;
}

}  // namespace npu::hw
