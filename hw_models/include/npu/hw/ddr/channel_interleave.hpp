// Whether a DDR address mapping lets sequential streams use every channel (`npu config
// check` warns when it does not). Rule and rationale: docs/config.md "Channel interleaving".
#pragma once

#include <cstdint>
#include <string>

#include "npu/hw_config/hw_config.hpp"

namespace npu::hw {

/// Bytes a sequential stream stays in one channel before the next: 2^(lowest bit of the `ch`
/// field) of the address mapping (AddressMapper's layout). 0 when there is one channel.
/// Throws ConfigError for an invalid mapping (as AddressMapper).
std::uint64_t channel_interleave_bytes(const DdrConfig& cfg);

/// One DRAM row of one bank as the address sees it: columns x bus_width_bits / 8 bytes.
std::uint64_t row_page_bytes(const DdrConfig& cfg);

/// "" when the mapping interleaves channels at most every row page (or there is one
/// channel); otherwise a warning naming `source`, the interleave size, why a sequential
/// stream then uses one channel at a time, and a mapping that fixes it: the same mapping
/// with `ch` moved just above `co` (row interleave) or to the lowest bits (burst interleave).
std::string channel_interleave_warning(const DdrConfig& cfg, const std::string& source);

}  // namespace npu::hw
