#include "npu/hw/ddr/ddr_timing.hpp"

#include <algorithm>

namespace npu::hw {

DdrTiming::DdrTiming(const DdrConfig& cfg) {
  const DdrTimingCk& t = cfg.timing;
  cl = t.cl;
  cwl = t.cwl;
  burst_ck = std::max(1, cfg.burst_length / 2);
  t_rcd = t.t_rcd;
  t_rp = t.t_rp;
  t_ras = t.t_ras;
  t_rc = t.t_rc;
  t_ccd_s = t.t_ccd_s;
  t_ccd_l = t.t_ccd_l;
  t_rrd_s = t.t_rrd_s;
  t_rrd_l = t.t_rrd_l;
  t_faw = t.t_faw;
  t_rfc = t.t_rfc;
  t_refi = t.t_refi;
  t_rtrs = t.t_rtrs;
  read_to_write = std::max(1, cl + burst_ck + 2 - cwl);
  write_to_read_s = cwl + burst_ck + t.t_wtr_s;
  write_to_read_l = cwl + burst_ck + t.t_wtr_l;
  write_to_pre = cwl + burst_ck + t.t_wr;
  read_to_pre = t.t_rtp;
}

}  // namespace npu::hw
