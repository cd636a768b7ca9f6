#include "npu/hw/ddr/ddr_trace_file.hpp"
#include "npu/base/text_lines.hpp"
#include "npu/base/user_text.hpp"
#include "npu/base/files.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <filesystem>

namespace npu::hw {

namespace {

constexpr std::uint64_t kMiB = 1024ull * 1024;
constexpr std::uint64_t kGiB = 1024 * kMiB;

const char* expected_form(TraceFormat f) {
  return f == TraceFormat::Dramsim3
             ? "each line is `0xADDR READ|WRITE CYCLE` (DRAMSim3 format), e.g. `0x1f40 READ 12`"
             : "each line is `LD ADDR` or `ST ADDR` (Ramulator load/store format), ADDR hexadecimal after 0x or "
               "decimal, e.g. `LD 0x1f40` or `LD 8000`";
}

[[noreturn]] void bad_line(const std::string& path, int line, std::size_t col, const std::string& reason,
                           TraceFormat f) {
  throw ConfigError(path + ":" + std::to_string(line) + ":" + std::to_string(col) + ": error: " + reason +
                    "\n  fix: " + expected_form(f));
}

struct Token {
  std::string_view text;
  std::size_t col = 0;  // 1-based
};

// Splits on spaces/tabs (and a trailing '\r'), up to 4 tokens.
int tokenize(std::string_view s, Token* tok, int max_tokens);

void address(const std::string& path, int line_no, const Token& tok, std::uint64_t& out, TraceFormat format);

int tokenize(std::string_view s, Token* tok, int max_tokens) {
  int n = 0;
  std::size_t i = 0, len = s.size();
  while (i < len) {
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
    if (i >= len) break;
    std::size_t start = i;
    while (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\r') ++i;
    if (n < max_tokens) tok[n] = Token{s.substr(start, i - start), start + 1};
    ++n;
  }
  return n;
}

enum class HexResult { Ok, NotHex, TooWide };

// Every character a hexadecimal (or decimal) digit: a loop instead of find_first_not_of, which
// searches the digit set with memchr once a character (a tenth of `npu ddr run`'s parsing).
bool all_hex_digits(std::string_view t) {
  for (const char c : t)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  return true;
}
bool all_decimal_digits(std::string_view t) {
  for (const char c : t)
    if (c < '0' || c > '9') return false;
  return true;
}

HexResult parse_hex(std::string_view t, std::uint64_t& v) {
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) t.remove_prefix(2);
  if (t.empty()) return HexResult::NotHex;
  // from_chars reads hex digits only (no sign, no prefix): all of t read is all of it hex.
  const auto r = std::from_chars(t.data(), t.data() + t.size(), v, 16);
  if (r.ec == std::errc() && r.ptr == t.data() + t.size()) return HexResult::Ok;
  if (!all_hex_digits(t)) return HexResult::NotHex;  // junk anywhere, even after too many digits
  return r.ec == std::errc::result_out_of_range ? HexResult::TooWide : HexResult::NotHex;
}

/// A token of the trace for a message: escaped and truncated (npu::echo). A trace is ASCII, so
/// every other byte is shown as \xNN too, valid UTF-8 or not: a no-break space or a byte-order
/// mark printed as itself would make '0x40 READ' look like a valid address.
std::string shown(std::string_view t) {
  const bool ascii = std::all_of(t.begin(), t.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (ascii) return echo(t);
  std::string escaped;
  for (const char c : t) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x80) {
      escaped += c;
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", unsigned(u));
      escaped += hex;
    }
  }
  return echo(escaped);
}

void address(const std::string& path, int line_no, const Token& tok, std::uint64_t& out, TraceFormat format) {
  const HexResult h = parse_hex(tok.text, out);
  if (h == HexResult::TooWide)
    bad_line(path, line_no, tok.col,
             "address '" + shown(tok.text) + "' exceeds 64 bits (at most 0xffffffffffffffff, and it must be below "
             "the DDR capacity)",
             format);
  if (h != HexResult::Ok && line_no == 1 && tok.col == 1 && tok.text.substr(0, 3) == "\xEF\xBB\xBF")
    bad_line(path, line_no, tok.col,
             "the file starts with a UTF-8 byte-order mark (EF BB BF), before the address '" +
                 shown(tok.text.substr(3)) + "': save the trace without it (a trace is ASCII)",
             format);
  if (h != HexResult::Ok) bad_line(path, line_no, tok.col, "'" + shown(tok.text) + "' is not a hexadecimal address", format);
}

// A Ramulator address: hexadecimal after 0x or 0X, else decimal, as Ramulator 2's
// LoadStoreTrace reads it (src/frontend/impl/memory_trace/loadstore_trace.cpp: std::stoll of
// the digits after the prefix in base 16, else std::stoll in base 10). Ramulator's stoll stops
// at the first non-digit ("1f40" reads as 1); such an address is refused here instead.
void ramulator_address(const std::string& path, int line_no, const Token& tok, std::uint64_t& out) {
  const std::string_view t = tok.text;
  if (t.size() >= 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    address(path, line_no, tok, out, TraceFormat::Ramulator);
    return;
  }
  const auto r = std::from_chars(t.data(), t.data() + t.size(), out, 10);
  const bool digits = all_decimal_digits(t) && !t.empty();
  if (digits && r.ec == std::errc::result_out_of_range)
    bad_line(path, line_no, tok.col,
             "address '" + shown(t) + "' exceeds 64 bits (at most 18446744073709551615, and it must be below the DDR "
             "capacity)",
             TraceFormat::Ramulator);
  if (!digits || r.ec != std::errc())
    bad_line(path, line_no, tok.col,
             "'" + shown(t) + "' is not an address: Ramulator reads an address without 0x as decimal (write 0x" +
                 shown(t) + " for a hexadecimal one)",
             TraceFormat::Ramulator);
}

// A DRAMSim3 trace's command word: 1 a write, 0 a read, -1 unknown. DRAMSim3 reads WRITE, write,
// P_MEM_WR and BOFF as writes (src/common.cc, operator>> of Transaction) and any other word as a
// read; the read words here are READ, read and DRAMSim2's (TraceBasedSim.cpp: P_FETCH, P_MEM_RD,
// P_LOCK_RD, P_LOCK_WR), so that a typo ("RAED") is refused, not read as a read.
int dramsim_command(std::string_view w) {
  if (w == "READ") return 0;  // the two words of nearly every trace, before the lists
  if (w == "WRITE") return 1;
  for (const char* write : {"WRITE", "write", "P_MEM_WR", "BOFF"})
    if (w == write) return 1;
  for (const char* read : {"READ", "read", "P_MEM_RD", "P_FETCH", "P_LOCK_RD", "P_LOCK_WR"})
    if (w == read) return 0;
  return -1;
}

enum class DecResult { Ok, NotANumber, OutOfRange };

// A cycle stamp: decimal digits only, at most kMaxTraceCycle.
DecResult parse_cycle(std::string_view t, std::int64_t& v) {
  if (t.empty()) return DecResult::NotANumber;
  std::uint64_t u = 0;
  const auto r = std::from_chars(t.data(), t.data() + t.size(), u, 10);
  if (!(r.ec == std::errc() && r.ptr == t.data() + t.size()) && !all_decimal_digits(t)) return DecResult::NotANumber;
  if (r.ec == std::errc::result_out_of_range || (r.ec == std::errc() && u > std::uint64_t(kMaxTraceCycle)))
    return DecResult::OutOfRange;
  if (r.ec != std::errc() || r.ptr != t.data() + t.size()) return DecResult::NotANumber;
  v = std::int64_t(u);
  return DecResult::Ok;
}

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

TraceFormat parse_trace_format(const std::string& name) {
  if (name == "dramsim3") return TraceFormat::Dramsim3;
  if (name == "ramulator") return TraceFormat::Ramulator;
  throw ConfigError("error: unknown trace format '" + name + "'\n  fix: use --format dramsim3 or --format ramulator");
}

TraceReader::TraceReader(const std::string& path, TraceFormat format)
    : path_(path), format_(format), lines_(in_, path, "address trace") {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw ConfigError(path + ": error: is a directory, expected a file\n  fix: give the trace file itself, e.g. a "
                             "file written by `npu ddr gen PATTERN --hw CONFIG -n N -o FILE`");
  }
  require_regular_file(path, "trace");
  in_.open(path);
  if (!in_) {
    throw ConfigError(path + ": error: cannot open the trace file\n  fix: check the path (and that it is readable)");
  }
}

bool TraceReader::parse_line(std::string_view text, TraceFormat format, const std::string& path, int line_no,
                             TraceRequest& out) {
  Token tok[4];
  int n = tokenize(text, tok, 4);
  if (n == 0 || tok[0].text[0] == '#') return false;
  // A line of the other format: say so with the exact flag, rather than "not an address".
  std::uint64_t probe = 0;
  if (format == TraceFormat::Dramsim3 && n >= 2 && (tok[0].text == "LD" || tok[0].text == "ST") &&
      parse_hex(tok[1].text, probe) == HexResult::Ok) {
    throw ConfigError(path + ":" + std::to_string(line_no) + ":" + std::to_string(tok[0].col) +
                      ": error: this line is in Ramulator's load/store format (`" + std::string(tok[0].text) +
                      " 0xADDR`), but the trace is read as DRAMSim3 (`0xADDR READ|WRITE CYCLE`)\n"
                      "  fix: add --format ramulator");
  }
  if (format == TraceFormat::Ramulator && n >= 2 && parse_hex(tok[0].text, probe) == HexResult::Ok &&
      (tok[1].text == "READ" || tok[1].text == "WRITE")) {
    throw ConfigError(path + ":" + std::to_string(line_no) + ":" + std::to_string(tok[0].col) +
                      ": error: this line is in DRAMSim3's format (`0xADDR " + std::string(tok[1].text) +
                      " CYCLE`), but the trace is read as Ramulator (`LD|ST 0xADDR`)\n"
                      "  fix: use --format dramsim3 (the default)");
  }
  if (format == TraceFormat::Dramsim3) {
    address(path, line_no, tok[0], out.addr, format);
    if (n < 2) bad_line(path, line_no, text.size() + 1, "missing the command (READ or WRITE)", format);
    const int kind = dramsim_command(tok[1].text);
    if (kind < 0)
      bad_line(path, line_no, tok[1].col,
               "unknown command '" + shown(tok[1].text) + "' (READ or WRITE; DRAMSim3's and DRAMSim2's trace words "
               "read, write, P_MEM_RD, P_FETCH, P_LOCK_RD, P_LOCK_WR, P_MEM_WR and BOFF too)",
               format);
    out.is_write = kind == 1;
    if (n < 3) bad_line(path, line_no, text.size() + 1, "missing the cycle after the command", format);
    std::int64_t cycle = 0;
    const DecResult dec = parse_cycle(tok[2].text, cycle);
    if (dec == DecResult::OutOfRange) {
      bad_line(path, line_no, tok[2].col,
               "cycle " + shown(tok[2].text) + " is out of range (max " + std::to_string(kMaxTraceCycle) +
                   " tCK, 10^17: larger stamps would overflow the model's 64-bit tick arithmetic)",
               format);
    }
    if (dec != DecResult::Ok) {
      bad_line(path, line_no, tok[2].col,
               "cycle '" + shown(tok[2].text) + "' is not a non-negative decimal integer", format);
    }
    out.cycle = cycle;
    if (n > 3) bad_line(path, line_no, tok[3].col, "unexpected '" + shown(tok[3].text) + "' after the cycle", format);
  } else {
    if (tok[0].text == "LD") {
      out.is_write = false;
    } else if (tok[0].text == "ST") {
      out.is_write = true;
    } else {
      bad_line(path, line_no, tok[0].col, "unknown command '" + shown(tok[0].text) + "' (LD or ST)", format);
    }
    if (n < 2) bad_line(path, line_no, text.size() + 1, "missing the address after the command", format);
    ramulator_address(path, line_no, tok[1], out.addr);
    if (n > 2) {
      bad_line(path, line_no, tok[2].col, "unexpected '" + shown(tok[2].text) + "' after the address", format);
    }
    out.cycle = 0;
  }
  return true;
}

bool TraceReader::next(TraceRequest& out) {
  while (lines_.next(line_, std::size_t(line_no_) + 1)) {
    ++line_no_;
    if (!parse_line(line_, format_, path_, line_no_, out)) continue;
    if (format_ == TraceFormat::Dramsim3) {
      if (out.cycle < last_cycle_) {
        Token tok[4];
        tokenize(line_, tok, 4);
        throw ConfigError(path_ + ":" + std::to_string(line_no_) + ":" + std::to_string(tok[2].col) +
                          ": error: cycle " + std::to_string(out.cycle) + " is before the previous request's cycle " +
                          std::to_string(last_cycle_) + " (line " + std::to_string(last_cycle_line_) +
                          "): cycle stamps must not decrease\n  fix: sort the trace by cycle (e.g. `sort -s -n -k3 "
                          "FILE`); a request is offered at its cycle, so the file must be in time order");
      }
      last_cycle_ = out.cycle;
      last_cycle_line_ = line_no_;
    }
    return true;
  }
  return false;
}

TracePattern parse_trace_pattern(const std::string& name) {
  if (name == "seq-read") return TracePattern::SeqRead;
  if (name == "seq-write") return TracePattern::SeqWrite;
  if (name == "random-read") return TracePattern::RandomRead;
  if (name == "mixed") return TracePattern::Mixed;
  if (name == "mixed-skew") return TracePattern::MixedSkew;
  std::string list;
  for (const auto& n : trace_pattern_names()) list += (list.empty() ? "" : ", ") + n;
  throw ConfigError("error: unknown trace pattern '" + name + "'\n  fix: use one of " + list);
}

std::vector<std::string> trace_pattern_names() {
  return {"seq-read", "seq-write", "random-read", "mixed", "mixed-skew"};
}

TraceGenerator::TraceGenerator(TracePattern pattern, std::uint64_t request_bytes)
    : pattern_(pattern), request_bytes_(request_bytes), rng_state_(0x5EED) {}

TraceRequest TraceGenerator::next() {
  TraceRequest r;
  const std::uint64_t i = index_++;
  r.cycle = Tick(i);
  switch (pattern_) {
    case TracePattern::SeqRead:
    case TracePattern::SeqWrite:
      r.addr = request_bytes_ * i;
      r.is_write = pattern_ == TracePattern::SeqWrite;
      break;
    case TracePattern::RandomRead:
      r.addr = request_bytes_ * (splitmix64(rng_state_) % (kGiB / request_bytes_));
      r.is_write = false;
      break;
    case TracePattern::Mixed:
    case TracePattern::MixedSkew: {
      const bool skew = pattern_ == TracePattern::MixedSkew;
      const std::uint64_t base[3] = {0, 256 * kMiB + (skew ? 0x14000 : 0), 512 * kMiB + (skew ? 0x2A000 : 0)};
      const std::uint64_t stream = i % 3;
      r.addr = base[stream] + request_bytes_ * (i / 3);
      r.is_write = stream == 2;
      break;
    }
  }
  return r;
}

std::uint64_t TraceGenerator::span_bytes(std::uint64_t n) const {
  switch (pattern_) {
    case TracePattern::SeqRead:
    case TracePattern::SeqWrite: return n * request_bytes_;
    case TracePattern::RandomRead: return kGiB;
    case TracePattern::Mixed: return 512 * kMiB + (n + 2) / 3 * request_bytes_;
    case TracePattern::MixedSkew: return 512 * kMiB + 0x2A000 + (n + 2) / 3 * request_bytes_;
  }
  return 0;
}

void write_pattern_trace(TracePattern pattern, std::uint64_t n, TraceFormat format, std::ostream& out,
                         std::uint64_t request_bytes) {
  TraceGenerator gen(pattern, request_bytes);
  char buf[64];
  for (std::uint64_t i = 0; i < n; ++i) {
    TraceRequest r = gen.next();
    int len;
    if (format == TraceFormat::Dramsim3) {
      len = std::snprintf(buf, sizeof buf, "0x%" PRIx64 " %s %" PRId64 "\n", r.addr, r.is_write ? "WRITE" : "READ",
                          std::int64_t(r.cycle));
    } else {
      len = std::snprintf(buf, sizeof buf, "%s 0x%" PRIx64 "\n", r.is_write ? "ST" : "LD", r.addr);
    }
    out.write(buf, len);
  }
}

std::uint64_t replay_trace(DdrSystem& ddr, TraceReader& reader, ReplayTiming* timing, bool one_at_a_time) {
  using Clock = std::chrono::steady_clock;
  const std::uint64_t capacity = ddr.capacity_bytes();
  std::uint64_t count = 0;
  std::vector<TraceRequest> chunk;
  chunk.reserve(65536);
  double parse_s = 0, simulate_s = 0;
  bool more = true;
  while (more) {
    const auto t0 = Clock::now();
    chunk.clear();
    TraceRequest r;
    while (chunk.size() < 65536 && (more = reader.next(r))) {
      if (r.addr >= capacity) {
        char addr[32], cap[32];
        std::snprintf(addr, sizeof addr, "0x%" PRIx64, r.addr);
        std::snprintf(cap, sizeof cap, "0x%" PRIx64, capacity);
        throw ConfigError(reader.path() + ":" + std::to_string(reader.line()) + ":1: error: address " + addr +
                          " is past the DDR capacity of " + cap + " bytes (" + std::to_string(capacity / kMiB) +
                          " MiB)\n  fix: use addresses below " + cap +
                          ", or a DDR config with more rows, ranks or channels");
      }
      chunk.push_back(r);
    }
    const auto t1 = Clock::now();
    if (one_at_a_time) {
      for (const TraceRequest& q : chunk) ddr.serve(q.addr, q.is_write, q.cycle);
    } else {
      for (const TraceRequest& q : chunk) ddr.offer(q.addr, q.is_write, q.cycle);
    }
    count += chunk.size();
    if (!more) ddr.drain();
    const auto t2 = Clock::now();
    parse_s += std::chrono::duration<double>(t1 - t0).count();
    simulate_s += std::chrono::duration<double>(t2 - t1).count();
  }
  if (count == 0)
    throw ConfigError(reader.path() + ": error: no requests (the trace is empty or holds only comments and blank "
                      "lines)\n  fix: give a trace with at least one request, e.g. one written by `npu ddr gen "
                      "PATTERN --hw CONFIG -n N -o FILE`");
  if (timing) {
    timing->parse_s = parse_s;
    timing->simulate_s = simulate_s;
  }
  return count;
}

}  // namespace npu::hw
