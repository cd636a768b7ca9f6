// DDR presets: the `ddr` sections of configs/ddr/<name>.yaml, the files themselves built into
// the library (cmake/embed_text_files.cmake), so the tool needs no source tree. Each file
// cites the source of every value beside it (JEDEC standards, datasheets, DRAMSim3 and
// Ramulator configs); this header only names them. The files are read with the config loader
// (parse_hw_config, its ddr-section reader), so a preset passes every check a user's config does.
#pragma once

#include <string>
#include <vector>

#include "npu/hw_config/hw_config.hpp"

namespace npu {

/// Names accepted by ddr_preset(), in this order: "ddr4-3200", "lpddr4-3200", "ddr3-2133",
/// "hbm2", "hbm2-2stack" (one configs/ddr/<name>.yaml each).
std::vector<std::string> ddr_preset_names();

/// The `ddr` section of configs/ddr/<name>.yaml as the loader reads it, except that write
/// watermarks the file leaves out stay 0 ("derived from queue_depth where used", DdrConfig),
/// so that they follow a queue_depth the caller changes afterwards. Throws ConfigError listing
/// the names when `name` is unknown.
DdrConfig ddr_preset(const std::string& name);

/// DDR4-3200AA (22-22-22), one 64-bit channel, 2 ranks of x8 8 Gb devices
/// (4 bank groups x 4 banks, 65536 rows x 1024 columns), BL8: 25.6 GB/s, 16 GiB.
/// configs/ddr/ddr4-3200.yaml; equals the `ddr` section of configs/edge-npu-ddr4.yaml.
DdrConfig ddr4_3200();

/// LPDDR4-3200 on a 32-bit bus (two x16 channels of an 8 Gb die run in lock-step),
/// 8 banks, 32768 rows x 1024 columns, BL16: 12.8 GB/s. configs/ddr/lpddr4-3200.yaml.
DdrConfig lpddr4_3200();

/// DDR3-2133N (14-14-14), one 64-bit channel, 2 ranks of x8 8 Gb devices (8 banks,
/// 65536 rows x 2048 columns), BL8: 17.06 GB/s per channel. configs/ddr/ddr3-2133.yaml.
DdrConfig ddr3_2133();

/// HBM2 at 2 Gb/s per pin, one 128-bit legacy-mode channel organised as DRAMSim3's
/// HBM2_8Gb_x128 (4 bank groups x 4 banks, 32768 rows x 64 columns of 128 bit = 512 MiB),
/// BL4: 32 GB/s. configs/ddr/hbm2.yaml.
DdrConfig hbm2();

/// Two HBM2 stacks at 2.4 Gb/s per pin (JESD235B, Samsung Aquabolt): 16 legacy-mode channels
/// of 128 bit (8 per stack), each organised as hbm2() (512 MiB, 8 GiB in all), timings of
/// hbm2() in nanoseconds re-rounded to tCK = 0.8333 ns, channel and bank group interleaved
/// every burst/256 B (`rorabacochbg`): 16 x 2400 MT/s x 16 B = 614.4 GB/s.
/// configs/ddr/hbm2-2stack.yaml; equals the `ddr` section of configs/hbm2-npu.yaml.
DdrConfig hbm2_2stack();

}  // namespace npu
