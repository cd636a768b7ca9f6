// One channel's memory controller: read and write queues, an FR-FCFS scheduler with
// write draining, refresh, and the statistics of what it served.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/hw/ddr/channel_state.hpp"
#include "npu/hw/ddr/completion_table.hpp"
#include "npu/hw/ddr/ddr_stats.hpp"
#include "npu/hw/ddr/ddr_trace.hpp"
#include "npu/hw/ddr/request_queues.hpp"

namespace npu::hw {

/// One issued DRAM command, for tests and debugging (DdrSystem::set_command_log).
struct DdrCommandRecord {
  Tick tick = 0;
  DdrCommand cmd = DdrCommand::Act;
  int channel = 0, rank = 0, bankgroup = 0, bank = 0;
  std::int64_t row = -1;
  bool auto_precharge = false;
  std::uint64_t request_id = 0;  ///< 0 for refresh-related commands
};

/// Progress watchdog: refreshes a channel may issue while requests wait and none is
/// served before ChannelController throws ConfigError (1000 x tREFI: 7.8 ms on DDR4).
/// A config that passes min_refresh_interval_ck serves at least one request per tREFI.
constexpr int kMaxRefreshesWithoutProgress = 1000;

/// Event-driven controller for one channel. Time jumps from command to command: each
/// step finds, over the banks with queued requests of the served kind, the best of each
/// bank's candidate (its oldest row hit's column command, or its oldest request's PRE or
/// ACT) and issues it, so idle clocks cost nothing. Each bank's candidate is chosen again
/// only when the bank changes (an arrival, a command to it, a refresh of its rank, a new
/// serving mode); a step then only combines each candidate's bank-local bound with the
/// shared bounds of its rank, bank group and buses (ChannelState::shared_bound), each
/// computed once a step.
///
/// Policy (docs/ddr.md, "Scheduler"):
/// - A request accepted at tick a may issue its first command at a + 1 (one controller
///   clock); unloaded latencies are therefore CL + BL/2 + 1 (hit), tRCD + CL + BL/2 + 1
///   (closed) and tRP + tRCD + CL + BL/2 + 1 (conflict).
/// - FR-FCFS: among the commands that can issue earliest, column commands (row hits)
///   first, then the oldest request. A bank's open row is not precharged while queued
///   requests of the served kind still hit it.
/// - Reads and writes wait in separate queues of queue_depth each. Reads are served
///   until the write queue reaches the high watermark (or no read is queued); writes
///   are then drained until the write queue is down to the low watermark (or empty).
/// - Same-burst order: a request never overtakes an older request of the other kind to the
///   same burst (a drained write waits for an older read of its address, a read for an older
///   write); the bank's candidate of the other kind is served in its place.
/// - Refresh: see RankState. Closed-page mode auto-precharges after the last queued hit.
class ChannelController {
 public:
  ChannelController(const DdrConfig& cfg, int channel, DdrStats* stats);

  bool can_accept(bool is_write) const {
    return queues_.size(is_write ? 1 : 0) < queue_depth_;
  }
  /// Queue `req` (req.arrival set by the caller, not earlier than any command issued).
  void enqueue(const DdrRequest& req);
  /// One request offered to an idle channel (the TLM target's one burst at a time): serves it
  /// without the queue, with the decisions the queue would make. Each step issues its bank's
  /// only candidate (PRE on another open row, ACT on a closed bank, then RD / WR) at
  /// earliest_pre / earliest_act / earliest_rd / earliest_wr while no rank's refresh falls due
  /// by that tick; the first step one does, the request is queued from that state and the
  /// queue serves it (lone_request.cpp). Returns true with its done tick, or false with nothing
  /// changed when a refresh is due by its first command (enqueue it). `req.arrival` is its
  /// acceptance tick; req.did_pre / did_act / tracked are set as its commands issue (the
  /// caller's own copy: not copied here, the copy was 30 % of this function's samples).
  bool try_serve_alone(DdrRequest& req, Tick* done_ck);
  /// Issue every command whose tick is <= `t` (requests offered later than t cannot
  /// change them, because they become eligible at t + 1 at the earliest).
  /// An idle controller only refreshes; long idle gaps are fast-forwarded (see
  /// skip_idle_refreshes), so advancing by 10^12 tCK costs microseconds, not seconds.
  void advance_to(Tick t) {
    // Nothing to do (the common case between a TLM target's bursts): the kept choice is later
    // than t, and an idle channel has no whole tREFI of refreshes to skip (skip_idle_refreshes'
    // first test). Same effect as the loop in advance_through, without the calls.
    if (cache_valid_ && cached_.tick > t && t < first_deferred_ck_ && !(idle() && refresh_overdue_by(t))) return;
    advance_through(t);
  }
  /// Issue the next command; returns its tick, or kNeverTick when nothing is pending.
  Tick issue_next();
  /// Serve every queued request (refreshes due meanwhile are issued too).
  void drain();
  bool idle() const { return queues_.size(0) == 0 && queues_.size(1) == 0; }

  /// If request `id` (enqueued with tracked = true) has been served, store its done tick
  /// and forget it.
  bool take_completion(std::uint64_t id, Tick* done_ck);

  /// See ChannelState::set_split_cursors (used by the TLM target).
  void set_split_cursors(bool on) {
    state_.set_split_cursors(on);
    split_cursors_ = on;
    cache_valid_ = false;
    candidates_served_ = -1;  // a safe reset: choose every bank's candidate again at the next pick
  }
  void set_trace_sink(DdrTraceSink* sink) { sink_ = sink; }
  void set_command_log(std::vector<DdrCommandRecord>* log) { log_ = log; }
  const ChannelState& state() const { return state_; }

 private:
  struct Candidate {
    Tick tick = kNeverTick;
    DdrCommand cmd = DdrCommand::Act;
    int index = -1;   ///< slot of the request in queues_; -1 for refresh commands
    std::uint64_t seq = 0;  ///< the request's age (RequestQueues::seq; smaller is older)
    int rank = -1;    ///< refresh: the rank; otherwise unused
    int local_bank = -1;
    /// Refresh work not chosen yet (no request was a candidate): `tick` is a lower bound,
    /// the earliest refresh_due; resolve_refresh() chooses the command when it is needed.
    bool deferred = false;
    bool valid() const { return tick < kNeverTick; }
  };

  Candidate pick();
  /// The best request candidate of the served kind, over the banks' kept candidates.
  Candidate best_request();
  /// A rank due for refresh: its PRE or REF when it beats `best` (refresh wins ties).
  void consider_refresh(Candidate& best) const;
  /// With no request candidate, the refresh work's earliest tick (the earliest refresh_due,
  /// a lower bound) as a deferred candidate: an idle controller between transactions (the
  /// TLM target) then does not scan its open banks for a PRE that is not issued before
  /// the next request arrives.
  Candidate deferred_refresh() const;
  /// Replace a deferred cached_ by the refresh command consider_refresh() chooses.
  void resolve_refresh();
  /// Choose `bank`'s candidate again (or none) and keep it in bank_candidates_.
  void rekey_bank(int bank, int served);
  void mark_dirty(int bank) { dirty_[std::size_t(bank) / 64] |= std::uint64_t(1) << (bank % 64); }
  void mark_rank_dirty(int rank);
  /// Remove `bank` from / insert it into the by-bound list (by_local_, listed_at_).
  void unlist(int bank);
  void enlist(int bank, Tick local);
  /// Move `bank`'s entry (or add it) to its place for bound `local`: the order unlist + enlist gives.
  void relist(int bank, Tick local);
  /// Serving mode the next pick will use (true: draining writes).
  bool next_mode() const;
  /// The next command of `r` and its earliest tick; false when it may not issue now
  /// (precharge held back by queued hits, or its rank is due for refresh first).
  bool evaluate(const DdrRequest& r, int served, Candidate& c, bool& is_column) const;
  /// FR-FCFS order: earlier tick first; at equal ticks column commands before row
  /// commands, then the older request (smaller seq).
  static bool better(const Candidate& c, bool c_is_column, const Candidate& best);
  /// FR-FCFS candidate of `kind` in `bank`: its oldest row hit when the open row has queued
  /// hits of that kind, else its oldest request; -1 when none.
  int candidate_slot(int kind, int bank) const;
  /// True when an older request of `other_kind` to the same burst as `slot` is queued
  /// (per-bank lists are in arrival order, so only the older part of the list is scanned).
  bool has_older_same_burst(int slot, int other_kind) const;
  void issue(const Candidate& c);
  /// Count a REF issued while requests wait; throws ConfigError past kMaxRefreshesWithoutProgress.
  void watch_progress();
  void serve_column(int slot, DdrCommand cmd, Tick t);
  Tick column_command(const DdrRequest& r, DdrCommand cmd, Tick t);  // serve_column's tail: issue, count, trace
  /// Issues r's ACT or PRE at t: the bank's state, r.did_act / r.did_pre, the counts and the log
  /// (issue() and the lone request's path).
  void row_command(DdrRequest& r, DdrCommand cmd, Tick t);
  void recount_hits(int local_bank);
  /// Idle fast-forward: while no request is queued, every rank only refreshes. Once each
  /// rank has all banks closed and its pending REF can issue exactly at refresh_due,
  /// every later REF also issues exactly at its due tick (tRFC < tREFI, and the ranks'
  /// due ticks are distinct because tREFI >= ranks), so the REFs due at or before `t`
  /// are known without simulating them: all but the last of each rank are counted
  /// (stats cmd_ref) and refresh_due moves by whole tREFI periods (phase kept), and the
  /// last one is issued as usual, leaving the same bank state as a one-by-one replay.
  /// Off while a command log is attached (it lists every REF); on in split-cursor mode too
  /// (a HOST instruction's long wait is an idle gap of the TLM target).
  void skip_idle_refreshes(Tick t);
  /// True when some rank's refresh was due a whole tREFI before `t` (refresh_due <= t - tREFI):
  /// only then has skip_idle_refreshes anything to skip.
  bool refresh_overdue_by(Tick t) const {
    for (int rk = 0; rk < state_.ranks(); ++rk)
      if (state_.rank(rk).refresh_due <= t - timing_.t_refi) return true;
    return false;
  }
  /// advance_to's loop: issue every command whose tick is <= t.
  void advance_through(Tick t);

  // ---- closed page in split-cursor mode (the TLM target): deferred auto-precharge
  // (deferred_precharge.cpp). Served one burst at a time, a column command never sees the next
  // burst in the queue, so "no queued request hits the row" would close every row after each
  // burst (a DMA stream ran at a tenth of its open-page bandwidth, new-user finding). The
  // auto-precharge is decided when the bank's next request comes: cancelled when that request
  // arrived before the column command (the queue would have held it) and hits the row, applied
  // at the tick RDA / WRA would have precharged otherwise, and applied once the front end is at
  // or past the column command's tick (no later request can have arrived before it).
  struct Deferred {
    Tick column = kNeverTick;  ///< the column command's tick; kNeverTick: none deferred
    Tick precharge = 0;        ///< the bank's next_pre right after it: where RDA / WRA precharges
    std::size_t log_index = 0; ///< its command-log record (auto_precharge set when applied)
    bool logged = false;
  };
  /// True when `r`'s column command at tick t defers its auto-precharge (closed page, split
  /// cursors, no other request of either kind queued for its bank).
  bool defers_auto_precharge(const DdrRequest& r) const;
  void defer_auto_precharge(const DdrRequest& r, Tick t);
  /// Before request `r` is served or queued: cancel or apply its bank's deferred precharge.
  void settle_deferred(const DdrRequest& r);
  /// Apply every deferred precharge whose column command is at or before t.
  void settle_deferred_through(Tick t);
  /// Applies the deferred precharges whose column command is at or before t; returns the
  /// earliest column tick left (kNeverTick: none).
  Tick rescan_deferred(Tick t);
  void apply_deferred(int local_bank);
  std::vector<Deferred> deferred_;         ///< per bank
  Tick first_deferred_ck_ = kNeverTick;     ///< the earliest deferred column tick (advance_to's fast path)
  void log(Tick t, DdrCommand cmd, int local_bank, std::int64_t row, bool auto_pre, std::uint64_t id) {
    if (log_) log_command(t, cmd, local_bank, row, auto_pre, id);
  }
  void log_command(Tick t, DdrCommand cmd, int local_bank, std::int64_t row, bool auto_pre, std::uint64_t id);

  int channel_;
  DdrConfig cfg_;
  DdrTiming timing_;
  ChannelState state_;
  DdrStats* stats_;
  int queue_depth_;
  int high_watermark_, low_watermark_;
  bool closed_page_;
  bool draining_writes_ = false;
  bool split_cursors_ = false;
  RequestQueues queues_;  ///< reads (kind 0) and writes (kind 1), per bank in arrival order
  Candidate cached_;
  bool cache_valid_ = false;
  // pick()'s per-bank candidates. Everything in one stays the same until its bank changes:
  // the request, its command, and its bank-local bound (the bank's timeline for that
  // command and the request's arrival + 1); only the shared bounds move between steps.
  struct BankCandidate {
    Tick local = 0;         ///< max(bank's next tick for cmd, arrival + 1)
    std::uint64_t seq = 0;  ///< the request's age
    int slot = -1;
    int rank = 0, group = 0;
    DdrCommand cmd = DdrCommand::Act;
    // What best_request() reads for the command, set with it (no branch on it in the scan):
    int cls = 0;           ///< cmd * bank groups of the channel + group: the shared_ entry
    int version_slot = 0;  ///< ChannelState::version_slot(cmd, rank)
    int cursor = 0;        ///< 0 ACT, 1 PRE, 2 RD / WR: the command cursor, and 2 = a column command
  };
  std::vector<BankCandidate> bank_candidates_;
  // The banks with a candidate, by ascending bank-local bound (ties: earlier listed first),
  // so a step stops at the first bound later than the best tick so far.
  struct Listed {
    Tick local = 0;  ///< the bank's candidate's bank-local bound
    int bank = -1;
  };
  std::vector<Listed> by_local_;
  std::vector<int> listed_at_;  ///< each bank's index in by_local_, -1 when not listed
  std::vector<std::uint64_t> dirty_;  ///< banks changed since the last pick (bit mask)
  int candidates_served_ = -1;        ///< serving mode the candidates were chosen for; -1: none
  // best_request()'s shared bounds less the cursor (ChannelState::shared_static), [cmd * groups
  // + group], valid while ChannelState::versions() holds the version they were read at.
  std::vector<Tick> shared_;                    ///< shared_static per [cmd * groups + group]
  std::vector<std::uint64_t> shared_version_;   ///< the version it was read at (0: never)
  int refreshes_without_progress_ = 0;  ///< REFs since the last column command while requests waited
  CompletionTable completions_;  ///< tracked requests served and not yet taken
  DdrTraceSink* sink_ = nullptr;
  std::vector<DdrCommandRecord>* log_ = nullptr;
};

}  // namespace npu::hw
