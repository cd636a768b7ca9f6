#include "npu/hw/ddr/ddr_system.hpp"

#include <algorithm>
#include <stdexcept>

#include "npu/hw/ddr/ddr_config_check.hpp"

namespace npu::hw {

namespace {
const DdrConfig& validated(const DdrConfig& cfg, const std::string& source) {
  validate_ddr_config(cfg, source);
  return cfg;
}
}  // namespace

DdrSystem::DdrSystem(const DdrConfig& cfg, const std::string& source)
    : cfg_(validated(cfg, source)),
      mapper_(cfg_, source),
      bank_groups_(cfg_.bank_groups),
      banks_per_group_(cfg_.banks_per_group),
      burst_mask_(~(std::uint64_t(cfg_.burst_bytes()) - 1)) {
  stats_.tck_ns = cfg_.tck_ns();
  stats_.peak_gbps = cfg_.peak_gbps();
  stats_.burst_bytes = cfg_.burst_bytes();
  stats_.per_bank.resize(std::size_t(cfg_.channels) * cfg_.ranks * cfg_.bank_groups * cfg_.banks_per_group);
  for (int ch = 0; ch < cfg_.channels; ++ch) channels_.push_back(std::make_unique<ChannelController>(cfg_, ch, &stats_));
  channel_next_.assign(std::size_t(cfg_.channels), 0);
}

DdrRequest DdrSystem::request(std::uint64_t addr, bool is_write, const std::string* layer, const std::string* tensor,
                              bool track) {
  if (addr >= mapper_.capacity_bytes()) throw std::out_of_range("DdrSystem::offer: address past capacity");
  DdrRequest req;
  req.id = next_id_++;
  req.addr = addr & burst_mask_;
  req.loc = mapper_.decode(addr);
  req.local_bank = (req.loc.rank * bank_groups_ + req.loc.bankgroup) * banks_per_group_ + req.loc.bank;
  req.group = req.loc.rank * bank_groups_ + req.loc.bankgroup;
  req.is_write = is_write;
  req.tracked = track;
  req.layer = layer;
  req.tensor = tensor;
  return req;
}

Tick DdrSystem::accept(DdrRequest& req, Tick ready_ck) {
  ChannelController& ch = *channels_[std::size_t(req.loc.channel)];
  Tick& next = per_channel_frontend_ ? channel_next_[std::size_t(req.loc.channel)] : frontend_next_;
  Tick t = std::max(ready_ck, next);
  ch.advance_to(t);
  while (!ch.can_accept(req.is_write)) {
    // Queue full: the front end waits; the next command issued may free a slot.
    Tick issued = ch.issue_next();
    t = std::max(t, issued);
  }
  req.arrival = t;
  next = t + 1;
  frontend_next_ = std::max(frontend_next_, t + 1);
  return t;
}

DdrSystem::Offered DdrSystem::offer(std::uint64_t addr, bool is_write, Tick ready_ck, const std::string* layer,
                                    const std::string* tensor, bool track) {
  DdrRequest req = request(addr, is_write, layer, tensor, track);
  const Tick t = accept(req, ready_ck);
  channels_[std::size_t(req.loc.channel)]->enqueue(req);
  return Offered{req.id, req.loc.channel, t};
}

Tick DdrSystem::serve(std::uint64_t addr, bool is_write, Tick ready_ck, const std::string* layer,
                      const std::string* tensor) {
  DdrRequest req = request(addr, is_write, layer, tensor, true);
  const Tick t = accept(req, ready_ck);
  ChannelController& ch = *channels_[std::size_t(req.loc.channel)];
  Tick done = 0;
  if (ch.try_serve_alone(req, &done)) return done;
  ch.enqueue(req);
  return complete(Offered{req.id, req.loc.channel, t});
}

Tick DdrSystem::complete(const Offered& req) {
  ChannelController& ch = *channels_[std::size_t(req.channel)];
  Tick done = 0;
  while (!ch.take_completion(req.id, &done)) {
    if (ch.idle()) throw std::logic_error("DdrSystem::complete: request was not offered with track = true");
    ch.issue_next();
  }
  return done;
}

void DdrSystem::drain() {
  for (auto& ch : channels_) ch->drain();
}

void DdrSystem::set_overlap_row_commands(bool on) {
  for (auto& ch : channels_) ch->set_split_cursors(on);
}

void DdrSystem::set_trace_sink(DdrTraceSink* sink) {
  for (auto& ch : channels_) ch->set_trace_sink(sink);
}

void DdrSystem::set_command_log(std::vector<DdrCommandRecord>* log) {
  for (auto& ch : channels_) ch->set_command_log(log);
}

Tick unloaded_read_latency_ck(const DdrConfig& cfg, RowState state) {
  const DdrTimingCk& t = cfg.timing;
  const Tick column = t.cl + cfg.burst_length / 2 + 1;  // + 1 controller clock
  switch (state) {
    case RowState::Hit: return column;
    case RowState::Closed: return t.t_rcd + column;
    case RowState::Conflict: return t.t_rp + t.t_rcd + column;
  }
  return column;
}

}  // namespace npu::hw
