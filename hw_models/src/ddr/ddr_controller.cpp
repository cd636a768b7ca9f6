#include "npu/hw/ddr/ddr_controller.hpp"

#include <algorithm>

#include "npu/hw/ddr/ddr_config_check.hpp"
#include "npu/hw_config/ddr_refresh_rule.hpp"

namespace npu::hw {

ChannelController::ChannelController(const DdrConfig& cfg, int channel, DdrStats* stats)
    : channel_(channel),
      cfg_(cfg),
      timing_(cfg),
      state_(cfg, timing_),
      stats_(stats),
      queue_depth_(cfg.queue_depth),
      closed_page_(cfg.page_policy == PagePolicy::Closed),
      queues_(cfg.ranks * cfg.bank_groups * cfg.banks_per_group, cfg.queue_depth),
      bank_candidates_(std::size_t(cfg.ranks * cfg.bank_groups * cfg.banks_per_group)),
      listed_at_(bank_candidates_.size(), -1),
      dirty_((bank_candidates_.size() + 63) / 64, 0),
      shared_(std::size_t(4 * cfg.ranks * cfg.bank_groups), 0),
      shared_version_(shared_.size(), 0) {
  WriteWatermarks w = resolved_watermarks(cfg);
  high_watermark_ = w.high;
  low_watermark_ = w.low;
  deferred_.resize(bank_candidates_.size());
}

void ChannelController::enqueue(const DdrRequest& req) {
  if (first_deferred_ck_ != kNeverTick) settle_deferred(req);
  BankState& b = state_.bank(req.local_bank);
  const bool hit = b.open_row == req.loc.row;
  if (hit) ++b.pending_hits[req.is_write ? 1 : 0];
  const int slot = queues_.push(req);
  mark_dirty(req.local_bank);
  stats_->first_arrival_ck = std::min(stats_->first_arrival_ck, req.arrival);
  if (!cache_valid_) return;
  // Keep the cached choice when this request cannot change it (saves a full pick per
  // request): same serving mode, no newly blocked precharge, and the newcomer is not a
  // better candidate (if it is, it becomes the choice).
  if (next_mode() != draining_writes_) {
    cache_valid_ = false;
    return;
  }
  if (req.is_write != draining_writes_) {  // waits in the queue not being served, unless ...
    // ... its bank's served candidate waits for an older request of this kind to its burst: the
    // bank then offers its candidate of this kind, which the newcomer can change (a row hit of
    // this kind holds back that candidate's PRE), so the cached choice is made again.
    const int served = draining_writes_ ? 1 : 0;
    const int s = queues_.head(served, req.local_bank) >= 0 ? candidate_slot(served, req.local_bank) : -1;
    if (s >= 0 && has_older_same_burst(s, 1 - served)) cache_valid_ = false;
    return;
  }
  if (has_older_same_burst(slot, req.is_write ? 0 : 1)) {
    cache_valid_ = false;  // must wait for the older request to its burst: pick() decides
    return;
  }
  if (hit && cached_.index >= 0 && cached_.cmd == DdrCommand::Pre && cached_.local_bank == req.local_bank) {
    cache_valid_ = false;  // the cached precharge is now held back by this hit
    return;
  }
  Candidate c;
  bool is_column = false;
  c.seq = queues_.seq(slot);
  const bool ok = evaluate(req, draining_writes_ ? 1 : 0, c, is_column);
  if (cached_.deferred) {  // the cached refresh tick is a lower bound: only a strictly earlier request wins for sure
    if (ok && c.tick < cached_.tick) {
      c.index = slot;
      cached_ = c;
    } else {
      cache_valid_ = false;
    }
    return;
  }
  if (ok && better(c, is_column, cached_)) {
    c.index = slot;
    cached_ = c;
  }
}

bool ChannelController::next_mode() const {
  const int reads = queues_.size(0), writes = queues_.size(1);
  if (draining_writes_) return !(writes == 0 || (writes <= low_watermark_ && reads > 0));
  return writes > 0 && (writes >= high_watermark_ || reads == 0);
}

bool ChannelController::evaluate(const DdrRequest& r, int served, Candidate& c, bool& is_column) const {
  const BankState& b = state_.bank(r.local_bank);
  const Tick lower = r.arrival + 1;  // one controller clock after acceptance
  Tick t;
  if (b.open_row == r.loc.row) {
    c.cmd = r.is_write ? DdrCommand::Wr : DdrCommand::Rd;
    t = r.is_write ? state_.earliest_wr(r.loc.rank, r.group, r.local_bank, lower)
                   : state_.earliest_rd(r.loc.rank, r.group, r.local_bank, lower);
    is_column = true;
  } else if (!b.is_open()) {
    c.cmd = DdrCommand::Act;
    t = state_.earliest_act(r.loc.rank, r.group, r.local_bank, lower);
    is_column = false;
  } else {
    if (b.pending_hits[served] > 0) return false;  // hits to the open row go first
    c.cmd = DdrCommand::Pre;
    t = state_.earliest_pre(r.local_bank, lower);
    is_column = false;
  }
  if (t >= state_.rank(r.loc.rank).refresh_due) return false;  // the rank refreshes first
  c.tick = t;
  c.local_bank = r.local_bank;
  return true;
}

bool ChannelController::better(const Candidate& c, bool c_is_column, const Candidate& best) {
  if (c.tick != best.tick) return c.tick < best.tick;
  // Same tick: a column command beats a row command; otherwise the older request wins.
  // Refresh work (index < 0) is never displaced by a request.
  if (!best.valid()) return true;
  if (best.index < 0) return false;
  const bool best_is_column = best.cmd == DdrCommand::Rd || best.cmd == DdrCommand::Wr;
  if (c_is_column != best_is_column) return c_is_column;
  return c.seq < best.seq;
}

int ChannelController::candidate_slot(int kind, int bank) const {
  const BankState& b = state_.bank(bank);
  int slot = queues_.head(kind, bank);
  if (b.is_open() && b.pending_hits[kind] > 0) {
    while (slot >= 0 && queues_.at(slot).loc.row != b.open_row) slot = queues_.next(slot);
  }
  return slot;
}

bool ChannelController::has_older_same_burst(int slot, int other_kind) const {
  if (queues_.size(other_kind) == 0) return false;
  const DdrRequest& r = queues_.at(slot);
  const std::uint64_t seq = queues_.seq(slot);
  for (int s = queues_.head(other_kind, r.local_bank); s >= 0 && queues_.seq(s) < seq; s = queues_.next(s))
    if (queues_.at(s).addr == r.addr) return true;
  return false;
}

ChannelController::Candidate ChannelController::pick() {
  draining_writes_ = next_mode();  // write drain between the watermarks
  const int served = draining_writes_ ? 1 : 0;
  if (served != candidates_served_) {  // a new serving mode changes every bank's candidate
    candidates_served_ = served;
    for (const Listed& l : by_local_) listed_at_[std::size_t(l.bank)] = -1;
    by_local_.clear();
    std::fill(dirty_.begin(), dirty_.end(), 0);
    queues_.for_each_bank(served, [&](int bank) { mark_dirty(bank); });
  }
  for (std::size_t w = 0; w < dirty_.size(); ++w) {
    for (std::uint64_t bits = dirty_[w]; bits != 0; bits &= bits - 1) rekey_bank(int(w * 64) + __builtin_ctzll(bits), served);
    dirty_[w] = 0;
  }
  Candidate best = best_request();
  if (!best.valid()) return deferred_refresh();
  consider_refresh(best);
  return best;
}

ChannelController::Candidate ChannelController::deferred_refresh() const {
  // consider_refresh() with no request candidate picks a PRE or REF no earlier than some
  // rank's refresh_due (earliest_pre / earliest_ref take it as their lower bound).
  Candidate c;
  for (int rk = 0; rk < state_.ranks(); ++rk) c.tick = std::min(c.tick, state_.rank(rk).refresh_due);
  c.deferred = c.valid();
  return c;
}

void ChannelController::resolve_refresh() {
  Candidate best;  // no request candidate: what pick() chose before deferring
  consider_refresh(best);
  cached_ = best;
}

void ChannelController::rekey_bank(int bank, int served) {
  // Per bank, FR-FCFS needs two candidates at most: the oldest row hit (its column command)
  // and the oldest request (its ACT on a closed bank, or its PRE on an open one). A PRE is
  // held back while queued requests of the served kind hit the open row (pending_hits), so
  // a bank with hits offers only its oldest hit. Two requests needing the same command in
  // the same bank differ only in arrival + 1, so the older one is never worse: this gives
  // the same choice as evaluating every queued request.
  // Same-burst order: a candidate never overtakes an older request of the other kind to the
  // same burst (a write drain must not pass an older read of that address, nor a read an
  // older write); the bank's candidate of the other kind is served instead.
  int slot = -1, kind = served;
  if (queues_.head(served, bank) >= 0) {
    slot = candidate_slot(served, bank);
    if (has_older_same_burst(slot, 1 - served)) {
      kind = 1 - served;
      const int other = candidate_slot(kind, bank);
      slot = other >= 0 && !has_older_same_burst(other, served) ? other : -1;
    }
  }
  if (slot < 0) {
    unlist(bank);
    return;
  }
  const DdrRequest& r = queues_.at(slot);
  const BankState& b = state_.bank(bank);
  BankCandidate& c = bank_candidates_[std::size_t(bank)];
  if (b.open_row == r.loc.row) {
    c.cmd = r.is_write ? DdrCommand::Wr : DdrCommand::Rd;
    c.local = r.is_write ? b.next_wr : b.next_rd;
  } else if (!b.is_open()) {
    c.cmd = DdrCommand::Act;
    c.local = b.next_act;
  } else {
    if (b.pending_hits[kind] > 0) {  // hits to the open row go first
      unlist(bank);
      return;
    }
    c.cmd = DdrCommand::Pre;
    c.local = b.next_pre;
  }
  c.local = std::max(c.local, r.arrival + 1);  // one controller clock after acceptance
  c.seq = queues_.seq(slot);
  c.slot = slot;
  c.rank = r.loc.rank;
  c.group = r.group;
  c.cls = int(c.cmd) * state_.ranks() * cfg_.bank_groups + c.group;
  c.version_slot = state_.version_slot(c.cmd, c.rank);
  c.cursor = c.cmd == DdrCommand::Act ? 0 : c.cmd == DdrCommand::Pre ? 1 : 2;
  relist(bank, c.local);
}

void ChannelController::unlist(int bank) {
  const int at = listed_at_[std::size_t(bank)];
  if (at < 0) return;
  for (std::size_t i = std::size_t(at); i + 1 < by_local_.size(); ++i) {
    by_local_[i] = by_local_[i + 1];
    listed_at_[std::size_t(by_local_[i].bank)] = int(i);
  }
  by_local_.pop_back();
  listed_at_[std::size_t(bank)] = -1;
}

void ChannelController::relist(int bank, Tick local) {
  // In place of unlist + enlist: the bank's entry moves to where upper_bound would insert it
  // among the others, shifting the entries it passes.
  const int at = listed_at_[std::size_t(bank)];
  if (at < 0) {
    enlist(bank, local);
    return;
  }
  std::size_t i = std::size_t(at);
  const std::size_t p = i;
  for (; i > 0 && by_local_[i - 1].local > local; --i) {
    by_local_[i] = by_local_[i - 1];
    listed_at_[std::size_t(by_local_[i].bank)] = int(i);
  }
  if (i == p) {
    for (; i + 1 < by_local_.size() && by_local_[i + 1].local <= local; ++i) {
      by_local_[i] = by_local_[i + 1];
      listed_at_[std::size_t(by_local_[i].bank)] = int(i);
    }
  }
  by_local_[i] = Listed{local, bank};
  listed_at_[std::size_t(bank)] = int(i);
}

void ChannelController::enlist(int bank, Tick local) {
  std::size_t i = by_local_.size();
  by_local_.push_back(Listed{local, bank});
  for (; i > 0 && by_local_[i - 1].local > local; --i) {  // upper_bound's place: after equal bounds
    by_local_[i] = by_local_[i - 1];
    listed_at_[std::size_t(by_local_[i].bank)] = int(i);
  }
  by_local_[i] = Listed{local, bank};
  listed_at_[std::size_t(bank)] = int(i);
}

ChannelController::Candidate ChannelController::best_request() {
  // A bank's own bound stays while the bank is unchanged. The shared bound is the command
  // cursor, read here, and the timelines of its rank, group and data bus, kept per (command,
  // bank group) until an ACT in its rank (ACT) or a RD / WR (RD, WR) changes them.
  const Tick cursor[3] = {state_.cursor(DdrCommand::Act), state_.cursor(DdrCommand::Pre), state_.cursor(DdrCommand::Rd)};
  const std::uint64_t* versions = state_.versions();
  Tick due_min = kNeverTick;  // the earliest refresh_due: a tick before it needs no rank's
  for (int rk = 0; rk < state_.ranks(); ++rk) due_min = std::min(due_min, state_.rank(rk).refresh_due);
  Candidate best;
  bool best_is_column = false;
  for (std::size_t i = 0; i < by_local_.size(); ++i) {
    if (by_local_[i].local > best.tick) break;  // a tick is at least its bank's bound: none later can win
    const int bank = by_local_[i].bank;
    const BankCandidate& k = bank_candidates_[std::size_t(bank)];
    const std::size_t cls = std::size_t(k.cls);
    const std::uint64_t version = versions[k.version_slot];
    if (shared_version_[cls] != version) {
      shared_[cls] = state_.shared_static(k.cmd, k.rank, k.group);
      shared_version_[cls] = version;
    }
    const Tick t = state_.free_slot(std::max({k.local, shared_[cls], cursor[k.cursor]}));
    if (t >= due_min && t >= state_.rank(k.rank).refresh_due) continue;  // the rank refreshes first
    const bool is_column = k.cursor == 2;
    if (t > best.tick || (t == best.tick && (best_is_column > is_column || (best_is_column == is_column && k.seq > best.seq))))
      continue;
    best.tick = t;
    best.cmd = k.cmd;
    best.index = k.slot;
    best.seq = k.seq;
    best.local_bank = bank;
    best_is_column = is_column;
  }
  return best;
}

void ChannelController::consider_refresh(Candidate& best) const {
  // Refresh: a rank whose refresh is due wins ties against requests.
  for (int rk = 0; rk < state_.ranks(); ++rk) {
    const RankState& rs = state_.rank(rk);
    if (rs.refresh_due > best.tick) continue;
    Candidate c;
    c.rank = rk;
    if (rs.open_banks > 0) {
      int first = rk * state_.banks_per_rank();
      for (int k = first; k < first + state_.banks_per_rank(); ++k) {
        if (!state_.bank(k).is_open()) continue;
        Tick t = state_.earliest_pre(k, rs.refresh_due);
        if (t < c.tick) {
          c.tick = t;
          c.cmd = DdrCommand::Pre;
          c.local_bank = k;
        }
      }
    } else {
      c.tick = state_.earliest_ref(rk, rs.refresh_due);
      c.cmd = DdrCommand::Ref;
    }
    if (c.tick < best.tick || (c.tick == best.tick && best.index >= 0)) best = c;
  }
}

void ChannelController::mark_rank_dirty(int rank) {
  const int first = rank * state_.banks_per_rank();
  for (int k = first; k < first + state_.banks_per_rank(); ++k) mark_dirty(k);
}

void ChannelController::log_command(Tick t, DdrCommand cmd, int local_bank, std::int64_t row, bool auto_pre,
                                    std::uint64_t id) {
  DdrCommandRecord rec;
  rec.tick = t;
  rec.cmd = cmd;
  rec.channel = channel_;
  const int per_rank = state_.banks_per_rank();
  rec.rank = local_bank / per_rank;
  rec.bankgroup = (local_bank % per_rank) / cfg_.banks_per_group;
  rec.bank = local_bank % cfg_.banks_per_group;
  rec.row = row;
  rec.auto_precharge = auto_pre;
  rec.request_id = id;
  log_->push_back(rec);
}

void ChannelController::recount_hits(int local_bank) {
  BankState& b = state_.bank(local_bank);
  for (int kind = 0; kind < 2; ++kind) {
    b.pending_hits[kind] = 0;
    for (int slot = queues_.head(kind, local_bank); slot >= 0; slot = queues_.next(slot))
      if (queues_.at(slot).loc.row == b.open_row) ++b.pending_hits[kind];
  }
}

void ChannelController::issue(const Candidate& c) {
  cache_valid_ = false;
  const Tick t = c.tick;
  if (c.index < 0) {  // refresh work
    if (c.cmd == DdrCommand::Pre) {
      deferred_[std::size_t(c.local_bank)].column = kNeverTick;  // the refresh precharges it
      state_.issue_pre(c.rank, c.local_bank, t);
      mark_dirty(c.local_bank);
      ++stats_->cmd_pre;
      log(t, DdrCommand::Pre, c.local_bank, -1, false, 0);
    } else {
      state_.issue_ref(c.rank, t);
      mark_rank_dirty(c.rank);
      ++stats_->cmd_ref;
      watch_progress();
      log(t, DdrCommand::Ref, c.rank * state_.banks_per_rank(), -1, false, 0);
    }
    return;
  }
  DdrRequest& r = queues_.at(c.index);
  mark_dirty(r.local_bank);
  switch (c.cmd) {
    case DdrCommand::Act:
      row_command(r, DdrCommand::Act, t);
      recount_hits(r.local_bank);
      break;
    case DdrCommand::Pre:
      row_command(r, DdrCommand::Pre, t);
      break;
    case DdrCommand::Rd:
    case DdrCommand::Wr:
      serve_column(c.index, c.cmd, t);
      break;
    case DdrCommand::Ref:
      break;
  }
}

void ChannelController::row_command(DdrRequest& r, DdrCommand cmd, Tick t) {
  if (cmd == DdrCommand::Act) {
    state_.issue_act(r.loc.rank, r.group, r.local_bank, r.loc.row, t);
    r.did_act = true;
    ++stats_->cmd_act;
    ++stats_->per_bank[std::size_t(r.loc.flat_bank)].activates;
    log(t, DdrCommand::Act, r.local_bank, r.loc.row, false, r.id);
  } else {
    state_.issue_pre(r.loc.rank, r.local_bank, t);
    r.did_pre = true;
    ++stats_->cmd_pre;
    log(t, DdrCommand::Pre, r.local_bank, -1, false, r.id);
  }
}

void ChannelController::watch_progress() {
  if (idle() || ++refreshes_without_progress_ <= kMaxRefreshesWithoutProgress) return;
  const DdrTimingCk& t = cfg_.timing;
  throw ConfigError(
      "DDR channel " + std::to_string(channel_) + " made no progress: " + std::to_string(queues_.size(0)) +
      " read(s) and " + std::to_string(queues_.size(1)) + " write(s) waited through " +
      std::to_string(kMaxRefreshesWithoutProgress) + " refreshes (" + std::to_string(kMaxRefreshesWithoutProgress) +
      " x tREFI = " + std::to_string(std::int64_t(kMaxRefreshesWithoutProgress) * t.t_refi) +
      " tCK) with none served\n  fix: the timings leave no time for requests between refreshes (tREFI = " +
      std::to_string(t.t_refi) + ", tRFC = " + std::to_string(t.t_rfc) + " tCK); set tREFI >= " +
      std::to_string(min_refresh_interval_ck(cfg_)) + " tCK (docs/ddr.md, \"Refresh\")");
}

void ChannelController::serve_column(int slot, DdrCommand cmd, Tick t) {
  const DdrRequest r = queues_.at(slot);
  queues_.remove(slot);
  --state_.bank(r.local_bank).pending_hits[r.is_write ? 1 : 0];
  const Tick done = column_command(r, cmd, t);
  if (r.tracked) completions_.put(r.id, done);
}

Tick ChannelController::column_command(const DdrRequest& r, DdrCommand cmd, Tick t) {
  refreshes_without_progress_ = 0;
  const BankState& b = state_.bank(r.local_bank);
  const bool closes = closed_page_ && b.pending_hits[0] == 0 && b.pending_hits[1] == 0;
  const bool defer = closes && defers_auto_precharge(r);
  const bool auto_pre = closes && !defer;  // deferred: decided when the bank's next request comes
  const Tick done = r.is_write ? state_.issue_wr(r.loc.rank, r.group, r.local_bank, t, auto_pre)
                               : state_.issue_rd(r.loc.rank, r.group, r.local_bank, t, auto_pre);
  DdrStats& s = *stats_;
  const auto bytes = std::uint64_t(cfg_.burst_bytes());
  DdrBankCounts& bank_counts = s.per_bank[std::size_t(r.loc.flat_bank)];
  if (r.is_write) {
    ++s.writes;
    ++s.cmd_wr;
    ++bank_counts.writes;
    s.bytes_written += bytes;
    s.write_latency_sum_ck += std::uint64_t(done - r.arrival);
  } else {
    ++s.reads;
    ++s.cmd_rd;
    ++bank_counts.reads;
    s.bytes_read += bytes;
    s.add_read_latency(done - r.arrival);
  }
  if (auto_pre) ++s.auto_precharges;
  if (r.did_pre) {
    ++s.row_conflicts;
  } else if (r.did_act) {
    ++s.row_misses;
  } else {
    ++s.row_hits;
  }
  s.last_done_ck = std::max(s.last_done_ck, done);
  log(t, cmd, r.local_bank, r.loc.row, auto_pre, r.id);
  if (defer) defer_auto_precharge(r, t);
  if (sink_) {
    DdrBurstRecord rec;
    rec.cycle = t;
    rec.time_ns = double(t) * cfg_.tck_ns();
    rec.channel = r.loc.channel;
    rec.rank = r.loc.rank;
    rec.bankgroup = r.loc.bankgroup;
    rec.bank = r.loc.bank;
    rec.row = r.loc.row;
    rec.column = r.loc.column;
    rec.addr = r.addr;
    rec.is_write = r.is_write;
    rec.bytes = int(bytes);
    if (r.layer) rec.layer = *r.layer;
    if (r.tensor) rec.tensor = *r.tensor;
    rec.arrival_ck = r.arrival;
    rec.done_ck = done;
    sink_->on_burst(rec);
  }
  return done;
}

void ChannelController::skip_idle_refreshes(Tick t) {
  // Split cursors (the TLM target) too: every command already issued lies before the last
  // pending REF's due tick or on the other rank's side of it, and a new request's commands
  // come after `t`, so the skipped REFs' command-bus slots are never asked for.
  if (log_ || t >= kNeverTick / 2) return;
  const Tick refi = timing_.t_refi;
  const int ranks = state_.ranks();
  if (Tick(timing_.t_rfc) >= refi || refi < ranks) return;  // the on-time argument needs both
  if (!refresh_overdue_by(t)) return;  // at most one REF per rank due by t: nothing to skip
  for (int rk = 0; rk < ranks; ++rk) {
    const RankState& rs = state_.rank(rk);
    if (rs.open_banks > 0 || state_.earliest_ref(rk, rs.refresh_due) != rs.refresh_due) return;
  }
  for (int rk = 0; rk < ranks; ++rk) {
    RankState& rs = state_.rank(rk);
    if (rs.refresh_due > t - refi) continue;
    const Tick n = (t - rs.refresh_due) / refi;  // REFs due in [refresh_due, t]: n + 1; the last is issued normally
    rs.refresh_due += n * refi;
    stats_->cmd_ref += std::uint64_t(n);
  }
  cache_valid_ = false;
}

void ChannelController::advance_through(Tick t) {
  settle_deferred_through(t);  // the front end is at t: no request can still arrive before these
  for (;;) {
    if (idle()) skip_idle_refreshes(t);
    if (!cache_valid_) {
      cached_ = pick();
      cache_valid_ = true;
    }
    if (!cached_.valid() || cached_.tick > t) return;
    if (cached_.deferred) {
      resolve_refresh();
      continue;
    }
    issue(cached_);
  }
}

Tick ChannelController::issue_next() {
  if (!cache_valid_) {
    cached_ = pick();
    cache_valid_ = true;
  }
  if (cached_.deferred) resolve_refresh();
  if (!cached_.valid()) return kNeverTick;
  const Tick t = cached_.tick;
  issue(cached_);
  return t;
}

void ChannelController::drain() {
  while (!idle()) issue_next();
  settle_deferred_through(kNeverTick - 1);  // the end of the input: no next request comes
}

bool ChannelController::take_completion(std::uint64_t id, Tick* done_ck) {
  return completions_.take(id, done_ck);
}

}  // namespace npu::hw
