#include "reader/process_tree.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"

namespace tracewire::reader {

ProcessTreeReader::ProcessTreeReader(std::vector<std::unique_ptr<Reader>> readers)
    : readers_(std::move(readers)) {}

bool ProcessTreeReader::Later(int a, int b) const {
  const Event& x = *heads_[a];
  const Event& y = *heads_[b];
  if (x.time != y.time) return x.time > y.time;
  if (x.depth != y.depth) return x.depth > y.depth;
  return a > b;
}

absl::StatusOr<std::unique_ptr<ProcessTreeReader>> ProcessTreeReader::Create(
    std::vector<std::unique_ptr<Reader>> readers) {
  std::unique_ptr<ProcessTreeReader> tree(new ProcessTreeReader(std::move(readers)));
  const int n = static_cast<int>(tree->readers_.size());
  tree->heads_.assign(n, nullptr);
  tree->nodes_.resize(n);
  absl::flat_hash_map<std::string, int> by_sid;
  for (int i = 0; i < n; ++i) {
    ProcessNode& node = tree->nodes_[i];
    node.source = tree->readers_[i]->name();
    absl::StatusOr<const Event*> first = tree->readers_[i]->Next();
    if (!first.ok()) return first.status();
    if (*first == nullptr) continue;
    tree->heads_[i] = *first;
    node.sid = std::string((*first)->sid);
    node.depth = (*first)->depth;
    if (!by_sid.try_emplace(node.sid, i).second) {
      return absl::InvalidArgumentError(absl::StrFormat("%s and %s both hold process %s",
                                                        tree->nodes_[by_sid[node.sid]].source,
                                                        node.source, node.sid));
    }
    tree->heap_.push_back(i);
  }
  for (int i = 0; i < n; ++i) {
    ProcessNode& node = tree->nodes_[i];
    std::string prefix = node.sid;
    while (true) {
      const size_t slash = prefix.rfind('/');
      if (slash == std::string::npos) break;
      prefix.resize(slash);
      auto it = by_sid.find(prefix);
      if (it != by_sid.end()) {
        node.parent = it->second;
        tree->nodes_[it->second].children.push_back(i);
        break;
      }
    }
  }
  ProcessTreeReader* self = tree.get();
  std::make_heap(tree->heap_.begin(), tree->heap_.end(),
                 [self](int a, int b) { return self->Later(a, b); });
  return tree;
}

absl::StatusOr<std::unique_ptr<ProcessTreeReader>> ProcessTreeReader::OpenDirectory(
    const std::string& dir, ReaderOptions options) {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) {
    return absl::NotFoundError(absl::StrFormat("%s: cannot list directory: %s", dir, ec.message()));
  }
  std::vector<std::string> paths;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) {
      return absl::UnknownError(
          absl::StrFormat("%s: cannot list directory: %s", dir, ec.message()));
    }
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) continue;
    paths.push_back(it->path().string());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<std::unique_ptr<Reader>> readers;
  for (const std::string& path : paths) {
    absl::StatusOr<std::unique_ptr<Reader>> reader = Reader::OpenFile(path, options);
    if (!reader.ok()) return reader.status();
    readers.push_back(std::move(*reader));
  }
  return Create(std::move(readers));
}

absl::StatusOr<const Event*> ProcessTreeReader::Next() {
  if (!error_.ok()) return error_;
  auto later = [this](int a, int b) { return Later(a, b); };
  if (last_ >= 0) {
    absl::StatusOr<const Event*> next = readers_[last_]->Next();
    if (!next.ok()) {
      error_ = next.status();
      return error_;
    }
    if (*next != nullptr) {
      heads_[last_] = *next;
      heap_.push_back(last_);
      std::push_heap(heap_.begin(), heap_.end(), later);
    } else {
      heads_[last_] = nullptr;
    }
    last_ = -1;
  }
  if (heap_.empty()) return nullptr;
  std::pop_heap(heap_.begin(), heap_.end(), later);
  last_ = heap_.back();
  heap_.pop_back();
  return heads_[last_];
}

}  // namespace tracewire::reader
