// Address decoding: known addresses under rochrababgco and rochracobabg on the DDR4-3200
// preset (64 B bursts: 6 offset bits; 1024 columns / BL8 = 128 bursts per row: 7 column
// bits; 2 bank-group bits, 2 bank bits, 1 rank bit, 16 row bits; 34 bits = 16 GiB).
#include <gtest/gtest.h>

#include "npu/hw/ddr/address_mapper.hpp"
#include "npu/hw_config/ddr_presets.hpp"

namespace npu::hw {
namespace {

DramAddress decode(const std::string& mapping, std::uint64_t addr) {
  DdrConfig c = ddr4_3200();
  c.address_mapping = mapping;
  return AddressMapper(c).decode(addr);
}

TEST(AddressMapper, CapacityOfDdr4Preset) {
  // 1 ch x 2 ranks x 16 banks x 65536 rows x 1024 columns x 8 B = 2^34 B = 16 GiB.
  AddressMapper m(ddr4_3200());
  EXPECT_EQ(m.capacity_bytes(), std::uint64_t(1) << 34);
  EXPECT_EQ(m.offset_bits(), 6);                       // 64 B burst
  EXPECT_EQ(m.field_bits(AddressMapper::kColumn), 7);  // 1024 / 8 bursts per row
  EXPECT_EQ(m.field_bits(AddressMapper::kRow), 16);
}

TEST(AddressMapper, RochrababgcoFieldsFromLsb) {
  // LSB up: offset 0..5, column 6..12, bank group 13..14, bank 15..16, rank 17, row 18..33.
  DramAddress a = decode("rochrababgco", 0x40);  // bit 6: second burst of the row
  EXPECT_EQ(a.column, 8);                        // burst 1 x BL8 = device column 8
  EXPECT_EQ(a.bankgroup, 0);
  a = decode("rochrababgco", 0x1FC0);  // bits 6..12 all set: last burst, column 127 x 8
  EXPECT_EQ(a.column, 1016);
  EXPECT_EQ(a.bankgroup, 0);
  a = decode("rochrababgco", 0x2000);  // bit 13
  EXPECT_EQ(a.bankgroup, 1);
  EXPECT_EQ(a.column, 0);
  a = decode("rochrababgco", 0x8000);  // bit 15
  EXPECT_EQ(a.bank, 1);
  EXPECT_EQ(a.bankgroup, 0);
  a = decode("rochrababgco", 0x20000);  // bit 17
  EXPECT_EQ(a.rank, 1);
  a = decode("rochrababgco", 0x40000);  // bit 18
  EXPECT_EQ(a.row, 1);
  a = decode("rochrababgco", 0x10000000);  // 256 MiB = bit 28 = row bit 10
  EXPECT_EQ(a.row, 1024);
  EXPECT_EQ(a.bank, 0);
  EXPECT_EQ(a.bankgroup, 0);
  EXPECT_EQ(a.rank, 0);
}

TEST(AddressMapper, MixedSkewOffsetsChangeBankAndGroupUnderRochrababgco) {
  // 0x14000 = bits 14 and 16: bank-group bit 1 and bank bit 1 -> bg 2, bank 2.
  DramAddress a = decode("rochrababgco", 0x10000000 + 0x14000);
  EXPECT_EQ(a.bankgroup, 2);
  EXPECT_EQ(a.bank, 2);
  EXPECT_EQ(a.rank, 0);
  // 0x2A000 = bits 13, 15, 17: bg 1, bank 1, rank 1.
  a = decode("rochrababgco", 0x20000000 + 0x2A000);
  EXPECT_EQ(a.bankgroup, 1);
  EXPECT_EQ(a.bank, 1);
  EXPECT_EQ(a.rank, 1);
  EXPECT_EQ(a.row, 2048);  // 512 MiB = bit 29 = row bit 11
}

TEST(AddressMapper, RochracobabgFieldsFromLsb) {
  // LSB up: offset 0..5, bank group 6..7, bank 8..9, column 10..16, rank 17, row 18..33.
  DramAddress a = decode("rochracobabg", 0x40);
  EXPECT_EQ(a.bankgroup, 1);
  EXPECT_EQ(a.column, 0);
  a = decode("rochracobabg", 0xC0);  // bits 6, 7
  EXPECT_EQ(a.bankgroup, 3);
  a = decode("rochracobabg", 0x100);  // bit 8
  EXPECT_EQ(a.bank, 1);
  EXPECT_EQ(a.bankgroup, 0);
  a = decode("rochracobabg", 0x400);  // bit 10: second burst of the row
  EXPECT_EQ(a.column, 8);
  EXPECT_EQ(a.bank, 0);
  a = decode("rochracobabg", 0x20000);  // bit 17
  EXPECT_EQ(a.rank, 1);
  a = decode("rochracobabg", 0x40000);  // bit 18
  EXPECT_EQ(a.row, 1);
}

TEST(AddressMapper, EncodeInvertsDecode) {
  DdrConfig c = ddr4_3200();
  for (const char* m : {"rochrababgco", "rochracobabg", "cobabgrachro"}) {
    c.address_mapping = m;
    AddressMapper mapper(c);
    for (std::uint64_t addr : {0x0ull, 0x40ull, 0x12345640ull, 0x3FFFFFFC0ull}) {
      EXPECT_EQ(mapper.encode(mapper.decode(addr)), addr) << m << " " << addr;
    }
  }
}

TEST(AddressMapper, UnknownFieldIsAConfigErrorNamingItsColumn) {
  DdrConfig c = ddr4_3200();
  c.address_mapping = "rochraxxbgco";  // 'xx' is the 4th field, column 7
  try {
    AddressMapper m(c, "my.yaml");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("my.yaml: error:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("unknown field 'xx' at column 7"), std::string::npos) << msg;
    EXPECT_NE(msg.find("allowed fields: ro ch ra ba bg co"), std::string::npos) << msg;
  }
}

TEST(AddressMapper, RepeatedOrMissingFieldIsAConfigError) {
  DdrConfig c = ddr4_3200();
  c.address_mapping = "rochrarobgco";
  EXPECT_THROW(AddressMapper m(c), ConfigError);
  c.address_mapping = "rochrabgco";  // 10 characters: 'ba' missing
  try {
    AddressMapper m(c);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("needs 6 two-letter fields"), std::string::npos) << e.what();
  }
}

TEST(AddressMapper, NonPowerOfTwoCountIsAConfigError) {
  DdrConfig c = ddr4_3200();
  c.rows = 50000;
  EXPECT_THROW(AddressMapper m(c), ConfigError);
}

}  // namespace
}  // namespace npu::hw
