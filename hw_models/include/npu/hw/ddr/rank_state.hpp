// State of one rank: the "_S" timings across bank groups, the four-activate window and
// the refresh schedule.
#pragma once

#include "npu/hw/ddr/ddr_types.hpp"

namespace npu::hw {

/// tFAW: at most four ACTs to a rank in any tFAW window (JESD79-4 section 13). The ring
/// holds the ticks of the last four ACTs; a new ACT may issue at oldest + tFAW.
class ActivateWindow {
 public:
  Tick earliest_next(int t_faw) const { return ticks_[head_] + t_faw; }
  void record(Tick t) {
    ticks_[head_] = t;
    head_ = (head_ + 1) & 3;
  }

 private:
  Tick ticks_[4] = {-kNeverTick, -kNeverTick, -kNeverTick, -kNeverTick};
  int head_ = 0;  ///< index of the oldest of the last four ACTs
};

/// Per-rank timeline. Refresh is all-bank (REFab): when `refresh_due` is reached the
/// controller stops starting new work in the rank, precharges its open banks, issues
/// REF, and every bank's next ACT waits tRFC; the next refresh is due tREFI later.
/// Ranks are staggered: rank r of R is first due at tREFI * (r + 1) / R.
struct RankState {
  Tick next_act = 0;  ///< tRRD_S after any ACT in the rank
  Tick next_rd = 0;   ///< tCCD_S after RD, CWL + BL/2 + tWTR_S after WR
  Tick next_wr = 0;   ///< tCCD_S after WR, read_to_write after RD
  ActivateWindow faw;
  Tick refresh_due = kNeverTick;
  int open_banks = 0;
};

}  // namespace npu::hw
