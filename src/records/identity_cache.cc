#include "records/identity_cache.h"

namespace mongostore::records {

std::shared_ptr<const void> IdentityCache::find(const std::string& table, int64_t sid,
                                                const std::string& type) {
  std::lock_guard lock(mu_);
  auto it = objects_.find({table, sid, type});
  if (it == objects_.end()) return nullptr;
  return it->second.lock();
}

void IdentityCache::put(const std::string& table, int64_t sid, const std::string& type,
                        const std::shared_ptr<const void>& object) {
  std::lock_guard lock(mu_);
  objects_[{table, sid, type}] = object;
  sids_[object.get()] = {object, sid};
  if (++puts_since_sweep_ > 4096) sweep_locked();
}

void IdentityCache::note_sid(const void* address, const std::shared_ptr<const void>& owner,
                             int64_t sid) {
  std::lock_guard lock(mu_);
  sids_[address] = {owner, sid};
  if (++puts_since_sweep_ > 4096) sweep_locked();
}

std::optional<int64_t> IdentityCache::sid_of(const void* address) {
  std::lock_guard lock(mu_);
  auto it = sids_.find(address);
  // An expired owner means the address may belong to a new object by now.
  if (it == sids_.end() || it->second.first.expired()) return std::nullopt;
  return it->second.second;
}

void IdentityCache::clear() {
  std::lock_guard lock(mu_);
  objects_.clear();
  sids_.clear();
}

void IdentityCache::sweep_locked() {
  puts_since_sweep_ = 0;
  std::erase_if(objects_, [](const auto& e) { return e.second.expired(); });
  std::erase_if(sids_, [](const auto& e) { return e.second.first.expired(); });
}

}  // namespace mongostore::records
