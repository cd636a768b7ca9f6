// SRAM race check (sram_race_check.hpp): FastTrack-style last-writer / last-readers per SRAM
// byte range, visited in a happens-before-consistent order.
#include "npu/isa/check/sram_race_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "npu/base/checked_math.hpp"
#include "npu/isa/check/happens_before.hpp"

namespace npu::isa {

namespace {

constexpr std::size_t kNoInstruction = std::numeric_limits<std::size_t>::max();
constexpr std::size_t kMaxIssues = 20;

/// What is known of one SRAM byte range [begin, end).
struct Range {
  std::uint64_t end = 0;
  std::size_t writer = kNoInstruction;                        ///< last instruction that wrote it
  const char* writer_operand = "";                   ///< its .npuasm key
  std::array<std::size_t, 3> reader{kNoInstruction, kNoInstruction, kNoInstruction};  ///< per queue: last reader since that write
  std::array<const char*, 3> reader_operand{"", "", ""};
};

class SramRaceChecker {
 public:
  explicit SramRaceChecker(const Program& p) : p_(p), hb_(happens_before(p)) {}

  std::vector<CheckIssue> run() {
    if (!hb_.complete) return {};
    for (std::size_t i : hb_.order) visit(i);
    std::sort(issues_.begin(), issues_.end(),
              [](const CheckIssue& a, const CheckIssue& b) { return a.index < b.index; });
    if (races_ > kMaxIssues)
      issues_.push_back({0, 0,
                         fmt::format("{} more instructions race on SRAM (only the first {} are listed)",
                                     races_ - kMaxIssues, kMaxIssues),
                         CheckKind::SramRace});
    return std::move(issues_);
  }

 private:
  /// i's SRAM operands; none when their sizes overflow (check_program reports that shape).
  std::vector<SramOperand> operands(std::size_t i) const {
    try {
      return sram_operands(p_.instructions[i], p_.dtype);
    } catch (const ConfigError&) {
      return {};
    }
  }

  void visit(std::size_t i) {
    const std::vector<SramOperand> ops = operands(i);
    bool raced = false;
    for (const SramOperand& op : ops)
      if (!raced && op.bytes > 0) raced = check(i, op);
    for (const SramOperand& op : ops)
      if (op.bytes > 0 && !op.write) each(op.addr, op.addr + op.bytes, [&](Range& r) {
          const int q = int(p_.instructions[i].queue());
          r.reader[q] = i;
          r.reader_operand[q] = op.name;
        });
    for (const SramOperand& op : ops)
      if (op.bytes > 0 && op.write) each(op.addr, op.addr + op.bytes, [&](Range& r) {
          r.writer = i;
          r.writer_operand = op.name;
          r.reader = {kNoInstruction, kNoInstruction, kNoInstruction};
        });
  }

  /// Reports i's first race on `op`; true if there was one.
  bool check(std::size_t i, const SramOperand& op) {
    bool found = false;
    each(op.addr, op.addr + op.bytes, [&](Range& r) {
      if (found) return;
      auto unordered = [&](std::size_t other) { return other != kNoInstruction && other != i && !hb_.precedes(other, i, p_); };
      if (unordered(r.writer)) {
        report(i, op, r.writer, r.writer_operand, true);
        found = true;
        return;
      }
      if (!op.write) return;
      for (int q = 0; q < 3 && !found; ++q)
        if (unordered(r.reader[q])) {
          report(i, op, r.reader[q], r.reader_operand[q], false);
          found = true;
        }
    });
    return found;
  }

  std::string describe(std::size_t i) const {
    const Instruction& in = p_.instructions[i];
    std::string s = fmt::format("#{} {}", i, to_string(in.op));
    if (in.source_line > 0) s += fmt::format(" (line {})", in.source_line);
    if (!in.layer.empty()) s += fmt::format(" of layer {}", in.layer);
    return s;
  }

  /// The SRAM range of `other`'s operand named `name` (the checker keeps only names).
  SramOperand operand_of(std::size_t other, const char* name) const {
    for (const SramOperand& o : operands(other))
      if (std::string(o.name) == name) return o;
    return {};
  }

  /// One issue for the race between i (visited now, touching `op`) and `other`, at the one
  /// of the two that comes later in the program: that is where the wait belongs if the two
  /// are meant to run in program order.
  void report(std::size_t i, const SramOperand& op, std::size_t other, const char* other_name, bool other_writes) {
    const SramOperand theirs = operand_of(other, other_name);
    const std::size_t first = std::min(i, other), second = std::max(i, other);
    if (!reported_.insert(second).second) return;
    if (++races_ > kMaxIssues) return;
    const SramOperand& op_first = first == i ? op : theirs;
    const SramOperand& op_second = first == i ? theirs : op;
    const bool first_writes = first == i ? op.write : other_writes;
    const bool second_writes = first == i ? other_writes : op.write;
    const std::uint64_t lo = std::max<std::uint64_t>(op.addr, theirs.addr);
    const std::uint64_t hi = std::min<std::uint64_t>(std::uint64_t(op.addr) + op.bytes,
                                                     std::uint64_t(theirs.addr) + theirs.bytes);
    const Queue q1 = p_.instructions[first].queue(), q2 = p_.instructions[second].queue();
    issues_.push_back({p_.instructions[second].source_line, second,
                       fmt::format("SRAM race: instruction {} {} SRAM bytes {}..{} ('{}') and instruction {} {} "
                                   "them ('{}'), with no token ordering the two, so the result depends on which "
                                   "finishes first; to run them in program order, push a token {}2{} after {} and "
                                   "wait on it at #{}",
                                   describe(first), first_writes ? "writes" : "reads", lo, hi - 1, op_first.name,
                                   describe(second), second_writes ? "writes" : "reads", op_second.name,
                                   to_string(q1), to_string(q2), describe(first), second),
                       CheckKind::SramRace});
  }

  /// Calls fn on the ranges covering [b, e), splitting at b and e and creating the gaps.
  template <class Fn>
  void each(std::uint64_t b, std::uint64_t e, Fn&& fn) {
    split(b);
    split(e);
    std::uint64_t at = b;
    auto it = ranges_.lower_bound(b);
    while (at < e) {
      if (it == ranges_.end() || it->first > at) {  // a gap: bytes nobody touched yet
        const std::uint64_t gap_end = it == ranges_.end() ? e : std::min(e, it->first);
        Range fresh;
        fresh.end = gap_end;
        it = ranges_.emplace_hint(it, at, fresh);
      }
      fn(it->second);
      at = it->second.end;
      ++it;
    }
  }

  /// Makes x a range boundary (copying the state of the range it cut).
  void split(std::uint64_t x) {
    auto it = ranges_.upper_bound(x);
    if (it == ranges_.begin()) return;
    --it;
    if (it->first < x && x < it->second.end) {
      Range tail = it->second;
      it->second.end = x;
      ranges_.emplace_hint(std::next(it), x, tail);
    }
  }

  const Program& p_;
  HappensBefore hb_;
  std::map<std::uint64_t, Range> ranges_;  // disjoint, by begin
  std::set<std::size_t> reported_;  // the later instruction of each race reported
  std::size_t races_ = 0;
  std::vector<CheckIssue> issues_;
};

}  // namespace

std::vector<CheckIssue> check_sram_races(const Program& program) { return SramRaceChecker(program).run(); }

}  // namespace npu::isa
