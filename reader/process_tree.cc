#include "reader/process_tree.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/str_format.h"

namespace tracewire::reader {
namespace {

// True if `ancestor` is a proper sid prefix of `sid` ("A" of "A/B/C").
bool IsAncestor(absl::string_view ancestor, absl::string_view sid) {
  return sid.size() > ancestor.size() && sid.substr(0, ancestor.size()) == ancestor &&
         sid[ancestor.size()] == '/';
}

}  // namespace

ProcessTreeReader::ProcessTreeReader(std::vector<std::unique_ptr<Reader>> readers,
                                     ProcessTreeOptions options)
    : readers_(std::move(readers)), options_(options), delivered_(readers_.size(), 0) {}

bool ProcessTreeReader::Skip(int index, const absl::Status& status) {
  if (!options_.skip_failed_inputs) return false;
  skipped_.push_back(SkippedInput{index, status, delivered_[index]});
  heads_[index] = nullptr;
  return true;
}

bool ProcessTreeReader::Later(int a, int b) const {
  const Event& x = *heads_[a];
  const Event& y = *heads_[b];
  if (x.time != y.time) return x.time > y.time;
  if (x.depth != y.depth) return x.depth > y.depth;
  return a > b;
}

int ProcessTreeReader::NodeFor(absl::string_view sid, int depth, const std::string& source) {
  auto it = by_sid_.find(sid);
  if (it != by_sid_.end()) return it->second;
  const int index = static_cast<int>(nodes_.size());
  ProcessNode& node = nodes_.emplace_back();
  node.sid = std::string(sid);
  node.source = source;
  node.depth = depth;
  by_sid_.emplace(node.sid, index);
  // Nearest known ancestor: the longest known sid prefix.
  absl::string_view prefix = sid;
  while (true) {
    const size_t slash = prefix.rfind('/');
    if (slash == absl::string_view::npos) break;
    prefix = prefix.substr(0, slash);
    auto parent = by_sid_.find(prefix);
    if (parent != by_sid_.end()) {
      nodes_[index].parent = parent->second;
      nodes_[parent->second].children.push_back(index);
      break;
    }
  }
  // Known descendants whose nearest ancestor this new node now is move under it.
  for (int i = 0; i < index; ++i) {
    ProcessNode& other = nodes_[i];
    if (!IsAncestor(nodes_[index].sid, other.sid)) continue;
    if (other.parent >= 0 && nodes_[other.parent].sid.size() > nodes_[index].sid.size()) {
      continue;
    }
    if (other.parent >= 0) {
      std::vector<int>& siblings = nodes_[other.parent].children;
      siblings.erase(std::remove(siblings.begin(), siblings.end(), i), siblings.end());
    }
    other.parent = index;
    nodes_[index].children.push_back(i);
  }
  return index;
}

absl::StatusOr<std::unique_ptr<ProcessTreeReader>> ProcessTreeReader::Create(
    std::vector<std::unique_ptr<Reader>> readers, ProcessTreeOptions options) {
  std::unique_ptr<ProcessTreeReader> tree(new ProcessTreeReader(std::move(readers), options));
  const int n = static_cast<int>(tree->readers_.size());
  tree->heads_.assign(n, nullptr);
  for (int i = 0; i < n; ++i) {
    absl::StatusOr<const Event*> first = tree->readers_[i]->Next();
    if (!first.ok()) {
      if (tree->Skip(i, first.status())) continue;
      return first.status();
    }
    if (*first == nullptr) continue;
    tree->heads_[i] = *first;
    tree->NodeFor((*first)->sid, (*first)->depth, tree->readers_[i]->name());
    tree->heap_.push_back(i);
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
  // Any number of files, within the descriptor limit.
  FileSourcePool pool;
  std::vector<std::unique_ptr<Reader>> readers;
  for (const std::string& path : paths) {
    absl::StatusOr<std::unique_ptr<ByteSource>> source = pool.Open(path);
    if (!source.ok()) return source.status();
    readers.push_back(std::make_unique<Reader>(std::move(*source), options));
  }
  return Create(std::move(readers));
}

absl::StatusOr<const Event*> ProcessTreeReader::Next() {
  if (!error_.ok()) return error_;
  auto later = [this](int a, int b) { return Later(a, b); };
  if (last_input_ >= 0) {
    absl::StatusOr<const Event*> next = readers_[last_input_]->Next();
    if (!next.ok()) {
      if (!Skip(last_input_, next.status())) {
        error_ = next.status();
        return error_;
      }
    } else if (*next != nullptr) {
      heads_[last_input_] = *next;
      heap_.push_back(last_input_);
      std::push_heap(heap_.begin(), heap_.end(), later);
    } else {
      heads_[last_input_] = nullptr;
    }
    last_input_ = -1;
  }
  if (heap_.empty()) return nullptr;
  std::pop_heap(heap_.begin(), heap_.end(), later);
  last_input_ = heap_.back();
  heap_.pop_back();
  const Event* event = heads_[last_input_];
  ++delivered_[last_input_];
  last_process_ = NodeFor(event->sid, event->depth, readers_[last_input_]->name());
  return event;
}

}  // namespace tracewire::reader
