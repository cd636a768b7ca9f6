// DDR presets built in code (the same values as the YAML presets in configs/), every
// timing value with its source. Timings are in tCK of the preset's clock; where a
// datasheet gives nanoseconds, the value is ceil(ns / tCK) as JEDEC's rounding rule
// requires. Sources:
//   [JESD79-4]  JEDEC DDR4 SDRAM standard, JESD79-4B (2017), speed bin DDR4-3200AA and
//               the timing-parameter tables of section 13.
//   [MT40A1G8]  Micron 8Gb DDR4 x8 datasheet MT40A1G8 (DDR4-3200, -062E speed grade).
//   [JESD209-4] JEDEC LPDDR4 standard, JESD209-4B, tables "Core AC timing" and
//               "Refresh requirements" (8 Gb die = 4 Gb per channel).
//   [JESD79-3]  JEDEC DDR3 SDRAM standard, JESD79-3F (2012), speed bin DDR3-2133N and
//               timing tables (2 KB page for x8 8 Gb).
//   [JESD235]   JEDEC HBM standard, JESD235A (HBM2), legacy mode, 2 Gb/s per pin.
//   [DRAMSim3]  the configs shipped with DRAMSim3 (configs/DDR4_8Gb_x8_3200.ini,
//               DDR3_8Gb_x8_1866.ini, HBM2_8Gb_x128.ini), cross-checked where cited.
//   [JESD235B]  JEDEC HBM standard, JESD235B (2018): HBM2 up to 2.4 Gb/s per pin.
//   [Aquabolt]  Samsung 8GB HBM2 "Aquabolt" (KHA884901X, announced January 2018): 2.4 Gb/s
//               per pin, 1024-bit stack interface = 307.2 GB/s per stack.
//   [Ramulator] Ramulator's LPDDR4 speed table (src/LPDDR4.h), which converts the
//               JESD209-4 2-cycle commands to 1-cycle-command equivalents.
#pragma once

#include <string>
#include <vector>

#include "npu/hw_config/hw_config.hpp"

namespace npu::hw {

/// DDR4-3200AA (22-22-22), one 64-bit channel, 2 ranks of x8 8 Gb devices
/// (4 bank groups x 4 banks, 65536 rows x 1024 columns), BL8: 25.6 GB/s, 16 GiB.
/// Equals the `ddr` section of configs/edge-npu-ddr4.yaml.
DdrConfig ddr4_3200();

/// LPDDR4-3200 on a 32-bit bus (two x16 channels of an 8 Gb die run in lock-step),
/// 8 banks, 32768 rows x 1024 columns, BL16: 12.8 GB/s.
DdrConfig lpddr4_3200();

/// DDR3-2133N (14-14-14), one 64-bit channel, 2 ranks of x8 8 Gb devices (8 banks,
/// 65536 rows x 2048 columns), BL8: 17.06 GB/s per channel.
DdrConfig ddr3_2133();

/// HBM2 at 2 Gb/s per pin, one 128-bit legacy-mode channel organised as DRAMSim3's
/// HBM2_8Gb_x128 (4 bank groups x 4 banks, 32768 rows x 64 columns of 128 bit = 512 MiB),
/// BL4: 32 GB/s.
DdrConfig hbm2();

/// Two HBM2 stacks at 2.4 Gb/s per pin ([JESD235B], [Aquabolt]): 16 legacy-mode channels of
/// 128 bit (8 per stack), each organised as hbm2() (512 MiB, 8 GiB in all), timings of hbm2()
/// in nanoseconds re-rounded to tCK = 0.8333 ns, channel and bank group interleaved every
/// burst/256 B (`rorabacochbg`): 16 x 2400 MT/s x 16 B = 614.4 GB/s.
/// Equals the `ddr` section of configs/hbm2-npu.yaml.
DdrConfig hbm2_2stack();

/// Names accepted by ddr_preset(): "ddr4-3200", "lpddr4-3200", "ddr3-2133", "hbm2", "hbm2-2stack".
std::vector<std::string> ddr_preset_names();

/// The preset called `name`; throws ConfigError listing the names when unknown.
DdrConfig ddr_preset(const std::string& name);

}  // namespace npu::hw
