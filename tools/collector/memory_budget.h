// MemoryBudget: the bytes that all peers of a collector (stream connections, datagram
// senders, git line streams) hold together, against one limit (max_total_buffered). Each
// peer keeps its share in a size_t of its own and reports every change of what it holds;
// a peer that releases everything reports zero.
//
//   size_t share = 0;
//   if (!budget.Update(share, splitter.buffered_bytes())) { /* drop this peer */ }
//   ...
//   budget.Update(share, 0);  // the peer is gone
#ifndef TRACEWIRE_TOOLS_COLLECTOR_MEMORY_BUDGET_H_
#define TRACEWIRE_TOOLS_COLLECTOR_MEMORY_BUDGET_H_

#include <cstddef>

namespace tracewire::tools {

class MemoryBudget {
 public:
  explicit MemoryBudget(size_t limit) : limit_(limit) {}

  // Moves a peer's share of the total from `share` to `bytes` (and stores `bytes` in
  // `share`); false if the total is then over the limit. The share is recorded either way.
  bool Update(size_t& share, size_t bytes) {
    total_ = total_ - share + bytes;
    share = bytes;
    return total_ <= limit_;
  }

  // The bytes all peers hold.
  size_t total() const { return total_; }

 private:
  const size_t limit_;
  size_t total_ = 0;
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COLLECTOR_MEMORY_BUDGET_H_
