#include "npu/hw/controller/controller.hpp"

#include <cmath>
#include <sstream>

namespace npu::hw {

const char* to_string(Unit u) {
  switch (u) {
    case Unit::DmaLoad: return "dma_load";
    case Unit::DmaStore: return "dma_store";
    case Unit::MacArray: return "mac_array";
    case Unit::ActUnit: return "act_unit";
    case Unit::Host: return "host";
    case Unit::None: return "none";
  }
  return "?";
}

namespace {
Unit unit_of(isa::Opcode op) {
  switch (op) {
    case isa::Opcode::Load: return Unit::DmaLoad;
    case isa::Opcode::Store: return Unit::DmaStore;
    case isa::Opcode::Conv:
    case isa::Opcode::Gemm: return Unit::MacArray;
    case isa::Opcode::Act:
    case isa::Opcode::Eltwise:
    case isa::Opcode::Pool:
    case isa::Opcode::Move: return Unit::ActUnit;
    case isa::Opcode::Sync: return Unit::None;
    case isa::Opcode::Host: return Unit::Host;
  }
  return Unit::None;
}
std::uint64_t now_ps() { return std::uint64_t(sc_core::sc_time_stamp().value()); }
}  // namespace

std::string describe_instruction(const isa::Program& program, std::size_t index, const std::string& source) {
  const isa::Instruction& in = program.instructions.at(index);
  std::ostringstream os;
  os << source;
  if (in.source_line > 0) os << ":" << in.source_line;
  os << ": instruction #" << index << " (" << isa::to_string(in.op) << ", layer '" << in.layer << "'";
  if (!in.tensor.empty()) os << ", tensor '" << in.tensor << "'";
  os << ")";
  return os.str();
}

std::uint64_t host_duration_ps(std::uint64_t cycles, double clock_mhz) {
  return std::uint64_t(std::llround((long double)cycles * 1e6L / (long double)clock_mhz));
}

std::string find_sram_overflow(const isa::Program& program, const HwConfig& hw, const std::string& source) {
  const std::uint64_t cap = hw.sram.capacity_bytes;
  for (std::size_t i = 0; i < program.instructions.size(); ++i) {
    for (const isa::SramOperand& op : isa::sram_operands(program.instructions[i], program.dtype)) {
      const std::uint64_t end = std::uint64_t(op.addr) + op.bytes;
      if (end > cap) {
        std::ostringstream os;
        os << describe_instruction(program, i, source) << ": error: SRAM overflow: operand '" << op.name << "' ["
           << op.addr << ", " << end << ") ends " << (end - cap) << " bytes past sram.capacity_bytes " << cap
           << " of " << hw.source << "\n  fix: tile the layer smaller, move the operand to a lower SRAM address, "
           << "or use a config with a larger sram.capacity";
        return os.str();
      }
    }
  }
  return {};
}

Controller::Controller(sc_core::sc_module_name name, const isa::Program& program, const std::string& source,
                       Dma& dma_load, Dma& dma_store, MacArray& mac, ActUnit& act, SimError& error,
                       double clock_mhz)
    : sc_core::sc_module(name), host_busy("host_busy"), program_(program), source_(source), dma_load_(dma_load),
      dma_store_(dma_store), mac_(mac), act_(act), error_(error), clock_mhz_(clock_mhz) {
  records_.resize(program.instructions.size());
  for (std::size_t i = 0; i < program.instructions.size(); ++i) {
    const isa::Instruction& in = program.instructions[i];
    records_[i].index = i;
    records_[i].unit = unit_of(in.op);
    if (!in.wait.empty() || !in.push.empty()) decoupled_ = true;
    if (in.op == isa::Opcode::Host) has_host_ = true;
    queues_[std::size_t(in.queue())].instructions.push_back(i);
  }
  if (decoupled_) {
    SC_THREAD(load_thread);
    SC_THREAD(compute_thread);
    SC_THREAD(store_thread);
  } else {
    SC_THREAD(in_order_thread);
  }
}

bool Controller::finished() const { return executed_ == program_.instructions.size(); }

bool Controller::execute(std::size_t index) {
  const isa::Instruction& in = program_.instructions[index];
  ExecRecord& rec = records_[index];
  switch (rec.unit) {
    case Unit::DmaLoad: dma_load_.execute(in, index, rec); break;
    case Unit::DmaStore: dma_store_.execute(in, index, rec); break;
    case Unit::MacArray: mac_.execute(in, rec); break;
    case Unit::ActUnit: act_.execute(in, rec); break;
    case Unit::Host: execute_host(in, rec); break;
    case Unit::None: rec.start_ps = rec.end_ps = now_ps(); break;
  }
  if (data_ && !error_.set) {
    try {
      data_->execute(in);  // functional mode: the values, at the instruction's completion
    } catch (const std::exception& e) {
      error_.raise(std::string("data path: ") + e.what());
      sc_core::sc_stop();
    }
  }
  if (error_.set) {
    if (!error_.located) {
      error_.located = true;
      error_.message = describe_instruction(program_, index, source_) + ": error: " + error_.message;
    }
    return false;
  }
  rec.executed = true;
  ++executed_;
  return true;
}

void Controller::execute_host(const isa::Instruction& in, ExecRecord& rec) {
  const isa::HostParams* h = std::get_if<isa::HostParams>(&in.params);
  rec.start_ps = rec.end_ps = now_ps();
  if (!h) {
    error_.raise("HOST carries the parameters of another opcode");
    sc_core::sc_stop();
    return;
  }
  rec.host_cycles = h->cycles;
  rec.host_macs = h->macs;
  rec.host_read_bytes = h->rd;
  rec.host_write_bytes = h->wr;
  rec.host_nodes = std::uint64_t(h->nodes > 0 ? h->nodes : 0);
  const std::uint64_t dur_ps = host_duration_ps(h->cycles, clock_mhz_);
  host_busy.write(true);
  if (dur_ps > 0) wait(sc_core::sc_time::from_value(dur_ps));
  host_busy.write(false);
  rec.end_ps = rec.start_ps + dur_ps;
}

void Controller::acquire(int q, const isa::Token& t) {
  int& count = tokens_[std::size_t(t.from)][std::size_t(t.to)];
  if (count == 0) {
    QueueState& qs = queues_[std::size_t(q)];
    qs.blocked = true;
    qs.blocked_on = t;
    while (count == 0) wait(token_events_[std::size_t(t.from)][std::size_t(t.to)]);
    qs.blocked = false;
  }
  --count;
}

void Controller::release(const isa::Token& t) {
  ++tokens_[std::size_t(t.from)][std::size_t(t.to)];
  token_events_[std::size_t(t.from)][std::size_t(t.to)].notify(sc_core::SC_ZERO_TIME);
}

void Controller::run_queue(int q) {
  QueueState& qs = queues_[std::size_t(q)];
  for (; qs.pos < qs.instructions.size(); ++qs.pos) {
    const std::size_t index = qs.instructions[qs.pos];
    const isa::Instruction& in = program_.instructions[index];
    const std::uint64_t t0 = now_ps();
    for (const isa::Token& t : in.wait) acquire(q, t);
    if (error_.set) return;
    records_[index].token_wait_ps = now_ps() - t0;
    if (!execute(index)) return;
    for (const isa::Token& t : in.push) release(t);
  }
  qs.done = true;
}

void Controller::in_order_thread() {
  for (std::size_t i = 0; i < program_.instructions.size(); ++i) {
    if (!execute(i)) return;
  }
  for (QueueState& qs : queues_) {
    qs.pos = qs.instructions.size();
    qs.done = true;
  }
}

std::string Controller::deadlock_report() const {
  if (finished() || error_.set) return {};
  std::ostringstream os;
  os << source_ << ": error: token deadlock: no queue can make progress (" << executed_ << " of "
     << program_.instructions.size() << " instructions ran)\n";
  static const char* names[3] = {"ld", "cp", "st"};
  for (std::size_t q = 0; q < 3; ++q) {
    const QueueState& qs = queues_[q];
    os << "  queue " << names[q] << ": ";
    if (qs.done) {
      os << "finished (" << qs.instructions.size() << " instructions)\n";
    } else if (qs.blocked) {
      const std::size_t index = qs.instructions[qs.pos];
      os << "waiting for token " << isa::to_string(qs.blocked_on) << " (count 0) at "
         << describe_instruction(program_, index, source_) << "; " << (qs.instructions.size() - qs.pos)
         << " instructions left\n";
    } else {
      os << "stopped at position " << qs.pos << " of " << qs.instructions.size() << "\n";
    }
  }
  os << "  token counts:";
  for (int f = 0; f < 3; ++f) {
    for (int t = 0; t < 3; ++t) {
      if (f == t) continue;
      os << " " << names[f] << "2" << names[t] << "=" << tokens_[std::size_t(f)][std::size_t(t)];
    }
  }
  os << "\n  fix: every 'wait' of a token needs a matching 'push' by the token's source queue that does not "
        "itself depend on the waiting instruction (`npu asm check` reports unbalanced tokens)";
  return os.str();
}

}  // namespace npu::hw
