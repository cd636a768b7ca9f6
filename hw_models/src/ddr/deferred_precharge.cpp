// ChannelController's deferred auto-precharge: closed page in split-cursor mode (the TLM
// target, served one burst at a time). See ddr_controller.hpp, "closed page in split-cursor mode".
#include "npu/hw/ddr/ddr_controller.hpp"

#include <algorithm>

namespace npu::hw {

bool ChannelController::defers_auto_precharge(const DdrRequest& r) const {
  return split_cursors_ && queues_.head(0, r.local_bank) < 0 && queues_.head(1, r.local_bank) < 0;
}

void ChannelController::defer_auto_precharge(const DdrRequest& r, Tick t) {
  Deferred& d = deferred_[std::size_t(r.local_bank)];
  d.column = t;
  d.precharge = state_.bank(r.local_bank).next_pre;  // tRTP / write recovery and tRAS, as RDA / WRA
  d.logged = log_ != nullptr && !log_->empty();
  d.log_index = d.logged ? log_->size() - 1 : 0;  // column_command logged it just before
  first_deferred_ck_ = std::min(first_deferred_ck_, t);
}

void ChannelController::settle_deferred(const DdrRequest& r) {
  Deferred& d = deferred_[std::size_t(r.local_bank)];
  if (d.column == kNeverTick) return;
  if (r.arrival < d.column && state_.bank(r.local_bank).open_row == r.loc.row) {
    d.column = kNeverTick;  // queued by then, a hit: no auto-precharge; the row stays open
  } else {
    apply_deferred(r.local_bank);
  }
  first_deferred_ck_ = rescan_deferred(-1);
}

void ChannelController::settle_deferred_through(Tick t) {
  if (t < first_deferred_ck_) return;
  first_deferred_ck_ = rescan_deferred(t);
}

Tick ChannelController::rescan_deferred(Tick t) {
  Tick first = kNeverTick;
  for (std::size_t b = 0; b < deferred_.size(); ++b) {
    const Tick column = deferred_[b].column;
    if (column == kNeverTick) continue;
    if (column <= t) {
      apply_deferred(int(b));
    } else {
      first = std::min(first, column);
    }
  }
  return first;
}

void ChannelController::apply_deferred(int local_bank) {
  Deferred& d = deferred_[std::size_t(local_bank)];
  state_.auto_precharge(local_bank / state_.banks_per_rank(), local_bank, d.precharge);
  ++stats_->auto_precharges;
  if (d.logged && log_ && d.log_index < log_->size()) (*log_)[d.log_index].auto_precharge = true;
  d.column = kNeverTick;
  mark_dirty(local_bank);
  cache_valid_ = false;
}

}  // namespace npu::hw
