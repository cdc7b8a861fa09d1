// SCRAM (RFC 5802) with SHA-1 and SHA-256 (RFC 7677), the server's side, as MongoDB speaks
// it: SCRAM-SHA-1 hashes the password MongoDB's way first (hex MD5 of "user:mongo:password"),
// SCRAM-SHA-256 SASLprep-s it (saslprep.h). The server keeps only the salted keys
// (StoredKey, ServerKey), never the password, so a stolen user document does not log anyone
// in without the work of guessing the password through PBKDF2.
//
// Errors: a malformed message fails ProtocolError (17); a wrong proof, an unknown user or a
// nonce mismatch fails AuthenticationFailed (18) with the same message for each, so a
// client cannot tell which it was.
//
// Thread safety: the free functions are thread-safe; a ScramConversation belongs to one
// connection and is not shared.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace mongostore::server::auth {

enum class ScramMechanism { kSha1, kSha256 };

/// "SCRAM-SHA-1" / "SCRAM-SHA-256".
std::string_view mechanism_name(ScramMechanism mechanism);
/// The mechanism named `name`, or nullopt for any other name.
std::optional<ScramMechanism> mechanism_named(std::string_view name);

/// What the server keeps of one password for one mechanism (raw bytes, not base64).
struct ScramCredentials {
  int32_t iterations = 0;
  std::string salt;
  std::string stored_key;
  std::string server_key;
};

/// mongod's defaults and the smallest count it accepts (scramIterationCount and
/// scramSHA256IterationCount).
constexpr int32_t kDefaultSha1Iterations = 10000;
constexpr int32_t kDefaultSha256Iterations = 15000;
constexpr int32_t kMinimumIterations = 4096;

/// The password as the mechanism hashes it: hex MD5 of "user:mongo:password" for SHA-1,
/// SASLprep(password) for SHA-256 (BadValue for what saslprep() refuses).
std::string prepared_password(ScramMechanism mechanism, std::string_view user,
                              std::string_view password);

/// SaltedPassword = PBKDF2(password, salt, iterations), then ClientKey, StoredKey, ServerKey.
/// `password` is already prepared (prepared_password()).
ScramCredentials derive_credentials(ScramMechanism mechanism, std::string_view password,
                                    std::string_view salt, int32_t iterations);

/// Fresh credentials for a new password: a random salt (16 bytes for SHA-1, 28 for SHA-256,
/// as mongod) and mongod's default iteration count.
ScramCredentials make_credentials(ScramMechanism mechanism, std::string_view user,
                                  std::string_view password);

std::string base64_encode(std::string_view bytes);
/// ProtocolError (17) for text that is not canonical base64.
std::string base64_decode(std::string_view text);

/// `n` random bytes from OpenSSL's generator.
std::string random_bytes(size_t n);

/// One server-side conversation: client-first -> server-first, client-final -> server-final.
class ScramConversation {
 public:
  /// Finds the credentials of a user (nullopt: no such user, or none for this mechanism).
  using Lookup = std::function<std::optional<ScramCredentials>(const std::string& user)>;

  /// `server_nonce` is appended to the client's nonce; empty: 24 random bytes, base64.
  explicit ScramConversation(ScramMechanism mechanism, std::string server_nonce = {});

  /// Reads client-first ("n,,n=user,r=nonce") and answers server-first. ProtocolError for a
  /// malformed message or channel binding / an authorization identity (not supported);
  /// AuthenticationFailed when `lookup` knows no such user.
  std::string first(std::string_view client_first, const Lookup& lookup);

  /// Reads client-final, checks the proof and answers server-final ("v=signature").
  /// AuthenticationFailed for a wrong proof or nonce; ProtocolError for a malformed message.
  std::string final(std::string_view client_final);

  ScramMechanism mechanism() const { return mechanism_; }
  /// The user named in client-first (unescaped).
  const std::string& user() const { return user_; }
  /// True once final() accepted the proof.
  bool succeeded() const { return succeeded_; }

 private:
  ScramMechanism mechanism_;
  std::string server_nonce_;
  std::string user_;
  std::string gs2_header_;
  std::string client_first_bare_;
  std::string server_first_;
  std::string nonce_;
  std::optional<ScramCredentials> credentials_;
  bool succeeded_ = false;
};

}  // namespace mongostore::server::auth
