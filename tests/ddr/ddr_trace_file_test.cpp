// Trace files: parsing both formats, malformed lines with their line:column, addresses
// past capacity, the validation patterns, and the behaviour the issue expects on them
// (small N here; the 1M-request figures are in docs/validation.md).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "npu/hw_config/ddr_presets.hpp"
#include "npu/hw/ddr/ddr_trace_file.hpp"

namespace npu::hw {
namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  std::string path = testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::string& path, TraceFormat f) {
  try {
    DdrSystem d(ddr4_3200());
    TraceReader r(path, f);
    replay_trace(d, r);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(TraceReader, ParsesDramsim3AndRamulatorLines) {
  TraceRequest r;
  ASSERT_TRUE(TraceReader::parse_line("0x1f40 READ 12", TraceFormat::Dramsim3, "t", 1, r));
  EXPECT_EQ(r.addr, 0x1f40u);
  EXPECT_FALSE(r.is_write);
  EXPECT_EQ(r.cycle, 12);
  ASSERT_TRUE(TraceReader::parse_line("  1F40\tWRITE 7\r", TraceFormat::Dramsim3, "t", 1, r));
  EXPECT_EQ(r.addr, 0x1f40u);  // DRAMSim3 reads the address as hex with or without 0x
  EXPECT_TRUE(r.is_write);
  EXPECT_EQ(r.cycle, 7);
  ASSERT_TRUE(TraceReader::parse_line("ST 0x80", TraceFormat::Ramulator, "t", 1, r));
  EXPECT_EQ(r.addr, 0x80u);
  EXPECT_TRUE(r.is_write);
  EXPECT_EQ(r.cycle, 0);
  EXPECT_FALSE(TraceReader::parse_line("   ", TraceFormat::Dramsim3, "t", 1, r));
  EXPECT_FALSE(TraceReader::parse_line("# comment", TraceFormat::Dramsim3, "t", 1, r));
}

TEST(TraceReader, Dramsim3AndDramsim2CommandWords) {
  // DRAMSim3 (src/common.cc): WRITE, write, P_MEM_WR, BOFF are writes, any other word a read.
  // DRAMSim2's k6 traces read with P_FETCH, P_MEM_RD, P_LOCK_RD, P_LOCK_WR. Other words
  // (a typo) are refused rather than read as reads.
  TraceRequest r;
  for (const char* w : {"WRITE", "write", "P_MEM_WR", "BOFF"}) {
    ASSERT_TRUE(TraceReader::parse_line(std::string("0x40 ") + w + " 3", TraceFormat::Dramsim3, "t", 1, r)) << w;
    EXPECT_TRUE(r.is_write) << w;
  }
  for (const char* w : {"READ", "read", "P_MEM_RD", "P_FETCH", "P_LOCK_RD", "P_LOCK_WR"}) {
    ASSERT_TRUE(TraceReader::parse_line(std::string("0x40 ") + w + " 3", TraceFormat::Dramsim3, "t", 1, r)) << w;
    EXPECT_FALSE(r.is_write) << w;
  }
  EXPECT_THROW(TraceReader::parse_line("0x40 Read 3", TraceFormat::Dramsim3, "t", 1, r), ConfigError);
}

TEST(TraceReader, RamulatorAddressesWithout0xAreDecimal) {
  // Ramulator 2's LoadStoreTrace: std::stoll(addr.substr(2), nullptr, 16) after "0x" / "0X",
  // std::stoll(addr) (base 10) otherwise. So `LD 4096` is address 4096 = 0x1000, not 0x4096.
  TraceRequest r;
  ASSERT_TRUE(TraceReader::parse_line("LD 4096", TraceFormat::Ramulator, "t", 1, r));
  EXPECT_EQ(r.addr, 4096u);
  EXPECT_FALSE(r.is_write);
  ASSERT_TRUE(TraceReader::parse_line("ST 0X1F40", TraceFormat::Ramulator, "t", 1, r));
  EXPECT_EQ(r.addr, 0x1f40u);
  ASSERT_TRUE(TraceReader::parse_line("LD 18446744073709551615", TraceFormat::Ramulator, "t", 1, r));
  EXPECT_EQ(r.addr, 18446744073709551615u);  // 2^64 - 1: the widest decimal address
  // Hex digits without 0x: Ramulator's stoll would stop at 'f' and read 1; refused here.
  const auto error = [](const char* line) {
    TraceRequest q;
    try {
      TraceReader::parse_line(line, TraceFormat::Ramulator, "t", 4, q);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error("LD 1f40").find("t:4:4: error: '1f40' is not an address: Ramulator reads an address without 0x as "
                                  "decimal (write 0x1f40 for a hexadecimal one)"),
            std::string::npos)
      << error("LD 1f40");
  EXPECT_NE(error("LD 18446744073709551616").find("t:4:4: error: address '18446744073709551616' exceeds 64 bits"),
            std::string::npos);
  EXPECT_NE(error("ST -64").find("'-64' is not an address"), std::string::npos);
  EXPECT_NE(error("ST 0x").find("'0x' is not a hexadecimal address"), std::string::npos);
}

TEST(TraceReader, MalformedLineNamesFileLineAndColumn) {
  // Line 3 has an unknown command starting at column 6.
  std::string path = write_temp("bad_cmd.trace", "0x0 READ 0\n\n0x40 READX 2\n");
  std::string msg = error_of(path, TraceFormat::Dramsim3);
  EXPECT_NE(msg.find(path + ":3:6: error: unknown command 'READX' (READ or WRITE; "), std::string::npos) << msg;
  EXPECT_NE(msg.find("fix: each line is `0xADDR READ|WRITE CYCLE`"), std::string::npos) << msg;
}

TEST(TraceReader, OtherMalformedLines) {
  struct Case {
    const char* text;
    const char* expected;
  } cases[] = {
      {"0xZZ READ 1\n", ":1:1: error: '0xZZ' is not a hexadecimal address"},
      {"0x40 READ\n", ":1:10: error: missing the cycle"},
      {"0x40 READ -5\n", ":1:11: error: cycle '-5' is not a non-negative decimal integer"},
      {"0x40 READ 5 extra\n", ":1:13: error: unexpected 'extra' after the cycle"},
      {"0x40\n", ":1:5: error: missing the command"},
  };
  int i = 0;
  for (const auto& c : cases) {
    std::string path = write_temp("bad" + std::to_string(i++) + ".trace", c.text);
    std::string msg = error_of(path, TraceFormat::Dramsim3);
    EXPECT_NE(msg.find(path + c.expected), std::string::npos) << c.text << " -> " << msg;
  }
  std::string path = write_temp("bad_ram.trace", "LD 0x40\nLOAD 0x80\n");
  std::string msg = error_of(path, TraceFormat::Ramulator);
  EXPECT_NE(msg.find(path + ":2:1: error: unknown command 'LOAD' (LD or ST)"), std::string::npos) << msg;
}

TEST(TraceReader, AddressPastCapacityIsAnErrorWithItsLine) {
  // DDR4-3200 preset capacity: 2^34 B = 0x400000000; the last valid burst is 0x3ffffffc0.
  std::string path = write_temp("cap.trace", "0x3ffffffc0 READ 0\n0x400000000 READ 1\n");
  std::string msg = error_of(path, TraceFormat::Dramsim3);
  EXPECT_NE(msg.find(path + ":2:1: error: address 0x400000000 is past the DDR capacity of 0x400000000 bytes"),
            std::string::npos)
      << msg;
}

TEST(TraceReader, MissingFileIsAConfigError) {
  EXPECT_THROW(TraceReader("/nonexistent/dir/x.trace", TraceFormat::Dramsim3), ConfigError);
}

TEST(TraceReader, DecreasingCycleStampsAreRejectedWithFileAndLine) {
  // Line 2 stamps cycle 1 after line 1's cycle 5: the offered stream would go back in
  // time. The cycle token of line 2 starts at column 11 ("0x40 READ " is 10 characters).
  std::string path = write_temp("decreasing.trace", "0x0 READ 5\n0x40 READ 1\n");
  std::string msg = error_of(path, TraceFormat::Dramsim3);
  EXPECT_NE(msg.find(path + ":2:11: error: cycle 1 is before the previous request's cycle 5 (line 1): cycle stamps "
                            "must not decrease"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("fix: sort the trace by cycle"), std::string::npos) << msg;
  // Equal stamps are fine (several requests may be offered at the same cycle).
  path = write_temp("equal.trace", "0x0 READ 5\n0x40 READ 5\n");
  EXPECT_EQ(error_of(path, TraceFormat::Dramsim3), "");
}

TEST(TraceReader, HugeCycleStampIsOutOfRangeNotMalformed) {
  // 2^64 - 1 is a well-formed unsigned 64-bit number, but above kMaxTraceCycle = 10^17.
  std::string path = write_temp("huge.trace", "0x40 READ 18446744073709551615\n");
  std::string msg = error_of(path, TraceFormat::Dramsim3);
  EXPECT_NE(msg.find(path + ":1:11: error: cycle 18446744073709551615 is out of range (max 100000000000000000"),
            std::string::npos)
      << msg;
  // 10^17 + 1 is the first value past the limit; 10^17 itself is accepted by the parser.
  TraceRequest r;
  EXPECT_THROW(TraceReader::parse_line("0x40 READ 100000000000000001", TraceFormat::Dramsim3, "t", 1, r), ConfigError);
  ASSERT_TRUE(TraceReader::parse_line("0x40 READ 100000000000000000", TraceFormat::Dramsim3, "t", 1, r));
  EXPECT_EQ(r.cycle, kMaxTraceCycle);
}

TEST(TraceReader, DirectoryIsRejectedAsNotAFile) {
  const std::string dir = testing::TempDir();
  try {
    TraceReader r(dir, TraceFormat::Dramsim3);
    FAIL() << "a directory was accepted as a trace";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(dir + ": error: is a directory, expected a file"), std::string::npos)
        << e.what();
  }
}

TEST(TraceGenerator, PatternsFollowTheIssue) {
  TraceGenerator seq(TracePattern::SeqRead);
  for (int i = 0; i < 3; ++i) {
    TraceRequest r = seq.next();
    EXPECT_EQ(r.addr, 64u * i);
    EXPECT_EQ(r.cycle, i);
    EXPECT_FALSE(r.is_write);
  }
  TraceGenerator mixed(TracePattern::Mixed);
  const std::uint64_t mib = 1 << 20;
  std::uint64_t expect_addr[6] = {0, 256 * mib, 512 * mib, 64, 256 * mib + 64, 512 * mib + 64};
  for (int i = 0; i < 6; ++i) {
    TraceRequest r = mixed.next();
    EXPECT_EQ(r.addr, expect_addr[i]);
    EXPECT_EQ(r.is_write, i % 3 == 2);
  }
  TraceGenerator skew(TracePattern::MixedSkew);
  skew.next();
  EXPECT_EQ(skew.next().addr, 256 * mib + 0x14000);
  EXPECT_EQ(skew.next().addr, 512 * mib + 0x2A000);
  // random-read: 64-byte aligned, below 1 GiB, and the same stream every time (fixed seed).
  TraceGenerator a(TracePattern::RandomRead), b(TracePattern::RandomRead);
  for (int i = 0; i < 1000; ++i) {
    TraceRequest x = a.next(), y = b.next();
    EXPECT_EQ(x.addr, y.addr);
    EXPECT_EQ(x.addr % 64, 0u);
    EXPECT_LT(x.addr, 1ull << 30);
  }
}

TEST(TraceGenerator, WrittenTraceReadsBack) {
  std::ostringstream out;
  write_pattern_trace(TracePattern::Mixed, 4, TraceFormat::Dramsim3, out);
  EXPECT_EQ(out.str(), "0x0 READ 0\n0x10000000 READ 1\n0x20000000 WRITE 2\n0x40 READ 3\n");
  std::ostringstream ram;
  write_pattern_trace(TracePattern::SeqWrite, 2, TraceFormat::Ramulator, ram);
  EXPECT_EQ(ram.str(), "ST 0x0\nST 0x40\n");
}

TEST(TraceReplay, QueueBackPressureDelaysOffersPastTheirCycle) {
  // queue_depth 4; six reads all stamped cycle 0 in one row of bank (bg0, b0): the front
  // end accepts 0, 1, 2, 3 (one per clock); RD_k issues at 23 + 8k (ACT 1 + tRCD 22, then
  // tCCD_L 8), and each RD frees a slot: requests 4 and 5 are accepted at 23 and 31.
  // The DRAMSim3 writer records the accepted cycles.
  std::string path = write_temp("bp.trace", "0x0 READ 0\n0x40 READ 0\n0x80 READ 0\n0xc0 READ 0\n"
                                            "0x100 READ 0\n0x140 READ 0\n");
  DdrConfig c = ddr4_3200();
  c.queue_depth = 4;
  DdrSystem d(c);
  std::ostringstream out;
  Dramsim3DdrTraceWriter w(out);
  d.set_trace_sink(&w);
  TraceReader r(path, TraceFormat::Dramsim3);
  EXPECT_EQ(replay_trace(d, r), 6u);
  w.finish();
  EXPECT_EQ(out.str(), "0x0 READ 0\n0x40 READ 1\n0x80 READ 2\n0xc0 READ 3\n0x100 READ 23\n0x140 READ 31\n");
  // Last RD at 23 + 8 x 5 = 63, done 63 + CL 22 + BL/2 4 = 89.
  EXPECT_EQ(d.stats().last_done_ck, 89);
}

DdrStats run_pattern(TracePattern p, const std::string& mapping, int n) {
  DdrConfig c = ddr4_3200();
  c.address_mapping = mapping;
  DdrSystem d(c);
  TraceGenerator g(p);
  for (int i = 0; i < n; ++i) {
    TraceRequest r = g.next();
    d.offer(r.addr, r.is_write, r.cycle);
  }
  d.drain();
  return d.stats();
}

TEST(TraceBehaviour, SeqReadUnderRochrababgcoIsBoundByTccdL) {
  // Consecutive 64 B lines stay in one bank group for a whole 128-burst row, so bursts
  // are tCCD_L = 8 tCK apart while the data need BL/2 = 4: 4/8 = 50 % of peak. At a
  // group boundary the 32-entry queue holds the next group's first requests, which
  // interleave at tCCD_S; at most 64 of every 128 bursts can pair up that way, so
  // 128 bursts take >= 64 x 8 + 64 x 4 = 768 tCK: <= 128 x 4 / 768 = 66.7 % of peak.
  // Refresh (tRFC/tREFI = 4.5 %) and row opens cost a little more.
  DdrStats s = run_pattern(TracePattern::SeqRead, "rochrababgco", 40000);
  EXPECT_GT(s.percent_of_peak(), 45.0);
  EXPECT_LT(s.percent_of_peak(), 66.7);
}

TEST(TraceBehaviour, SeqReadUnderRochracobabgReachesNinetyPercent) {
  // Consecutive lines rotate over the 4 bank groups: bursts tCCD_S = BL/2 = 4 tCK apart
  // fill the bus; only refresh (4.5 %) and row switches remain.
  DdrStats s = run_pattern(TracePattern::SeqRead, "rochracobabg", 40000);
  EXPECT_GE(s.percent_of_peak(), 90.0);
  EXPECT_GT(s.row_hit_rate(), 0.95);  // 1 ACT per 128-burst row: 127/128 hits
}

TEST(TraceBehaviour, RandomReadHasAlmostNoRowHits) {
  // A row is 8 KiB of a 1 GiB range: the chance that another queued request falls in an
  // open row is ~ 32 x 8 KiB / 1 GiB = 0.02 %.
  DdrStats s = run_pattern(TracePattern::RandomRead, "rochrababgco", 20000);
  EXPECT_LT(s.row_hit_rate(), 0.01);
}

TEST(TraceBehaviour, MixedCollapsesBelowMixedSkew) {
  // 256 MiB-aligned bases differ only in row bits: all three streams share one bank
  // (one bank group), so nothing can beat tCCD_L spacing (<= 50 % of peak) and the
  // streams evict each other's rows. The skewed bases put the streams in different
  // bank groups, banks and ranks, so bursts may be tCCD_S apart (> 50 %).
  DdrStats mixed = run_pattern(TracePattern::Mixed, "rochrababgco", 30000);
  DdrStats skew = run_pattern(TracePattern::MixedSkew, "rochrababgco", 30000);
  EXPECT_LT(mixed.percent_of_peak(), 50.0);
  EXPECT_GT(skew.percent_of_peak(), 50.0);
  EXPECT_GT(mixed.row_conflicts, 0u);
  EXPECT_EQ(skew.row_conflicts, 0u);
}

}  // namespace
}  // namespace npu::hw
