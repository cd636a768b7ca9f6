// Channel interleaving of the DDR address mapping (channel_interleave.hpp).
#include "npu/hw/ddr/channel_interleave.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "npu/hw/ddr/address_mapper.hpp"

namespace npu::hw {

std::uint64_t channel_interleave_bytes(const DdrConfig& cfg) {
  if (cfg.channels <= 1) return 0;
  const AddressMapper m(cfg);
  return std::uint64_t(1) << m.field_shift(AddressMapper::kChannel);
}

std::uint64_t row_page_bytes(const DdrConfig& cfg) {
  return std::uint64_t(cfg.columns) * std::uint64_t(cfg.bus_width_bits / 8);
}

namespace {

// `mapping` with the two-letter field `ch` removed and inserted before field `before`
// ("" = at the end, the lowest bits).
std::string move_channel(const std::string& mapping, const std::string& before) {
  std::string out;
  for (std::size_t i = 0; i + 1 < mapping.size(); i += 2) {
    const std::string f = mapping.substr(i, 2);
    if (f == "ch") continue;
    if (f == before) out += "ch";
    out += f;
  }
  if (before.empty()) out += "ch";
  return out;
}

std::string bytes_text(std::uint64_t b) {
  if (b >= (1u << 20) && b % (1u << 20) == 0) return fmt::format("{} MiB", b >> 20);
  if (b >= 1024 && b % 1024 == 0) return fmt::format("{} KiB", b >> 10);
  return fmt::format("{} B", b);
}

}  // namespace

std::string channel_interleave_warning(const DdrConfig& cfg, const std::string& source) {
  const std::uint64_t g = channel_interleave_bytes(cfg), page = row_page_bytes(cfg);
  if (g == 0 || g <= page) return "";
  const std::uint64_t stream = std::uint64_t(1) << 20;  // 1 MiB: a mid-sized activation tensor
  return fmt::format(
      "{}: warning: ddr.address_mapping '{}' puts the channel field above bank/rank bits: consecutive "
      "addresses stay in one channel for {} (one row page is {}), so a sequential stream uses one of the {} "
      "channels at a time (a 1 MiB tensor is {} run(s) of {}, each in a single channel) and one stream "
      "cannot reach the {} channels' peak bandwidth\n"
      "  fix: put 'ch' right above the column: '{}' (channels interleave every row page), or in the lowest "
      "bits: '{}' (every burst); see docs/config.md \"Channel interleaving\"",
      source, cfg.address_mapping, bytes_text(g), bytes_text(page), cfg.channels, (stream + g - 1) / g,
      bytes_text(std::min(g, stream)), cfg.channels, move_channel(cfg.address_mapping, "co"),
      move_channel(cfg.address_mapping, ""));
}

}  // namespace npu::hw
