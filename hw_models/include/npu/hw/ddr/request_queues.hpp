// A channel controller's read and write queues, kept per bank: a fixed pool of request slots
// and, for each (kind, bank), an intrusive list in arrival order. No allocation per request.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/hw/ddr/ddr_types.hpp"

namespace npu::hw {

/// A request of one burst, as queued in a controller.
struct DdrRequest {
  std::uint64_t id = 0;
  std::uint64_t addr = 0;
  DramAddress loc;
  int local_bank = 0;  ///< bank index inside the channel (ChannelState numbering)
  int group = 0;       ///< bank-group index inside the channel
  bool is_write = false;
  bool tracked = false;  ///< keep the done tick for DdrSystem::complete()
  bool did_act = false;
  bool did_pre = false;
  Tick arrival = 0;  ///< tick the front end accepted it; eligible from arrival + 1
  const std::string* layer = nullptr;
  const std::string* tensor = nullptr;
};

/// Reads (kind 0) and writes (kind 1) of one channel, at most `depth` of each. A request
/// lives in a slot from push() to remove(); its slot number names it meanwhile. Each request
/// also gets a sequence number that grows with every push (older = smaller), which is the
/// "oldest request" order of FR-FCFS. The banks holding requests of a kind are kept in a bit
/// mask, so a scheduler visits only those.
class RequestQueues {
 public:
  RequestQueues(int banks, int depth);

  int size(int kind) const { return count_[kind]; }
  /// Queue `r` (kind r.is_write) behind the requests of its bank; returns its slot. The
  /// caller keeps size(kind) < depth.
  int push(const DdrRequest& r);
  void remove(int slot);

  DdrRequest& at(int slot) { return nodes_[std::size_t(slot)].req; }
  const DdrRequest& at(int slot) const { return nodes_[std::size_t(slot)].req; }
  std::uint64_t seq(int slot) const { return nodes_[std::size_t(slot)].seq; }
  /// Oldest request of `kind` in `bank`, or -1; next(slot): the next younger one, or -1.
  int head(int kind, int bank) const { return lists_[std::size_t(kind * banks_ + bank)].head; }
  int next(int slot) const { return nodes_[std::size_t(slot)].next; }

  /// Calls f(bank) for every bank holding a request of `kind`, in bank order.
  template <typename F>
  void for_each_bank(int kind, F&& f) const {
    const std::uint64_t* words = &occupied_[std::size_t(kind) * words_per_kind_];
    for (int w = 0; w < words_per_kind_; ++w) {
      for (std::uint64_t bits = words[w]; bits != 0; bits &= bits - 1) f(w * 64 + __builtin_ctzll(bits));
    }
  }

 private:
  struct Node {
    DdrRequest req;
    std::uint64_t seq = 0;
    int prev = -1, next = -1;
  };
  struct List {
    int head = -1, tail = -1;
  };
  void mark(int kind, int bank, bool occupied);

  int banks_;
  int words_per_kind_;
  std::vector<Node> nodes_;
  std::vector<int> free_;  ///< free slots (a stack)
  std::vector<List> lists_;  ///< [kind * banks + bank]
  std::vector<std::uint64_t> occupied_;  ///< [kind * words_per_kind + bank / 64], bit bank % 64
  int count_[2] = {0, 0};
  std::uint64_t next_seq_ = 0;
};

}  // namespace npu::hw
