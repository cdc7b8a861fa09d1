#include "server/sessions/session_catalog.h"

#include "mongostore/error.h"

namespace mongostore::server {

using Clock = std::chrono::steady_clock;

namespace {
constexpr int32_t kTooManyLogicalSessions = 261;
}

SessionCatalog::SessionCatalog(std::chrono::milliseconds timeout, size_t max_sessions,
                               std::function<void(Session&)> cleanup)
    : timeout_(timeout), max_sessions_(max_sessions), cleanup_(std::move(cleanup)) {}

SessionCatalog::~SessionCatalog() {
  end_all();
}

// The owner's length first, so that no (lsid, owner) pair can spell another's key.
std::string SessionCatalog::map_key(const std::string& key, const std::string& owner) {
  return std::to_string(owner.size()) + ":" + owner + key;
}

std::shared_ptr<Session> SessionCatalog::find_or_create_locked(const std::string& key,
                                                               const std::string& owner) {
  auto it = sessions_.find(map_key(key, owner));
  if (it != sessions_.end()) return it->second;
  if (sessions_.size() >= max_sessions_) {
    throw Error(kTooManyLogicalSessions,
                "Unable to add session into the cache because the number of active sessions is "
                "too high (" +
                    std::to_string(sessions_.size()) + ")");
  }
  auto session = std::make_shared<Session>(key, owner);
  session->last_use = Clock::now();
  sessions_.emplace(map_key(key, owner), session);
  return session;
}

SessionCatalog::Checkout SessionCatalog::check_out(const std::string& key,
                                                   const std::string& owner) {
  expire_idle();
  for (;;) {
    std::shared_ptr<Session> session;
    {
      std::lock_guard lock(mutex_);
      session = find_or_create_locked(key, owner);
      ++session->users;
      session->last_use = Clock::now();
    }
    session->run_mutex.lock();
    if (!session->ended) return Checkout(this, std::move(session));
    // Ended while this command waited for it: clean it (its holder may not have), then take
    // the new session of the same lsid.
    clean(*session);
    session->run_mutex.unlock();
    std::lock_guard lock(mutex_);
    --session->users;
  }
}

SessionCatalog::Checkout::~Checkout() {
  if (!session_) return;
  if (session_->ended) catalog_->clean(*session_);
  session_->run_mutex.unlock();
  std::lock_guard lock(catalog_->mutex_);
  --session_->users;
  session_->last_use = Clock::now();
}

void SessionCatalog::start(const std::string& key, const std::string& owner) {
  expire_idle();
  std::lock_guard lock(mutex_);
  find_or_create_locked(key, owner);
}

void SessionCatalog::refresh(const std::string& key, const std::string& owner) {
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(map_key(key, owner));
  if (it != sessions_.end()) it->second->last_use = Clock::now();
}

void SessionCatalog::end_locked(
    std::vector<std::shared_ptr<Session>>& ended,
    std::unordered_map<std::string, std::shared_ptr<Session>>::iterator it) {
  it->second->ended = true;
  ended.push_back(std::move(it->second));
  sessions_.erase(it);
}

// Cleans each ended session now unless a command holds it (that command cleans it when it
// returns it, or the next one waiting for it does).
void SessionCatalog::finish_ending(std::vector<std::shared_ptr<Session>>& ended) {
  for (const std::shared_ptr<Session>& session : ended) {
    if (!session->run_mutex.try_lock()) continue;
    clean(*session);
    session->run_mutex.unlock();
  }
}

void SessionCatalog::end(const std::string& key, const std::string& owner) {
  std::vector<std::shared_ptr<Session>> ended;
  {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(map_key(key, owner));
    if (it == sessions_.end()) return;
    end_locked(ended, it);
  }
  finish_ending(ended);
}

void SessionCatalog::end_all() {
  std::vector<std::shared_ptr<Session>> ended;
  {
    std::lock_guard lock(mutex_);
    while (!sessions_.empty()) end_locked(ended, sessions_.begin());
  }
  finish_ending(ended);
}

void SessionCatalog::end_if(const std::function<bool(const Session&)>& which) {
  std::vector<std::shared_ptr<Session>> ended;
  {
    std::lock_guard lock(mutex_);
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      auto next = std::next(it);
      if (which(*it->second)) end_locked(ended, it);
      it = next;
    }
  }
  finish_ending(ended);
}

void SessionCatalog::end_of_any_owner(const std::string& key) {
  end_if([&](const Session& s) { return s.key == key; });
}

void SessionCatalog::end_all_of(const std::string& owner) {
  end_if([&](const Session& s) { return s.owner == owner; });
}

size_t SessionCatalog::expire_idle() {
  std::vector<std::shared_ptr<Session>> ended;
  {
    std::lock_guard lock(mutex_);
    auto now = Clock::now();
    // A scan of every session costs O(sessions); a tenth of the timeout (at most a second)
    // between scans bounds how late a session may end.
    if (now < next_expiry_) return 0;
    next_expiry_ = now + std::min<Clock::duration>(timeout_ / 10, std::chrono::seconds(1));
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      auto next = std::next(it);
      if (it->second->users == 0 && now - it->second->last_use > timeout_) end_locked(ended, it);
      it = next;
    }
  }
  finish_ending(ended);
  return ended.size();
}

size_t SessionCatalog::size() const {
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

// Runs the cleanup once per session (the holder of run_mutex calls it; later calls find
// nothing left to do because the cleanup empties the state it acts on).
void SessionCatalog::clean(Session& session) {
  if (cleanup_) cleanup_(session);
  session.transaction.reset();
  session.cursors.clear();
  session.write_reply.reset();
}

}  // namespace mongostore::server
