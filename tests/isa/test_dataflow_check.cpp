// isa::check_dataflow on hand-written programs: a LOAD of stored data must follow the STOREs
// of those bytes (program order without tokens; queue order + tokens with them), and every
// output byte must be written. Byte offsets in the expectations are worked out by hand from
// each program's extents and strides.
#include <gtest/gtest.h>

#include <string>

#include "npu/isa/assembly.hpp"
#include "npu/isa/check/dataflow_check.hpp"

namespace npu::isa {
namespace {

const std::string kHeader =
    ".npuasm 1\n"
    ".program name=df strategy=none dtype=int8\n"
    ".tensor x kind=input ddr=0x0 bytes=256\n"
    ".tensor t kind=intermediate ddr=0x1000 bytes=256\n"
    ".tensor y kind=output ddr=0x2000 bytes=256\n";

std::vector<CheckIssue> check(const std::string& body) { return check_dataflow(read_program(kHeader + body, "df.npuasm")); }

// Layer a: x -> relu -> t; layer b: t -> relu -> y. Strict program order (no tokens).
const std::string kSerial =
    "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256\n"
    "ACT   layer=a op=relu in=0x0 out=0x100 elems=256\n"
    "STORE layer=a tensor=t ddr=0x1000 sram=0x100 extent=256\n"
    "LOAD  layer=b tensor=t ddr=0x1000 sram=0x0 extent=256\n"
    "ACT   layer=b op=relu in=0x0 out=0x100 elems=256\n"
    "STORE layer=b tensor=y ddr=0x2000 sram=0x100 extent=256\n";

TEST(DataflowCheck, SerialProgramThatStoresBeforeItLoadsIsClean) { EXPECT_TRUE(check(kSerial).empty()); }

TEST(DataflowCheck, LoadBeforeTheStoreIsReported) {
  // Swap lines 3 and 4: the LOAD of t (instruction #2) now precedes its STORE.
  const std::string body =
      "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256\n"
      "ACT   layer=a op=relu in=0x0 out=0x100 elems=256\n"
      "LOAD  layer=b tensor=t ddr=0x1000 sram=0x0 extent=256\n"
      "STORE layer=a tensor=t ddr=0x1000 sram=0x100 extent=256\n"
      "ACT   layer=b op=relu in=0x0 out=0x100 elems=256\n"
      "STORE layer=b tensor=y ddr=0x2000 sram=0x100 extent=256\n";
  const auto issues = check(body);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].kind, CheckKind::Dataflow);
  EXPECT_EQ(issues[0].index, 2u);
  EXPECT_EQ(issues[0].source_line, 8);  // 5 header lines, then the third instruction
  EXPECT_EQ(issues[0].message,
            "instruction #2 LOAD (layer b): reads intermediate tensor 't' (bytes at offset 0 to 256) but no STORE "
            "that happens before it wrote offset 0; a STORE of those bytes must come first in the store queue and be "
            "ordered before this LOAD by tokens (or the program order of a program without tokens)");
}

TEST(DataflowCheck, PartlyWrittenRowsAreReportedAtTheFirstGap) {
  // The STORE writes 2 rows of 64 bytes 128 apart: offsets [0,64) and [128,192). The LOAD
  // reads [0,192): offset 64 was never written. The output y gets only 200 of 256 bytes.
  const std::string body =
      "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256\n"
      "ACT   layer=a op=relu in=0x0 out=0x100 elems=256\n"
      "STORE layer=a tensor=t ddr=0x1000 sram=0x100 extent=64,2 stride=128\n"
      "LOAD  layer=b tensor=t ddr=0x1000 sram=0x0 extent=192\n"
      "ACT   layer=b op=relu in=0x0 out=0x100 elems=192\n"
      "STORE layer=b tensor=y ddr=0x2000 sram=0x100 extent=200\n";
  const auto issues = check(body);
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_NE(issues[0].message.find("reads intermediate tensor 't' (bytes at offset 0 to 192) but no STORE that "
                                   "happens before it wrote offset 64"),
            std::string::npos)
      << issues[0].message;
  EXPECT_EQ(issues[1].message,
            "output tensor 'y' (256 bytes): offset 200 is never written by a STORE; every byte of a program output "
            "must be stored (a fusion that drops a graph output is illegal)");
  EXPECT_EQ(issues[1].index, 2u);       // the third tensor
  EXPECT_EQ(issues[1].source_line, 5);  // its .tensor line
}

TEST(DataflowCheck, TokensDecideTheOrderNotTheTextOfTheProgram) {
  // With tokens the load queue runs ahead: the LOAD of t waits on nothing from the store
  // queue, so it may run before the STORE of t although it comes later in the text.
  const std::string racy =
      "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256 push=ld2cp\n"
      "ACT   layer=a op=relu in=0x0 out=0x100 elems=256 wait=ld2cp push=cp2st\n"
      "STORE layer=a tensor=t ddr=0x1000 sram=0x100 extent=256 wait=cp2st\n"
      "LOAD  layer=b tensor=t ddr=0x1000 sram=0x200 extent=256 push=ld2cp\n"
      "ACT   layer=b op=relu in=0x200 out=0x300 elems=256 wait=ld2cp push=cp2st\n"
      "STORE layer=b tensor=y ddr=0x2000 sram=0x300 extent=256 wait=cp2st\n";
  const auto issues = check(racy);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].index, 3u);
  // st2ld orders it: the STORE of t pushes, the LOAD of t waits.
  const std::string ordered =
      "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256 push=ld2cp\n"
      "ACT   layer=a op=relu in=0x0 out=0x100 elems=256 wait=ld2cp push=cp2st\n"
      "STORE layer=a tensor=t ddr=0x1000 sram=0x100 extent=256 wait=cp2st push=st2ld\n"
      "LOAD  layer=b tensor=t ddr=0x1000 sram=0x200 extent=256 wait=st2ld push=ld2cp\n"
      "ACT   layer=b op=relu in=0x200 out=0x300 elems=256 wait=ld2cp push=cp2st\n"
      "STORE layer=b tensor=y ddr=0x2000 sram=0x300 extent=256 wait=cp2st\n";
  EXPECT_TRUE(check(ordered).empty());
  // Ordering through the compute queue works too: STORE t -> st2cp -> ACT -> cp2ld -> LOAD t.
  const std::string via_compute =
      "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256 push=ld2cp\n"
      "ACT   layer=a op=relu in=0x0 out=0x100 elems=256 wait=ld2cp push=cp2st\n"
      "STORE layer=a tensor=t ddr=0x1000 sram=0x100 extent=256 wait=cp2st push=st2cp\n"
      "SYNC  layer=b queue=cp wait=st2cp push=cp2ld\n"
      "LOAD  layer=b tensor=t ddr=0x1000 sram=0x200 extent=256 wait=cp2ld push=ld2cp\n"
      "ACT   layer=b op=relu in=0x200 out=0x300 elems=256 wait=ld2cp push=cp2st\n"
      "STORE layer=b tensor=y ddr=0x2000 sram=0x300 extent=256 wait=cp2st\n";
  EXPECT_TRUE(check(via_compute).empty());
}

TEST(DataflowCheck, InputsAndWeightsNeedNoStore) {
  // Only the output is stored; x (input) is read without any STORE.
  const std::string body =
      "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256\n"
      "ACT   layer=a op=relu in=0x0 out=0x100 elems=256\n"
      "STORE layer=a tensor=y ddr=0x2000 sram=0x100 extent=256\n";
  EXPECT_TRUE(check(body).empty());
}

TEST(DataflowCheck, MoreRowsThanTheLimitStopsTheCheckWithAnIssue) {
  // 4096 x 1025 = 4198400 rows of one byte at stride 0, above the 2^22 = 4194304 limit (the
  // zoo's largest program, YOLOv5s unfused, has 67862 rows in all).
  const std::string body =
      "STORE layer=a tensor=t ddr=0x1000 sram=0x0 extent=256\n"
      "LOAD  layer=b tensor=t ddr=0x1000 sram=0x0 extent=1,4096,1025 stride=0,0\n"
      "STORE layer=b tensor=y ddr=0x2000 sram=0x100 extent=256\n";
  const auto issues = check(body);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].message,
            "the program's LOADs and STOREs have more than 4194304 DDR rows (extent[1] x extent[2] summed); the "
            "data-flow check stops there: split the program (real networks have well under 10^5)");
}

}  // namespace
}  // namespace npu::isa
