// The shared token generator: a layer's steps -> LOAD / compute / STORE instructions with the
// dependency tokens of the protocol in codegen.hpp (VTA-style decoupled access-execute), and
// the HOST layer's wait. Reference: docs/compiler.md "Code generation".
#include <stdexcept>

#include "backend/codegen/layer_codegen.hpp"

namespace npu::compiler::codegen {

namespace {

using isa::Instruction;
using isa::Opcode;
using isa::Queue;

using isa::kCp2Ld;
using isa::kCp2St;
using isa::kLd2Cp;
using isa::kSt2Cp;
using isa::kSt2Ld;

// The fence every layer but the program's first starts with: a SYNC on the compute queue
// pushes cp2ld and a SYNC on the store queue pushes st2ld; the layer's first LOAD waits both.
void fence(const std::string& layer, std::vector<Instruction>& prog) {
  Instruction sc;
  sc.op = Opcode::Sync;
  sc.layer = layer;
  sc.params = isa::SyncParams{Queue::Compute};
  sc.push = {kCp2Ld};
  Instruction ss = sc;
  ss.params = isa::SyncParams{Queue::Store};
  ss.push = {kSt2Ld};
  prog.push_back(sc);
  prog.push_back(ss);
}

// A step's LOADs or STOREs (`op`) in order: the first waits `first_wait`, the last pushes
// `last_push`.
void emit_dmas(const std::string& layer, Opcode op, const std::vector<Dma>& dmas, std::vector<isa::Token> first_wait,
               std::vector<isa::Token> last_push, std::vector<Instruction>& prog) {
  for (std::size_t k = 0; k < dmas.size(); ++k) {
    Instruction d;
    d.op = op;
    d.layer = layer;
    d.tensor = dmas[k].tensor;
    d.params = dmas[k].desc;
    if (k == 0) d.wait = first_wait;
    if (k + 1 == dmas.size()) d.push = last_push;
    prog.push_back(std::move(d));
  }
}

}  // namespace

void emit_steps(const std::string& layer, std::vector<Step>& steps, bool& first_layer, std::vector<Instruction>& prog) {
  const std::size_t n = steps.size();
  if (n == 0) return;
  std::vector<bool> has_load(n), has_store(n);
  for (std::size_t i = 0; i < n; ++i) {
    has_load[i] = !steps[i].loads.empty();
    has_store[i] = !steps[i].stores.empty();
  }
  if (!has_load[0]) throw std::logic_error("codegen: layer " + layer + " starts without a LOAD");
  if (!first_layer) fence(layer, prog);
  for (std::size_t i = 0; i < n; ++i) {
    Step& s = steps[i];
    // LOADs: the first waits the fence (step 0) or cp2ld (i >= 2: the compute of step i-2
    // freed the slot it overwrites); the last pushes ld2cp.
    std::vector<isa::Token> load_wait;
    if (i == 0 && !first_layer) load_wait = {kCp2Ld, kSt2Ld};
    else if (i >= 2) load_wait = {kCp2Ld};
    emit_dmas(layer, Opcode::Load, s.loads, load_wait, {kLd2Cp}, prog);
    // The step's compute instructions in order: the first waits, the last pushes.
    Instruction& c = s.compute;
    Instruction& last = s.more.empty() ? c : s.more.back();
    c.layer = layer;
    if (has_load[i]) c.wait.push_back(kLd2Cp);
    if (i >= 2 && has_store[i - 2]) c.wait.push_back(kSt2Cp);
    if (has_store[i]) last.push.push_back(kCp2St);
    if (i + 2 < n && has_load[i + 2]) last.push.push_back(kCp2Ld);
    prog.push_back(std::move(c));
    for (Instruction& m : s.more) {
      m.layer = layer;
      prog.push_back(std::move(m));
    }
    // STOREs: the first waits cp2st; the last pushes st2cp if step i+2 exists.
    emit_dmas(layer, Opcode::Store, s.stores, {kCp2St}, i + 2 < n ? std::vector<isa::Token>{kSt2Cp} : std::vector<isa::Token>{},
              prog);
  }
  first_layer = false;
}

// The NPU waits while the host runs a partition. Its inputs are NPU results in DDR, so it
// first waits for every earlier STORE (a SYNC on the store queue pushes st2cp); the next NPU
// layer's loads wait for it through the compute queue's order (its SYNC follows).
void emit_host(const HwConfig& hw, const LayerSpec& L, bool& first_layer, std::vector<Instruction>& prog) {
  isa::HostParams hp;
  const std::uint64_t work = L.host_macs + L.host_ops;
  hp.cycles = host_cycles(hw, work, L.host_rd_bytes + L.host_wr_bytes);
  hp.macs = L.host_macs;
  hp.rd = L.host_rd_bytes;
  hp.wr = L.host_wr_bytes;
  hp.nodes = int(L.covers.size());
  Instruction h;
  h.op = Opcode::Host;
  h.layer = L.name;
  h.params = hp;
  if (!first_layer) {
    Instruction ss;
    ss.op = Opcode::Sync;
    ss.layer = L.name;
    ss.params = isa::SyncParams{Queue::Store};
    ss.push = {kSt2Cp};
    prog.push_back(ss);
    h.wait = {kSt2Cp};
  }
  prog.push_back(h);
  // The layer after a host layer is not the program's first: it fences as usual.
  first_layer = false;
}

}  // namespace npu::compiler::codegen
