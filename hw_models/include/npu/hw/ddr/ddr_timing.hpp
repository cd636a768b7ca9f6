// Command-to-command delays derived from the configured DDR timings (all in tCK).
#pragma once

#include "npu/hw_config/hw_config.hpp"

namespace npu::hw {

/// The delays the controller enforces, derived once from DdrTimingCk. With AL = 0 and a
/// 1-tCK preamble (JESD79-4 section 4.24, "Read to write" and "Write to read" timing):
///   burst_ck        = BL / 2                    (data-bus time of one burst, DDR)
///   read_to_write   = CL + BL/2 + 2 - CWL       (RD -> WR, any bank of the rank; the
///                                                +2 is the bus turnaround JEDEC requires)
///   write_to_read_x = CWL + BL/2 + tWTR_x       (WR -> RD; _L same bank group, _S other)
///   write_to_pre    = CWL + BL/2 + tWR          (WR -> PRE same bank: write recovery)
///   read_to_pre     = tRTP                      (RD -> PRE same bank)
/// Rank-to-rank switches leave tRTRS idle clocks on the data bus between bursts.
struct DdrTiming {
  explicit DdrTiming(const DdrConfig& cfg);

  int cl, cwl, burst_ck;
  int t_rcd, t_rp, t_ras, t_rc;
  int t_ccd_s, t_ccd_l, t_rrd_s, t_rrd_l, t_faw;
  int t_rfc, t_refi, t_rtrs;
  int read_to_write;
  int write_to_read_s, write_to_read_l;
  int write_to_pre;
  int read_to_pre;
};

}  // namespace npu::hw
