// A hand-written two-layer program in codegen's form, shared by the cross-layer pipelining and
// SRAM residency tests (test_pipeline.cpp, test_sram_residency.cpp).
#pragma once

#include <string>

namespace npu::compiler::testing {

// Layer a: x (256 B) -> relu -> t, in SRAM [0x0, 0x200). Layer b: weights w (64 B) and t ->
// relu -> y, in SRAM [0x0, 0x240). Codegen's fence: SYNC cp push cp2ld, SYNC st push st2ld,
// b's first LOAD waits on both.
inline const std::string kTwoLayerProgram =
    ".npuasm 1\n"
    ".program name=two strategy=none dtype=int8\n"
    ".tensor x kind=input ddr=0x0 bytes=256\n"
    ".tensor w kind=weight ddr=0x1000 bytes=64\n"
    ".tensor t kind=intermediate ddr=0x2000 bytes=256\n"
    ".tensor y kind=output ddr=0x3000 bytes=256\n"
    "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256 push=ld2cp\n"
    "ACT   layer=a op=relu in=0x0 out=0x100 elems=256 wait=ld2cp push=cp2st\n"
    "STORE layer=a tensor=t ddr=0x2000 sram=0x100 extent=256 wait=cp2st\n"
    "SYNC  layer=b queue=cp push=cp2ld\n"
    "SYNC  layer=b queue=st push=st2ld\n"
    "LOAD  layer=b tensor=w ddr=0x1000 sram=0x0 extent=64 wait=cp2ld,st2ld\n"
    "LOAD  layer=b tensor=t ddr=0x2000 sram=0x40 extent=256 push=ld2cp\n"
    "ACT   layer=b op=relu in=0x40 out=0x140 elems=256 wait=ld2cp push=cp2st\n"
    "STORE layer=b tensor=y ddr=0x3000 sram=0x140 extent=256 wait=cp2st\n";

}  // namespace npu::compiler::testing
