// Address-trace files for the stand-alone DDR mode: reading DRAMSim3 and Ramulator
// traces, generating the standard validation patterns, and replaying a trace.
#pragma once

#include <cstdint>
#include <fstream>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "npu/base/line_reader.hpp"
#include "npu/hw/ddr/ddr_system.hpp"

namespace npu::hw {

enum class TraceFormat {
  Dramsim3,  ///< `0x1f40 READ 12` : hex address, READ|WRITE, cycle (tCK) it may be offered
  Ramulator  ///< `LD 0x1f40` / `ST 0x1f40` : offered as soon as the front end allows
};

/// "dramsim3" | "ramulator"; throws ConfigError listing both otherwise.
TraceFormat parse_trace_format(const std::string& name);

/// Largest cycle stamp a DRAMSim3 trace may carry: 10^17 tCK (about 2 years at DDR4-3200).
/// The model adds timings to ticks in 64-bit arithmetic (kNeverTick = 2^60), so stamps
/// are kept well below that; a larger stamp is an error ("out of range (max ...)").
inline constexpr Tick kMaxTraceCycle = 100000000000000000;

struct TraceRequest {
  std::uint64_t addr = 0;
  bool is_write = false;
  Tick cycle = 0;
};

/// Streams a trace file line by line. Blank lines and lines starting with '#' are
/// skipped. Throws ConfigError "FILE:LINE:COL: error: <reason>\n  fix: <expected form>"
/// for a malformed line, a DRAMSim3 cycle stamp above kMaxTraceCycle or below the
/// previous request's (stamps must not decrease), and when the path cannot be opened or
/// is a directory.
class TraceReader {
 public:
  TraceReader(const std::string& path, TraceFormat format);
  /// Next request; false at the end of the file.
  bool next(TraceRequest& out);
  int line() const { return line_no_; }
  const std::string& path() const { return path_; }

  /// Parse one line (no newline); returns false for a blank/comment line. Throws as
  /// next() does, naming `path` and `line_no`.
  static bool parse_line(std::string_view text, TraceFormat format, const std::string& path, int line_no,
                         TraceRequest& out);

 private:
  std::string path_;
  TraceFormat format_;
  std::ifstream in_;
  BlockLineReader lines_;  ///< reads in_ (a trace is millions of short lines)
  std::string_view line_;  ///< the line being parsed
  int line_no_ = 0;
  Tick last_cycle_ = 0;     ///< cycle stamp of the previous request (DRAMSim3)
  int last_cycle_line_ = 0;  ///< its line
};

/// The validation patterns of `npu ddr gen` (64-byte requests, cycle stamps 0, 1, 2, ...):
/// seq-read, seq-write, random-read, mixed, mixed-skew. See docs/ddr.md.
enum class TracePattern { SeqRead, SeqWrite, RandomRead, Mixed, MixedSkew };
TracePattern parse_trace_pattern(const std::string& name);  ///< throws ConfigError
std::vector<std::string> trace_pattern_names();

/// Generates request i (0-based) of a pattern:
///   seq-read / seq-write: addr = 64 i
///   random-read: addr = 64 * (splitmix64 value i of the stream seeded 0x5EED mod 2^24),
///                i.e. uniform 64-byte-aligned in [0, 1 GiB)
///   mixed: i % 3 = 0 read 0 + 64 (i/3); 1 read 256 MiB + 64 (i/3); 2 write 512 MiB + 64 (i/3)
///   mixed-skew: bases 0, 256 MiB + 0x14000, 512 MiB + 0x2A000
class TraceGenerator {
 public:
  TraceGenerator(TracePattern pattern, std::uint64_t request_bytes = 64);
  TraceRequest next();
  /// Largest address + request_bytes the first n requests can touch (for capacity checks).
  std::uint64_t span_bytes(std::uint64_t n) const;

 private:
  TracePattern pattern_;
  std::uint64_t request_bytes_;
  std::uint64_t index_ = 0;
  std::uint64_t rng_state_;
};

/// Write n requests of `pattern` in `format` to `out`.
void write_pattern_trace(TracePattern pattern, std::uint64_t n, TraceFormat format, std::ostream& out,
                         std::uint64_t request_bytes = 64);

/// Wall-clock split of a replay (seconds): reading + parsing the file, and simulating.
struct ReplayTiming {
  double parse_s = 0;
  double simulate_s = 0;
};

/// Replay a whole trace through `ddr` and drain it. Throws ConfigError naming the trace
/// file and line for a malformed line or an address past the DDR capacity. Returns the
/// number of requests replayed. The file is read in chunks of 65536 requests so that
/// `timing` (optional) can separate parsing from simulation.
/// With `one_at_a_time`, each request is run to completion before the next is offered,
/// as the TLM target serves b_transport calls (enable DdrSystem::set_overlap_row_commands
/// first to match DdrModule).
std::uint64_t replay_trace(DdrSystem& ddr, TraceReader& reader, ReplayTiming* timing = nullptr,
                           bool one_at_a_time = false);

}  // namespace npu::hw
