// TLM extension that labels a DDR/SRAM transaction with the layer and tensor it moves,
// so the DDR model's statistics and traces can say what moved. Attached by the DMA to
// every burst; optional (a transaction without it is counted as layer "", tensor "").
#pragma once

#include <tlm>

#include <string>

namespace npu::hw {

struct TrafficTag : tlm::tlm_extension<TrafficTag> {
  const std::string* layer = nullptr;   ///< interned; lives as long as the program
  const std::string* tensor = nullptr;  ///< interned; lives as long as the program
  int instruction_index = -1;           ///< index in the program, -1 if none

  tlm::tlm_extension_base* clone() const override { return new TrafficTag(*this); }
  void copy_from(const tlm::tlm_extension_base& ext) override {
    *this = static_cast<const TrafficTag&>(ext);
  }
};

}  // namespace npu::hw
