#include "npu/hw/ddr/request_queues.hpp"

namespace npu::hw {

RequestQueues::RequestQueues(int banks, int depth)
    : banks_(banks),
      words_per_kind_((banks + 63) / 64),
      nodes_(std::size_t(2 * depth)),
      lists_(std::size_t(2 * banks)),
      occupied_(std::size_t(2 * words_per_kind_), 0) {
  free_.reserve(nodes_.size());
  for (int i = int(nodes_.size()) - 1; i >= 0; --i) free_.push_back(i);
}

void RequestQueues::mark(int kind, int bank, bool occupied) {
  std::uint64_t& w = occupied_[std::size_t(kind * words_per_kind_ + bank / 64)];
  const std::uint64_t bit = std::uint64_t(1) << (bank % 64);
  w = occupied ? (w | bit) : (w & ~bit);
}

int RequestQueues::push(const DdrRequest& r) {
  const int slot = free_.back();
  free_.pop_back();
  const int kind = r.is_write ? 1 : 0;
  Node& n = nodes_[std::size_t(slot)];
  n.req = r;
  n.seq = next_seq_++;
  List& l = lists_[std::size_t(kind * banks_ + r.local_bank)];
  n.prev = l.tail;
  n.next = -1;
  if (l.tail >= 0) {
    nodes_[std::size_t(l.tail)].next = slot;
  } else {
    l.head = slot;
    mark(kind, r.local_bank, true);
  }
  l.tail = slot;
  ++count_[kind];
  return slot;
}

void RequestQueues::remove(int slot) {
  Node& n = nodes_[std::size_t(slot)];
  const int kind = n.req.is_write ? 1 : 0;
  List& l = lists_[std::size_t(kind * banks_ + n.req.local_bank)];
  (n.prev >= 0 ? nodes_[std::size_t(n.prev)].next : l.head) = n.next;
  (n.next >= 0 ? nodes_[std::size_t(n.next)].prev : l.tail) = n.prev;
  if (l.head < 0) mark(kind, n.req.local_bank, false);
  --count_[kind];
  free_.push_back(slot);
}

}  // namespace npu::hw
