// Physical address -> (channel, rank, bank group, bank, row, column), DRAMSim3-style.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "npu/hw/ddr/ddr_types.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::hw {

/// Decodes byte addresses with a mapping string such as "rochrababgco": two-letter
/// fields from the most to the least significant bits, ro = row, ch = channel,
/// ra = rank, ba = bank (within its group), bg = bank group, co = column. Each field
/// takes log2(count) bits; the column field counts bursts (columns / burst_length), and
/// the log2(burst_bytes) lowest bits are the implicit offset inside a burst.
/// Example (DDR4-3200 preset, 64 B bursts): rochrababgco puts bits 6..12 in the column,
/// 13..14 in the bank group, 15..16 in the bank, 17 in the rank and 18..33 in the row.
class AddressMapper {
 public:
  enum Field { kRow = 0, kChannel, kRank, kBank, kBankGroup, kColumn, kFieldCount };

  /// Throws ConfigError "<source>: error: ddr.address_mapping ..." for an unknown,
  /// repeated or missing field, or a count that is not a power of two. `source` names
  /// the config the values came from.
  explicit AddressMapper(const DdrConfig& cfg, const std::string& source = "<config>");

  /// Decode a byte address. The caller checks `addr < capacity_bytes()` first; bits
  /// above the capacity are ignored.
  DramAddress decode(std::uint64_t addr) const {
    DramAddress a;
    a.row = std::int64_t((addr >> shift_[kRow]) & mask_[kRow]);
    a.channel = int((addr >> shift_[kChannel]) & mask_[kChannel]);
    a.rank = int((addr >> shift_[kRank]) & mask_[kRank]);
    a.bank = int((addr >> shift_[kBank]) & mask_[kBank]);
    a.bankgroup = int((addr >> shift_[kBankGroup]) & mask_[kBankGroup]);
    a.column = std::int64_t((addr >> shift_[kColumn]) & mask_[kColumn]) * burst_length_;
    a.flat_bank = ((a.channel * ranks_ + a.rank) * bank_groups_ + a.bankgroup) * banks_per_group_ + a.bank;
    return a;
  }

  /// Inverse of decode() for the burst's first byte (offset bits zero).
  std::uint64_t encode(const DramAddress& a) const;

  std::uint64_t capacity_bytes() const { return capacity_bytes_; }
  int offset_bits() const { return offset_bits_; }
  int field_bits(Field f) const { return bits_[f]; }
  int field_shift(Field f) const { return shift_[f]; }
  const std::string& mapping() const { return mapping_; }

 private:
  std::string mapping_;
  std::array<int, kFieldCount> bits_{};
  std::array<int, kFieldCount> shift_{};
  std::array<std::uint64_t, kFieldCount> mask_{};
  int offset_bits_ = 0;
  int burst_length_ = 1;
  int ranks_ = 1, bank_groups_ = 1, banks_per_group_ = 1;
  std::uint64_t capacity_bytes_ = 0;
};

/// log2 of a power of two, or -1 when `v` is not a positive power of two.
int log2_exact(std::uint64_t v);

}  // namespace npu::hw
