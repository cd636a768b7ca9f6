// ChannelController's lone request: one request offered to an idle channel (the TLM target's
// one burst at a time) served without the queue, with the decisions the queue would make.
#include "npu/hw/ddr/ddr_controller.hpp"

namespace npu::hw {

namespace {
bool refresh_due_by(const ChannelState& state, Tick t) {
  for (int rk = 0; rk < state.ranks(); ++rk)
    if (state.rank(rk).refresh_due <= t) return true;
  return false;
}
}  // namespace

bool ChannelController::try_serve_alone(DdrRequest& r, Tick* done_ck) {
  if (!idle()) return false;
  if (first_deferred_ck_ != kNeverTick) settle_deferred(r);  // its bank's deferred auto-precharge first
  // With this request alone in the queue, pick() offers its bank's one candidate: the column
  // command on a row hit, an ACT on a closed bank, a PRE on another open row (no queued hit
  // holds it back), at earliest_* (best_request: free_slot(max(bank bound, arrival + 1,
  // shared bound))), and keeps it unless a rank's refresh is due by then (best_request skips
  // it or consider_refresh may take the refresh work). So each step issues that command here;
  // the first step a refresh is due by, the queue takes over from the same state.
  const Tick lower = r.arrival + 1;
  stats_->first_arrival_ck = std::min(stats_->first_arrival_ck, r.arrival);
  for (bool issued_any = false;; issued_any = true) {
    const BankState& b = state_.bank(r.local_bank);
    const bool hit = b.open_row == r.loc.row;
    const DdrCommand cmd = hit ? (r.is_write ? DdrCommand::Wr : DdrCommand::Rd)
                               : (b.is_open() ? DdrCommand::Pre : DdrCommand::Act);
    Tick t = 0;
    switch (cmd) {
      case DdrCommand::Rd: t = state_.earliest_rd(r.loc.rank, r.group, r.local_bank, lower); break;
      case DdrCommand::Wr: t = state_.earliest_wr(r.loc.rank, r.group, r.local_bank, lower); break;
      case DdrCommand::Act: t = state_.earliest_act(r.loc.rank, r.group, r.local_bank, lower); break;
      default: t = state_.earliest_pre(r.local_bank, lower); break;
    }
    if (refresh_due_by(state_, t)) {
      if (!issued_any) return false;  // nothing changed: the caller queues it
      r.tracked = true;
      enqueue(r);  // the state the queue would have reached: its PRE / ACT issued, flags set
      while (!take_completion(r.id, done_ck)) issue_next();
      return true;
    }
    mark_dirty(r.local_bank);
    if (hit) {
      // The cached choice stays: with the queue empty again, pick() would give the same
      // deferred refresh (it depends on the ranks' refresh_due alone, which a column command leaves).
      *done_ck = column_command(r, cmd, t);
      return true;
    }
    cache_valid_ = false;  // as issue(): a PRE or ACT changes what pick() would choose
    row_command(r, cmd, t);  // no queued request to recount hits for (issue() does after an ACT)
  }
}

}  // namespace npu::hw
