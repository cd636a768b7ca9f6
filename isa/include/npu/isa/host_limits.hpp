// Bound on the time a HOST instruction may make the NPU wait.
#pragma once

#include <cstdint>

namespace npu::isa {

/// Largest `cycles` of one HOST instruction, and of all HOST instructions of a program
/// together: 10^12 NPU core cycles (1000 s at 1 GHz; a host partition such as NMS takes
/// micro- to milliseconds). Simulated time is kept in 64-bit picoseconds and the slowest
/// allowed clock is 1 MHz (10^6 ps a cycle), so 10^12 cycles are at most 10^18 ps, inside
/// 2^63 ps (9.2 x 10^18) with room for the rest of the run; a count of 10^15 or 2^64 - 1
/// would overflow it. `npu asm check` (and every command that checks a program) refuses more.
inline constexpr std::uint64_t kMaxHostCycles = 1000000000000ull;

}  // namespace npu::isa
