#include "npu/hw/ddr/channel_state.hpp"

namespace npu::hw {

namespace {
inline void raise(Tick& v, Tick t) { v = std::max(v, t); }
}  // namespace

ChannelState::ChannelState(const DdrConfig& cfg, const DdrTiming& timing)
    : timing_(timing),
      bank_groups_(cfg.bank_groups),
      banks_per_group_(cfg.banks_per_group),
      banks_(std::size_t(cfg.ranks) * cfg.bank_groups * cfg.banks_per_group),
      groups_(std::size_t(cfg.ranks) * cfg.bank_groups),
      ranks_(std::size_t(cfg.ranks)),
      versions_(std::size_t(cfg.ranks) + 2, 1) {
  for (int r = 0; r < cfg.ranks; ++r) {
    // Staggered refresh (DRAMSim3's RANK_LEVEL_STAGGERED): rank r first due at tREFI*(r+1)/R.
    ranks_[r].refresh_due = Tick(timing_.t_refi) * (r + 1) / cfg.ranks;
  }
}

Tick ChannelState::earliest_ref(int rank, Tick lower) const {
  Tick t = std::max(lower, act_free_);
  int first = rank * banks_per_rank();
  for (int i = 0; i < banks_per_rank(); ++i) raise(t, banks_[first + i].next_act);
  return slot(t);
}

void ChannelState::record(CmdClass c, Tick t) {
  if (!split_) {
    act_free_ = pre_free_ = col_free_ = std::max(act_free_, t + 1);
    return;
  }
  busy_.insert(t);
  if (c == CmdClass::Row) act_free_ = std::max(act_free_, t + 1);
  if (c == CmdClass::Column) col_free_ = std::max(col_free_, t + 1);
  floor_ = std::max(floor_, std::min(act_free_, col_free_) - kLookbackCk);
  busy_.raise_floor(floor_);
}

void ChannelState::issue_act(int rank, int group, int local, std::int64_t row, Tick t) {
  BankState& b = banks_[local];
  b.open_row = row;
  raise(b.next_act, t + timing_.t_rc);
  raise(b.next_pre, t + timing_.t_ras);
  raise(b.next_rd, t + timing_.t_rcd);
  raise(b.next_wr, t + timing_.t_rcd);
  raise(groups_[group].next_act, t + timing_.t_rrd_l);
  RankState& rs = ranks_[rank];
  raise(rs.next_act, t + timing_.t_rrd_s);
  rs.faw.record(t);
  ++versions_[std::size_t(rank)];
  ++rs.open_banks;
  record(CmdClass::Row, t);
}

void ChannelState::close_bank(int rank, int local, Tick precharge_tick) {
  BankState& b = banks_[local];
  if (b.is_open()) --ranks_[rank].open_banks;
  b.open_row = -1;
  b.pending_hits[0] = b.pending_hits[1] = 0;
  raise(b.next_act, precharge_tick + timing_.t_rp);
}

void ChannelState::issue_pre(int rank, int local, Tick t) {
  close_bank(rank, local, t);
  record(CmdClass::Pre, t);
}

Tick ChannelState::issue_rd(int rank, int group, int local, Tick t, bool auto_precharge) {
  BankState& b = banks_[local];
  raise(b.next_pre, t + timing_.read_to_pre);
  raise(groups_[group].next_rd, t + timing_.t_ccd_l);
  raise(groups_[group].next_wr, t + timing_.read_to_write);
  RankState& rs = ranks_[rank];
  raise(rs.next_rd, t + timing_.t_ccd_s);
  raise(rs.next_wr, t + timing_.read_to_write);
  ++versions_[ranks_.size()];
  Tick data_end = t + timing_.cl + timing_.burst_ck;
  data_bus_end_ = std::max(data_bus_end_, data_end);
  data_bus_rank_ = rank;
  if (auto_precharge) close_bank(rank, local, b.next_pre);  // RDA: precharge at max(tRTP, tRAS)
  record(CmdClass::Column, t);
  return data_end;
}

Tick ChannelState::issue_wr(int rank, int group, int local, Tick t, bool auto_precharge) {
  BankState& b = banks_[local];
  raise(b.next_pre, t + timing_.write_to_pre);
  raise(groups_[group].next_wr, t + timing_.t_ccd_l);
  raise(groups_[group].next_rd, t + timing_.write_to_read_l);
  RankState& rs = ranks_[rank];
  raise(rs.next_wr, t + timing_.t_ccd_s);
  raise(rs.next_rd, t + timing_.write_to_read_s);
  ++versions_[ranks_.size()];
  Tick data_end = t + timing_.cwl + timing_.burst_ck;
  data_bus_end_ = std::max(data_bus_end_, data_end);
  data_bus_rank_ = rank;
  if (auto_precharge) close_bank(rank, local, b.next_pre);  // WRA: precharge after write recovery
  record(CmdClass::Column, t);
  return data_end;
}

void ChannelState::issue_ref(int rank, Tick t) {
  int first = rank * banks_per_rank();
  for (int i = 0; i < banks_per_rank(); ++i) raise(banks_[first + i].next_act, t + timing_.t_rfc);
  ranks_[rank].refresh_due += timing_.t_refi;
  record(CmdClass::Row, t);
}

}  // namespace npu::hw
