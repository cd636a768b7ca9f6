// The optional `energy` section: pJ per MAC, per SRAM byte, per DDR byte (docs/config.md "energy").
#include "load/loader.hpp"

namespace npu::config_loader {

void load_energy_section(Loader& in, const Section& top, EnergyConfig& energy) {
  Section s = in.open(top, "energy");
  energy.present = true;
  energy.pj_per_mac = in.get_positive_double(s, "pj_per_mac", "pJ");
  energy.pj_per_sram_byte = in.get_positive_double(s, "pj_per_sram_byte", "pJ");
  energy.pj_per_ddr_byte = in.get_positive_double(s, "pj_per_ddr_byte", "pJ");
}

}  // namespace npu::config_loader
