// Happens-before from queue order and tokens (happens_before.hpp): the queues are run with
// counting semaphores, each instruction's clock taken as it starts.
#include "npu/isa/check/happens_before.hpp"

#include <algorithm>

namespace npu::isa {

HappensBefore happens_before(const Program& p) {
  using Clock = HappensBefore::Clock;
  HappensBefore hb;
  const std::size_t n = p.instructions.size();
  hb.position.assign(n, 0);
  std::array<std::vector<std::size_t>, 3> queue;
  bool decoupled = false;
  for (std::size_t i = 0; i < n; ++i) {
    const Instruction& in = p.instructions[i];
    decoupled = decoupled || !in.wait.empty() || !in.push.empty();
    const int q = int(in.queue());
    hb.position[i] = queue[q].size();
    queue[q].push_back(i);
  }
  hb.before.assign(n, Clock{0, 0, 0});
  hb.order.reserve(n);
  if (!decoupled) {  // strict program order: everything before i happens before i
    Clock seen{0, 0, 0};
    for (std::size_t i = 0; i < n; ++i) {
      hb.before[i] = seen;
      ++seen[int(p.instructions[i].queue())];
      hb.order.push_back(i);
    }
    hb.complete = true;
    return hb;
  }
  std::array<std::vector<Clock>, 9> pushed;  // per token: the releasing clock of each push
  std::array<std::size_t, 9> consumed{};
  std::array<std::size_t, 3> head{0, 0, 0};
  std::array<Clock, 3> last{};  // per queue: clock after its last completed instruction
  for (bool progress = true; progress;) {
    progress = false;
    for (int q = 0; q < 3; ++q)
      while (head[q] < queue[q].size()) {
        const std::size_t i = queue[q][head[q]];
        const Instruction& in = p.instructions[i];
        std::array<std::size_t, 9> need{};
        for (const Token& t : in.wait) ++need[token_index(t)];
        bool ready = true;
        for (int t = 0; t < 9; ++t) ready = ready && consumed[t] + need[t] <= pushed[t].size();
        if (!ready) break;
        Clock c = last[q];
        for (int t = 0; t < 9; ++t)
          for (std::size_t k = 0; k < need[t]; ++k) {
            const Clock& r = pushed[t][consumed[t]++];
            for (int x = 0; x < 3; ++x) c[x] = std::max(c[x], r[x]);
          }
        c[q] = head[q];  // every earlier instruction of its own queue
        hb.before[i] = c;
        c[q] = head[q] + 1;  // released: this one too
        last[q] = c;
        for (const Token& t : in.push) pushed[token_index(t)].push_back(c);
        hb.order.push_back(i);
        ++head[q];
        progress = true;
      }
  }
  for (int q = 0; q < 3; ++q)
    if (head[q] != queue[q].size()) {  // deadlock or unbalanced: check_program says so
      hb.before.clear();
      hb.order.clear();
      return hb;
    }
  hb.complete = true;
  return hb;
}

}  // namespace npu::isa
