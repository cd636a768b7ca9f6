// The `sram` section: capacity, banks, port width, latency, interleaving (docs/config.md "sram").
#include "load/loader.hpp"

namespace npu::config_loader {

void load_sram_section(Loader& in, const Section& top, SramConfig& sram) {
  Section s = in.open(top, "sram");
  sram.capacity_bytes = in.get_size(s, "capacity");
  sram.bytes_per_cycle = in.get_int(s, "bytes_per_cycle", 1);
  if (s.has("banks")) sram.banks = in.get_int(s, "banks", 1);
  if (s.has("latency_cycles")) sram.latency_cycles = in.get_int(s, "latency_cycles", 1);
  // 0 until check_cross_section picks the default (it depends on the bank size).
  sram.bank_interleave_bytes = s.has("bank_interleave_bytes") ? in.get_size(s, "bank_interleave_bytes") : 0;
}

}  // namespace npu::config_loader
