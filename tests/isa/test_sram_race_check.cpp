// isa::check_sram_races on hand-written programs: two queues touching the same SRAM bytes,
// one writing, must be ordered by tokens. Byte ranges in the expectations are worked out by
// hand from each instruction's extents (int8: 1 byte per element).
#include <gtest/gtest.h>

#include <string>

#include "npu/isa/assembly.hpp"
#include "npu/isa/check/sram_race_check.hpp"

namespace npu::isa {
namespace {

const std::string kRaceHeader =
    ".npuasm 1\n"
    ".program name=race strategy=none dtype=int8\n"
    ".tensor x kind=input ddr=0x0 bytes=4096\n"
    ".tensor t kind=intermediate ddr=0x1000 bytes=4096\n"
    ".tensor y kind=output ddr=0x2000 bytes=4096\n";  // instructions start at line 6

std::vector<CheckIssue> race_check(const std::string& body) {
  return check_sram_races(read_program(kRaceHeader + body, "race.npuasm"));
}

TEST(SramRaceCheck, ProgramWithoutTokensRunsInProgramOrderAndCannotRace) {
  // The same SRAM bytes are loaded, read and overwritten, but without tokens the controller
  // runs one instruction after another.
  const std::string body =
      "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256\n"
      "ACT   layer=a op=relu in=0x0 out=0x100 elems=256\n"
      "LOAD  layer=a tensor=x ddr=0x100 sram=0x0 extent=256\n"
      "STORE layer=a tensor=y ddr=0x2000 sram=0x100 extent=256\n";
  EXPECT_TRUE(race_check(body).empty());
}

TEST(SramRaceCheck, ReadOfALoadNotOrderedByATokenIsReported) {
  // The ACT (#1) reads SRAM 0..255, which the LOAD (#0) writes; the ACT waits on nothing.
  const std::string racy =
      "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256\n"
      "ACT   layer=a op=relu in=0x0 out=0x100 elems=256 push=cp2st\n"
      "STORE layer=a tensor=y ddr=0x2000 sram=0x100 extent=256 wait=cp2st\n";
  const auto issues = race_check(racy);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].kind, CheckKind::SramRace);
  EXPECT_EQ(issues[0].index, 1u);
  EXPECT_EQ(issues[0].source_line, 7);
  EXPECT_EQ(issues[0].message,
            "SRAM race: instruction #0 LOAD (line 6) of layer a writes SRAM bytes 0..255 ('sram') and instruction #1 "
            "ACT (line 7) of layer a reads them ('in'), with no token ordering the two, so the result depends on which "
            "finishes first; to run them in program order, push a token ld2cp after #0 LOAD (line 6) of layer a and "
            "wait on it at #1");
  // ld2cp orders them: clean.
  const std::string ordered =
      "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256 push=ld2cp\n"
      "ACT   layer=a op=relu in=0x0 out=0x100 elems=256 wait=ld2cp push=cp2st\n"
      "STORE layer=a tensor=y ddr=0x2000 sram=0x100 extent=256 wait=cp2st\n";
  EXPECT_TRUE(race_check(ordered).empty());
}

TEST(SramRaceCheck, ReloadingABufferBeforeComputeIsDoneWithItIsReported) {
  // Write-after-read: tile 1's LOAD (#3) refills SRAM 0..255 while tile 0's ACT (#1) may still
  // be reading it; only a cp2ld token from that ACT makes the reload safe. The LOAD writes
  // 64..255 (192 bytes from 0x40) and the ACT reads 0..255: bytes 64..255 are shared. The load queue runs ahead, so
  // the checker meets the LOAD first; the issue is still at the later instruction, #3.
  const std::string racy =
      "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256 push=ld2cp\n"
      "ACT   layer=a op=relu in=0x0 out=0x100 elems=256 wait=ld2cp push=cp2st\n"
      "STORE layer=a tensor=y ddr=0x2000 sram=0x100 extent=256 wait=cp2st\n"
      "LOAD  layer=a tensor=x ddr=0x100 sram=0x40 extent=192\n";
  const auto issues = race_check(racy);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].index, 3u);
  EXPECT_EQ(issues[0].message,
            "SRAM race: instruction #1 ACT (line 7) of layer a reads SRAM bytes 64..255 ('in') and instruction #3 "
            "LOAD (line 9) of layer a writes them ('sram'), with no token ordering the two, so the result depends on "
            "which finishes first; to run them in program order, push a token cp2ld after #1 ACT (line 7) of layer a "
            "and wait on it at #3");
  const std::string ordered =
      "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256 push=ld2cp\n"
      "ACT   layer=a op=relu in=0x0 out=0x100 elems=256 wait=ld2cp push=cp2st,cp2ld\n"
      "STORE layer=a tensor=y ddr=0x2000 sram=0x100 extent=256 wait=cp2st\n"
      "LOAD  layer=a tensor=x ddr=0x100 sram=0x40 extent=192 wait=cp2ld\n";
  EXPECT_TRUE(race_check(ordered).empty());
  // Disjoint buffers need no token: tile 1 loads into 256..511.
  const std::string disjoint =
      "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256 push=ld2cp\n"
      "ACT   layer=a op=relu in=0x0 out=0x200 elems=256 wait=ld2cp push=cp2st\n"
      "STORE layer=a tensor=y ddr=0x2000 sram=0x200 extent=256 wait=cp2st\n"
      "LOAD  layer=a tensor=x ddr=0x100 sram=0x100 extent=256\n";
  EXPECT_TRUE(race_check(disjoint).empty());
}

TEST(SramRaceCheck, TwoQueuesWritingTheSameBytesAreReported) {
  // Write-after-write: the load queue runs ahead (its second LOAD, #1, waits on nothing) and
  // writes SRAM 0x100..0x1ff, which the ACT (#2) writes as its output.
  const std::string racy =
      "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256 push=ld2cp\n"
      "LOAD  layer=a tensor=x ddr=0x100 sram=0x100 extent=256\n"
      "ACT   layer=a op=relu in=0x0 out=0x100 elems=256 wait=ld2cp push=cp2st\n"
      "STORE layer=a tensor=y ddr=0x2000 sram=0x100 extent=256 wait=cp2st\n";
  const auto issues = race_check(racy);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].index, 2u);
  EXPECT_NE(issues[0].message.find("instruction #1 LOAD (line 7) of layer a writes SRAM bytes 256..511 ('sram') and "
                                   "instruction #2 ACT (line 8) of layer a writes them ('out')"),
            std::string::npos)
      << issues[0].message;
}

TEST(SramRaceCheck, TheStoreMustWaitForTheComputeThatFillsItsBuffer) {
  // The STORE (#2) reads the ACT's output without cp2st: a read-after-write race with the
  // compute queue; the fix names cp2st.
  const std::string racy =
      "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256 push=ld2cp\n"
      "ACT   layer=a op=relu in=0x0 out=0x100 elems=256 wait=ld2cp\n"
      "STORE layer=a tensor=y ddr=0x2000 sram=0x100 extent=256\n";
  const auto issues = race_check(racy);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].index, 2u);
  EXPECT_NE(issues[0].message.find("push a token cp2st after #1 ACT"), std::string::npos) << issues[0].message;
}

TEST(SramRaceCheck, OrderingThroughAThirdQueueCounts) {
  // LOAD -> ld2st -> STORE-queue SYNC -> st2cp -> ACT: the ACT's read of the LOAD's bytes is
  // ordered transitively, through the store queue.
  const std::string body =
      "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256 push=ld2st\n"
      "SYNC  layer=a queue=st wait=ld2st push=st2cp\n"
      "ACT   layer=a op=relu in=0x0 out=0x100 elems=256 wait=st2cp push=cp2st\n"
      "STORE layer=a tensor=y ddr=0x2000 sram=0x100 extent=256 wait=cp2st\n";
  EXPECT_TRUE(race_check(body).empty());
}

TEST(SramRaceCheck, ManyRacesAreCappedAtTwentyIssuesAndACount) {
  // 25 ACTs, each reading the bytes of an unordered LOAD (one LOAD per ACT, 16 bytes apart):
  // 25 racing instructions -> 20 issues, then "5 more".
  std::string body = "SYNC layer=a queue=cp push=cp2st\nSTORE layer=a tensor=y ddr=0x2000 sram=0x800 extent=1 wait=cp2st\n";
  for (int k = 0; k < 25; ++k)
    body += "LOAD layer=a tensor=x ddr=0x0 sram=" + std::to_string(16 * k) + " extent=16\n" +
            "ACT layer=a op=relu in=" + std::to_string(16 * k) + " out=0x400 elems=16\n";
  const auto issues = race_check(body);
  ASSERT_EQ(issues.size(), 21u);
  EXPECT_EQ(issues[20].message, "5 more instructions race on SRAM (only the first 20 are listed)");
}

TEST(SramRaceCheck, DeadlockedProgramsAreLeftToCheckProgram) {
  // The ACT waits on a token nobody pushes: no order exists, check_program reports the deadlock.
  const std::string body =
      "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256\n"
      "ACT   layer=a op=relu in=0x0 out=0x100 elems=256 wait=ld2cp\n";
  EXPECT_TRUE(race_check(body).empty());
}

TEST(SramRaceCheck, HandWrittenDoubleBufferedConvIsClean) {
  const Program p = read_program_file(std::string(NPU_SOURCE_DIR) + "/tests/isa/data/double_buffered_conv.npuasm");
  EXPECT_TRUE(check_sram_races(p).empty());
}

}  // namespace
}  // namespace npu::isa
