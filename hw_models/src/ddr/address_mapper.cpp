#include "npu/hw/ddr/address_mapper.hpp"

#include "ddr_config_fail.hpp"

namespace npu::hw {

int log2_exact(std::uint64_t v) {
  if (v == 0 || (v & (v - 1)) != 0) return -1;
  int n = 0;
  while (v > 1) {
    v >>= 1;
    ++n;
  }
  return n;
}

namespace {

const char* const kFieldNames[AddressMapper::kFieldCount] = {"ro", "ch", "ra", "ba", "bg", "co"};
const char* const kFieldMeaning[AddressMapper::kFieldCount] = {
    "rows", "channels", "ranks", "banks_per_group", "bank_groups", "columns / burst_length"};

using ddr_detail::fail;

}  // namespace

AddressMapper::AddressMapper(const DdrConfig& cfg, const std::string& source)
    : mapping_(cfg.address_mapping),
      burst_length_(cfg.burst_length),
      ranks_(cfg.ranks),
      bank_groups_(cfg.bank_groups),
      banks_per_group_(cfg.banks_per_group) {
  const std::string allowed = "allowed fields: ro ch ra ba bg co, each exactly once, MSB first";
  if (mapping_.size() != 2 * kFieldCount) {
    fail(source,
         "ddr.address_mapping '" + mapping_ + "' has " + std::to_string(mapping_.size()) +
             " characters; it needs 6 two-letter fields (12 characters)",
         "write a permutation of ro ch ra ba bg co, e.g. 'rochrababgco' (" + allowed + ")");
  }
  std::array<int, kFieldCount> order{};  // order[i] = field at position i (MSB first)
  std::array<bool, kFieldCount> seen{};
  for (int i = 0; i < kFieldCount; ++i) {
    std::string f = mapping_.substr(2 * i, 2);
    int idx = -1;
    for (int k = 0; k < kFieldCount; ++k)
      if (f == kFieldNames[k]) idx = k;
    if (idx < 0) {
      fail(source,
           "ddr.address_mapping '" + mapping_ + "': unknown field '" + f + "' at column " +
               std::to_string(2 * i + 1),
           allowed);
    }
    if (seen[idx]) {
      fail(source,
           "ddr.address_mapping '" + mapping_ + "': field '" + f + "' appears twice (column " +
               std::to_string(2 * i + 1) + ")",
           allowed);
    }
    seen[idx] = true;
    order[i] = idx;
  }
  const std::uint64_t counts[kFieldCount] = {
      std::uint64_t(cfg.rows), std::uint64_t(cfg.channels), std::uint64_t(cfg.ranks),
      std::uint64_t(cfg.banks_per_group), std::uint64_t(cfg.bank_groups),
      cfg.burst_length > 0 ? std::uint64_t(cfg.columns / cfg.burst_length) : 0};
  for (int k = 0; k < kFieldCount; ++k) {
    bits_[k] = log2_exact(counts[k]);
    if (bits_[k] < 0) {
      fail(source,
           std::string("ddr: the address mapping needs ") + kFieldMeaning[k] +
               " to be a power of two, got " + std::to_string(counts[k]),
           "use a power of two (the mapping splits the address into bit fields)");
    }
  }
  offset_bits_ = log2_exact(std::uint64_t(cfg.burst_bytes()));
  if (offset_bits_ < 0) {
    fail(source,
         "ddr: burst size bus_width_bits/8 x burst_length = " + std::to_string(cfg.burst_bytes()) +
             " bytes is not a power of two",
         "use a power-of-two bus width and burst length");
  }
  int shift = offset_bits_;
  for (int i = kFieldCount - 1; i >= 0; --i) {
    int k = order[i];
    shift_[k] = shift;
    mask_[k] = bits_[k] >= 64 ? ~std::uint64_t(0) : ((std::uint64_t(1) << bits_[k]) - 1);
    shift += bits_[k];
  }
  if (shift > 63) {
    fail(source, "ddr: the organisation needs " + std::to_string(shift) + " address bits (more than 63)",
         "reduce rows, columns, banks, ranks or channels");
  }
  capacity_bytes_ = std::uint64_t(1) << shift;
}

std::uint64_t AddressMapper::encode(const DramAddress& a) const {
  std::uint64_t addr = 0;
  addr |= (std::uint64_t(a.row) & mask_[kRow]) << shift_[kRow];
  addr |= (std::uint64_t(a.channel) & mask_[kChannel]) << shift_[kChannel];
  addr |= (std::uint64_t(a.rank) & mask_[kRank]) << shift_[kRank];
  addr |= (std::uint64_t(a.bank) & mask_[kBank]) << shift_[kBank];
  addr |= (std::uint64_t(a.bankgroup) & mask_[kBankGroup]) << shift_[kBankGroup];
  addr |= (std::uint64_t(a.column / burst_length_) & mask_[kColumn]) << shift_[kColumn];
  return addr;
}

const char* to_string(DdrCommand c) {
  switch (c) {
    case DdrCommand::Act: return "ACT";
    case DdrCommand::Pre: return "PRE";
    case DdrCommand::Rd: return "RD";
    case DdrCommand::Wr: return "WR";
    case DdrCommand::Ref: return "REF";
  }
  return "?";
}

}  // namespace npu::hw
