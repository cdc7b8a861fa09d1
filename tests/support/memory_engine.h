// An in-memory Engine for a test: nothing on disk, gone with its last reference. The one
// place tests spell out the options of one, so a suite says what it tests, not how an engine
// is made.
#pragma once

#include <cstddef>
#include <memory>

#include "mongostore/engine/engine.h"

namespace mongostore::testing {

/// A new in-memory engine; `cache_size_mb` is WiredTiger's cache (the engine's default
/// unless a suite opens many engines at once and wants them small).
inline std::shared_ptr<engine::Engine> memory_engine(
    size_t cache_size_mb = engine::EngineOptions().cache_size_mb) {
  engine::EngineOptions options;
  options.durability = engine::Durability::kInMemory;
  options.cache_size_mb = cache_size_mb;
  return engine::Engine::open(options);
}

}  // namespace mongostore::testing
