// Scope naming and the recording observer (see observer.h for the names).
#include "nn/observer.h"

namespace tfp::nn {

Scope Scope::sub(std::string_view part) const {
  if (!observer) return {};
  std::string p = prefix;
  if (!p.empty()) p += '.';
  p += part;
  return Scope(observer, std::move(p));
}

Scope Scope::sub(std::string_view part, int index) const {
  if (!observer) return {};
  return sub(std::string(part) + "." + std::to_string(index));
}

std::string Scope::name(std::string_view leaf) const {
  if (prefix.empty()) return std::string(leaf);
  std::string n = prefix;
  n += '.';
  n += leaf;
  return n;
}

bool Scope::wants(std::string_view leaf) const {
  return observer && observer->wants(name(leaf));
}

void Scope::emit(std::string_view leaf, Tensor& t) const {
  if (!observer) return;
  const std::string n = name(leaf);
  if (observer->wants(n)) observer->observe(n, t);
}

// Classic '*' glob with backtracking to the last star: linear in practice for our
// short dotted names.
bool glob_match(std::string_view pattern, std::string_view name) {
  size_t p = 0, n = 0, star = std::string_view::npos, mark = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = n;
    } else if (p < pattern.size() && pattern[p] == name[n]) {
      ++p;
      ++n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

RecordingObserver::RecordingObserver(std::vector<std::string> patterns)
    : patterns_(std::move(patterns)) {}

bool RecordingObserver::wants(std::string_view name) const {
  for (const std::string& pat : patterns_) {
    if (pat.find('*') != std::string::npos) {
      if (glob_match(pat, name)) return true;
    } else if (name == pat ||
               (name.size() > pat.size() && name.substr(0, pat.size()) == pat &&
                name[pat.size()] == '.')) {
      return true;
    }
  }
  return false;
}

void RecordingObserver::observe(std::string_view name, Tensor& t) {
  records_.emplace_back(std::string(name), t);  // a copy: the forward pass reuses its buffers
}

bool RecordingObserver::has(std::string_view name) const {
  for (const auto& r : records_)
    if (r.first == name) return true;
  return false;
}

const Tensor& RecordingObserver::get(std::string_view name) const {
  // The latest record wins: a KV-cached decode reports the same name once per step.
  for (auto it = records_.rbegin(); it != records_.rend(); ++it)
    if (it->first == name) return it->second;
  std::string known;
  for (const auto& r : records_) known += (known.empty() ? "" : ", ") + r.first;
  TFP_FAIL("RecordingObserver: nothing recorded as \"", std::string(name), "\"; recorded: [",
           known, "]");
}

bool ChainObserver::wants(std::string_view name) const {
  return (first_ && first_->wants(name)) || (second_ && second_->wants(name));
}

void ChainObserver::observe(std::string_view name, Tensor& t) {
  if (first_ && first_->wants(name)) first_->observe(name, t);
  if (second_ && second_->wants(name)) second_->observe(name, t);
}

}  // namespace tfp::nn
