// Helpers for the update tests: JSON literals, one-call apply, error expectations.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/engine/update.h"
#include "mongostore/error.h"
#include "support/json.h"

namespace mongostore::engine::update_test {

using mongostore::testing::J;

inline Update compile(std::string_view update, const std::vector<std::string>& filters = {}) {
  std::vector<bson::Document> owned;
  for (const auto& f : filters) owned.push_back(J(f));
  std::vector<bson::DocumentView> views;
  for (const auto& d : owned) views.push_back(d.view());
  bson::Document u = J(update);
  return Update::compile(u.view(), views);
}

inline Update::Result run(std::string_view doc, std::string_view update,
                          const std::vector<std::string>& filters = {},
                          std::optional<size_t> positional = std::nullopt, bool insert = false) {
  Update u = compile(update, filters);
  bson::Document d = J(doc);
  return u.apply(d.view(), positional, insert);
}

/// Canonical extended JSON, so types are compared too.
inline std::string canon(const bson::Document& d) {
  return d.to_json(bson::JsonMode::kCanonical);
}
inline std::string canon(std::string_view json) {
  return canon(J(json));
}

#define EXPECT_UPDATE(doc, update, expected)                         \
  do {                                                               \
    auto r_ = ::mongostore::engine::update_test::run(doc, update);   \
    EXPECT_EQ(::mongostore::engine::update_test::canon(r_.document), \
              ::mongostore::engine::update_test::canon(expected));   \
  } while (0)

template <class F>
void expect_error(F&& f, ErrorCode code, std::string_view message = {}) {
  try {
    f();
    ADD_FAILURE() << "expected error " << static_cast<int>(code);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), static_cast<int32_t>(code)) << e.what();
    if (!message.empty()) {
      EXPECT_EQ(std::string(e.what()), std::string(message));
    }
  }
}

inline void expect_apply_error(std::string_view doc, std::string_view update, ErrorCode code,
                               std::string_view message = {},
                               const std::vector<std::string>& filters = {}) {
  expect_error([&] { run(doc, update, filters); }, code, message);
}

inline void expect_compile_error(std::string_view update, ErrorCode code,
                                 std::string_view message = {},
                                 const std::vector<std::string>& filters = {}) {
  expect_error([&] { compile(update, filters); }, code, message);
}

}  // namespace mongostore::engine::update_test
