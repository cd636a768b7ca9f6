// One channel's DRAM state (ranks, bank groups, banks, command and data bus) and the
// JEDEC timing rules: when may a command issue, and what does issuing it change.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "npu/hw/ddr/bank_state.hpp"
#include "npu/hw/ddr/busy_slots.hpp"
#include "npu/hw/ddr/ddr_timing.hpp"
#include "npu/hw/ddr/rank_state.hpp"

namespace npu::hw {

/// Banks are numbered inside the channel as local = (rank * bank_groups + bankgroup) *
/// banks_per_group + bank; bank groups as rank * bank_groups + bankgroup.
/// The command bus carries one command per tCK (see set_split_cursors). The data bus carries one burst of
/// BL/2 tCK per column command, CL (reads) or CWL (writes) after it; bursts from
/// different ranks are separated by tRTRS idle clocks.
class ChannelState {
 public:
  ChannelState(const DdrConfig& cfg, const DdrTiming& timing);

  int local_bank(int rank, int bankgroup, int bank) const {
    return (rank * bank_groups_ + bankgroup) * banks_per_group_ + bank;
  }
  int group_index(int rank, int bankgroup) const { return rank * bank_groups_ + bankgroup; }
  int banks_per_rank() const { return bank_groups_ * banks_per_group_; }
  int ranks() const { return int(ranks_.size()); }

  BankState& bank(int local) { return banks_[local]; }
  const BankState& bank(int local) const { return banks_[local]; }
  RankState& rank(int r) { return ranks_[r]; }
  const RankState& rank(int r) const { return ranks_[r]; }

  // ---- earliest issue tick (>= `lower`) of each command, on a free command-bus slot ----
  Tick earliest_act(int rank, int group, int local, Tick lower = 0) const {
    return slot(std::max({banks_[local].next_act, lower, shared_bound(DdrCommand::Act, rank, group)}));
  }
  Tick earliest_pre(int local, Tick lower = 0) const {
    return slot(std::max({banks_[local].next_pre, lower, pre_free_}));
  }
  Tick earliest_rd(int rank, int group, int local, Tick lower = 0) const {
    return slot(std::max({banks_[local].next_rd, lower, shared_bound(DdrCommand::Rd, rank, group)}));
  }
  Tick earliest_wr(int rank, int group, int local, Tick lower = 0) const {
    return slot(std::max({banks_[local].next_wr, lower, shared_bound(DdrCommand::Wr, rank, group)}));
  }
  /// The bound on `cmd` (ACT, PRE, RD or WR) that the banks of `rank` / `group` share: the
  /// rank's and bank group's timelines, tFAW, the data bus and the command cursors. A bank
  /// whose own bound is `local` = max(its next tick for `cmd`, the request's lower bound)
  /// may issue at free_slot(max(local, shared_bound(...))), the same tick as earliest_act /
  /// earliest_pre / earliest_rd / earliest_wr, which take the maximum of the same terms
  /// (the scheduler keeps `local` per bank and shared_static per version, ChannelController).
  Tick shared_bound(DdrCommand cmd, int rank, int group) const {
    return cmd == DdrCommand::Ref ? kNeverTick : std::max(shared_static(cmd, rank, group), cursor(cmd));
  }
  /// shared_bound without the command cursor: the rank's and bank group's timelines, tFAW and
  /// the data bus. For ACT it changes only when an ACT issues in `rank`; for RD and WR only
  /// when a RD or WR issues; for PRE never (0): versions()[version_slot(cmd, rank)] counts
  /// those. The scheduler keeps it per (command, bank group) with the version it was read at.
  Tick shared_static(DdrCommand cmd, int rank, int group) const {
    switch (cmd) {
      case DdrCommand::Act: {
        const RankState& rs = ranks_[rank];
        return std::max({groups_[group].next_act, rs.next_act, rs.faw.earliest_next(timing_.t_faw)});
      }
      case DdrCommand::Pre: return 0;
      case DdrCommand::Rd: {
        const Tick bus = data_bus_end_ + (rank != data_bus_rank_ ? timing_.t_rtrs : 0) - timing_.cl;
        return std::max({groups_[group].next_rd, ranks_[rank].next_rd, bus});
      }
      case DdrCommand::Wr: {
        const Tick bus = data_bus_end_ + (rank != data_bus_rank_ ? timing_.t_rtrs : 0) - timing_.cwl;
        return std::max({groups_[group].next_wr, ranks_[rank].next_wr, bus});
      }
      case DdrCommand::Ref: break;
    }
    return kNeverTick;
  }
  /// The command-bus cursor `cmd` waits for (every command moves it unless split cursors are on).
  Tick cursor(DdrCommand cmd) const {
    return cmd == DdrCommand::Act ? act_free_ : cmd == DdrCommand::Pre ? pre_free_ : col_free_;
  }
  /// Versions of shared_static, indexed by version_slot(cmd, rank): ACTs issued in the rank + 1
  /// (shared_static(Act, rank, *) is unchanged while it is), RDs and WRs issued + 1 (for Rd
  /// and Wr), and a constant 1 (Pre).
  const std::uint64_t* versions() const { return versions_.data(); }
  int version_slot(DdrCommand cmd, int rank) const {
    return cmd == DdrCommand::Act ? rank : cmd == DdrCommand::Pre ? ranks() + 1 : ranks();
  }
  /// First tick >= t with a free command-bus slot (t itself unless split cursors are on).
  Tick free_slot(Tick t) const { return slot(t); }
  /// REF needs every bank of the rank precharged and tRP / tRC / tRFC satisfied.
  Tick earliest_ref(int rank, Tick lower = 0) const;

  /// Command order. Off (the default): every command issues at or after the previous
  /// one, on one cursor, as a clock-by-clock controller does. On (the TLM target, which
  /// serves one transaction at a time): ACT/REF keep one cursor, RD/WR another, PRE
  /// none, and each command takes the first free command-bus slot at or after its
  /// constraints, so a later transaction's PRE/ACT can use slots before an earlier
  /// transaction's RD/WR, overlapping bank preparation with earlier accesses as a
  /// queue-based controller would. The timing rules stay exact: every per-bank rule is
  /// one-sided because a bank's commands are issued in its own order; ACT-to-ACT rules
  /// (tRRD, tFAW) because ACTs keep their order; column rules because RD/WR keep theirs;
  /// and PRE has no cross-bank rule. Offers more than kLookbackCk before the cursors are
  /// served from kLookbackCk before them.
  void set_split_cursors(bool on) { split_ = on; }
  static constexpr Tick kLookbackCk = 4096;

  // ---- issuing: update every timeline the command constrains ----
  void issue_act(int rank, int group, int local, std::int64_t row, Tick t);
  void issue_pre(int rank, int local, Tick t);
  /// Returns the tick the last data beat leaves the bus (t + CL + BL/2). With
  /// `auto_precharge` (closed page) the bank precharges itself as soon as tRTP and tRAS
  /// allow (RDA).
  Tick issue_rd(int rank, int group, int local, Tick t, bool auto_precharge);
  /// Returns t + CWL + BL/2 (write data done). Auto-precharge after write recovery (WRA).
  Tick issue_wr(int rank, int group, int local, Tick t, bool auto_precharge);
  void issue_ref(int rank, Tick t);
  /// The precharge a RDA / WRA would have made, applied later: the bank closes at
  /// `precharge_tick` (its next_pre right after that column command). No command-bus slot: an
  /// auto-precharge is part of its column command.
  void auto_precharge(int rank, int local, Tick precharge_tick) { close_bank(rank, local, precharge_tick); }

  const DdrTiming& timing() const { return timing_; }

 private:
  void close_bank(int rank, int local, Tick precharge_tick);
  /// First tick >= t with a free command-bus slot (split mode keeps the taken slots).
  Tick slot(Tick t) const {
    if (!split_) return t;
    return busy_.first_free(std::max(t, floor_));
  }
  enum class CmdClass { Row, Pre, Column };
  void record(CmdClass c, Tick t);

  DdrTiming timing_;
  int bank_groups_, banks_per_group_;
  std::vector<BankState> banks_;
  std::vector<BankGroupState> groups_;
  std::vector<RankState> ranks_;
  bool split_ = false;
  Tick act_free_ = 0;  ///< earliest tick of the next ACT/REF (all three cursors move together unless split_)
  Tick pre_free_ = 0;  ///< earliest tick of the next PRE (stays 0 when split_)
  Tick col_free_ = 0;  ///< earliest tick of the next RD/WR
  Tick floor_ = 0;     ///< split_: no command before this tick (kLookbackCk behind the cursors)
  BusySlots busy_;  ///< split_: command-bus slots taken at or after floor_
  Tick data_bus_end_ = 0;
  int data_bus_rank_ = -1;
  std::vector<std::uint64_t> versions_;  ///< [rank]: ACTs + 1; [ranks]: RDs and WRs + 1; [ranks + 1]: 1
};

}  // namespace npu::hw
