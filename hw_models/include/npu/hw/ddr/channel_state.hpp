// One channel's DRAM state (ranks, bank groups, banks, command and data bus) and the
// JEDEC timing rules: when may a command issue, and what does issuing it change.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "npu/hw/ddr/bank_state.hpp"
#include "npu/hw/ddr/ddr_timing.hpp"
#include "npu/hw/ddr/rank_state.hpp"

namespace npu::hw {

/// Banks are numbered inside the channel as local = (rank * bank_groups + bankgroup) *
/// banks_per_group + bank; bank groups as rank * bank_groups + bankgroup.
/// The command bus carries one command per tCK. The data bus carries one burst of
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

  // ---- earliest issue tick of each command (never before the command bus is free) ----
  Tick earliest_act(int rank, int group, int local) const {
    const RankState& rs = ranks_[rank];
    Tick t = std::max({banks_[local].next_act, groups_[group].next_act, rs.next_act,
                       rs.faw.earliest_next(timing_.t_faw), cmd_bus_free_});
    return t;
  }
  Tick earliest_pre(int local) const { return std::max(banks_[local].next_pre, cmd_bus_free_); }
  Tick earliest_rd(int rank, int group, int local) const {
    Tick bus = data_bus_end_ + (rank != data_bus_rank_ ? timing_.t_rtrs : 0) - timing_.cl;
    return std::max({banks_[local].next_rd, groups_[group].next_rd, ranks_[rank].next_rd, bus, cmd_bus_free_});
  }
  Tick earliest_wr(int rank, int group, int local) const {
    Tick bus = data_bus_end_ + (rank != data_bus_rank_ ? timing_.t_rtrs : 0) - timing_.cwl;
    return std::max({banks_[local].next_wr, groups_[group].next_wr, ranks_[rank].next_wr, bus, cmd_bus_free_});
  }
  /// REF needs every bank of the rank precharged and tRP / tRC / tRFC satisfied.
  Tick earliest_ref(int rank) const;

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

  Tick cmd_bus_free() const { return cmd_bus_free_; }
  const DdrTiming& timing() const { return timing_; }

 private:
  void close_bank(int rank, int local, Tick precharge_tick);

  DdrTiming timing_;
  int bank_groups_, banks_per_group_;
  std::vector<BankState> banks_;
  std::vector<BankGroupState> groups_;
  std::vector<RankState> ranks_;
  Tick cmd_bus_free_ = 0;
  Tick data_bus_end_ = 0;
  int data_bus_rank_ = -1;
};

}  // namespace npu::hw
