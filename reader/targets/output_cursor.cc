#include "reader/targets/output_cursor.h"

#include <algorithm>

namespace tracewire::targets {

void OutputCursor::Grow(size_t n) {
  const size_t used = size();
  // std::string grows its capacity geometrically: resizing by chunks stays amortized O(1).
  out_->resize(used + std::max(n, kChunk));
  pos_ = out_->data() + used;
  limit_ = out_->data() + out_->size();
}

}  // namespace tracewire::targets
