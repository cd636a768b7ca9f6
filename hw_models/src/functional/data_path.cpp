#include "npu/hw/functional/data_path.hpp"

#include <stdexcept>

#include "npu/hw/functional/int8_ops.hpp"
#include "npu/hw/functional/ops.hpp"

namespace npu::hw {

namespace {
// SRAM pages are small: tiles are KB-sized and the whole SRAM is a few MiB.
constexpr std::uint64_t kSramPageBytes = 4096;
}  // namespace

DataPath::DataPath(BackingStore& ddr, std::uint64_t sram_capacity_bytes, DType dtype)
    : ddr_(ddr), sram_("SRAM", sram_capacity_bytes, kSramPageBytes), int8_(dtype == DType::Int8) {
  if (dtype != DType::Fp32 && dtype != DType::Int8)
    throw std::invalid_argument(std::string("the functional data path computes fp32 and int8 programs; this "
                                            "program's dtype is ") + to_string(dtype) +
                                " (fp16 storage is not implemented): use a config with mac_array.dtype fp32 or "
                                "int8, or run without data");
}

void DataPath::execute(const isa::Instruction& in) {
  switch (in.op) {
    case isa::Opcode::Load: functional::dma(std::get<isa::DmaDesc>(in.params), true, ddr_, sram_); break;
    case isa::Opcode::Store: functional::dma(std::get<isa::DmaDesc>(in.params), false, ddr_, sram_); break;
    case isa::Opcode::Conv:
      if (int8_) functional::conv_int8(std::get<isa::ConvParams>(in.params), sram_);
      else functional::conv(std::get<isa::ConvParams>(in.params), sram_);
      break;
    case isa::Opcode::Gemm:
      if (int8_) functional::gemm_int8(std::get<isa::GemmParams>(in.params), sram_);
      else functional::gemm(std::get<isa::GemmParams>(in.params), sram_);
      break;
    case isa::Opcode::Act:
      if (int8_) functional::act_int8(std::get<isa::ActParams>(in.params), sram_);
      else functional::act(std::get<isa::ActParams>(in.params), sram_);
      break;
    case isa::Opcode::Eltwise:
      if (int8_) functional::eltwise_int8(std::get<isa::EltwiseParams>(in.params), sram_);
      else functional::eltwise(std::get<isa::EltwiseParams>(in.params), sram_);
      break;
    case isa::Opcode::Pool:
      if (int8_) functional::pool_int8(std::get<isa::PoolParams>(in.params), sram_);
      else functional::pool(std::get<isa::PoolParams>(in.params), sram_);
      break;
    case isa::Opcode::Move: functional::move(std::get<isa::MoveParams>(in.params), int8_ ? 1 : 4, sram_); break;
    case isa::Opcode::Sync:
    case isa::Opcode::Host: break;
  }
  ++executed_;
}

}  // namespace npu::hw
