// The `npu` section: name and core clock (docs/config.md "npu").
#include "load/loader.hpp"

namespace npu::config_loader {

void load_npu_section(Loader& in, const Section& top, NpuSection& npu) {
  Section s = in.open(top, "npu");
  npu.name = in.get_string(s, "name");
  npu.clock_mhz = in.get_positive_double(s, "clock_mhz", "MHz");
  // Time is kept in whole picoseconds (period = 10^6 / clock_mhz ps). Above 10 GHz the
  // period (< 100 ps) rounds badly and, far above, to 0 (every run would take 0 cycles);
  // below 1 kHz one cycle is 10^9 ps and a 64-bit picosecond count overflows after
  // 1.8e10 cycles, which a real network reaches.
  if (npu.clock_mhz > 10000)
    in.fail(in.vmark(s, "clock_mhz"),
            fmt::format("'npu.clock_mhz' = {} MHz is out of range: at most 10000 (10 GHz)", npu.clock_mhz),
            "  the simulator keeps time in whole picoseconds; a clock above 10 GHz has a period under 100 ps that "
            "rounds away (runs would report 0 cycles); allowed: 1 to 10000 MHz, e.g. 'clock_mhz: 1000'");
  if (npu.clock_mhz < 1)
    in.fail(in.vmark(s, "clock_mhz"),
            fmt::format("'npu.clock_mhz' = {} MHz is out of range: at least 1 (1 MHz)", npu.clock_mhz),
            "  a slower clock stretches simulated time, which the DDR model fills with a refresh every tREFI "
            "(7.8 us), so a network would take minutes to simulate (and no NPU runs below 1 MHz); allowed: 1 to "
            "10000 MHz, e.g. 'clock_mhz: 1000'");
}

}  // namespace npu::config_loader
