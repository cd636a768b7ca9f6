// State of one DRAM bank: its open row and the earliest tick of each next command.
#pragma once

#include <algorithm>
#include <cstdint>

#include "npu/hw/ddr/ddr_types.hpp"

namespace npu::hw {

/// Per-bank timeline (DRAMSim3's BankState, kept as earliest-issue ticks rather than a
/// per-cycle countdown). `pending_hits` counts queued reads [0] and writes [1] that hit
/// the open row; the scheduler does not precharge a row that still has queued hits of
/// the kind it is serving (the "first-ready" part of FR-FCFS).
struct BankState {
  std::int64_t open_row = -1;  ///< -1: precharged (closed)
  Tick next_act = 0;           ///< tRC after ACT, tRP after PRE, tRFC after REF
  Tick next_pre = 0;           ///< tRAS after ACT, tRTP after RD, write recovery after WR
  Tick next_rd = 0;            ///< tRCD after ACT
  Tick next_wr = 0;            ///< tRCD after ACT
  int pending_hits[2] = {0, 0};

  bool is_open() const { return open_row >= 0; }
};

/// Constraints shared by the banks of one bank group (the "_L" timings).
struct BankGroupState {
  Tick next_act = 0;  ///< tRRD_L after an ACT in this group
  Tick next_rd = 0;   ///< tCCD_L after RD, CWL + BL/2 + tWTR_L after WR
  Tick next_wr = 0;   ///< tCCD_L after WR, read_to_write after RD
};

}  // namespace npu::hw
