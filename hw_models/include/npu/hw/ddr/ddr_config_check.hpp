// Validation of a DdrConfig before the timing core uses it.
#pragma once

#include <string>

#include "npu/hw_config/hw_config.hpp"

namespace npu::hw {

/// Checks that the organisation is usable (positive powers of two where the address
/// mapping needs them, columns a multiple of the burst length, a valid mapping string)
/// and that the timings can hold: every timing >= 1 tCK; tRC >= tRAS + tRP and
/// tRAS >= tRCD (JESD79-4 section 13: tRC = tRAS + tRP is the row cycle); the "_L"
/// (same bank group) values >= the "_S" ones; tREFI > tRFC (otherwise the rank never
/// leaves refresh); write watermarks 0 <= low < high <= queue_depth once defaulted.
/// Throws ConfigError "<source>: error: ddr.<key> ... fix: ..." on the first problem.
void validate_ddr_config(const DdrConfig& cfg, const std::string& source = "<config>");

/// Write-drain watermarks with the documented defaults filled in:
/// high = 3/4 of queue_depth (at least 1), low = 1/4 of queue_depth.
struct WriteWatermarks {
  int high = 0;
  int low = 0;
};
WriteWatermarks resolved_watermarks(const DdrConfig& cfg);

}  // namespace npu::hw
