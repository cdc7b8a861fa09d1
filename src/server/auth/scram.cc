#include "server/auth/scram.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <vector>

#include "mongostore/error.h"
#include "server/auth/saslprep.h"

namespace mongostore::server::auth {
namespace {

const EVP_MD* digest(ScramMechanism m) {
  return m == ScramMechanism::kSha1 ? EVP_sha1() : EVP_sha256();
}

std::string hmac(ScramMechanism m, std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (HMAC(digest(m), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), out,
           &len) == nullptr) {
    throw Error(ErrorCode::kInternalError, "HMAC failed");
  }
  return std::string(reinterpret_cast<char*>(out), len);
}

std::string hash(const EVP_MD* md, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), out, &len, md, nullptr) != 1) {
    throw Error(ErrorCode::kInternalError, "digest failed");
  }
  return std::string(reinterpret_cast<char*>(out), len);
}

std::string hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

[[noreturn]] void protocol_error(const std::string& what) {
  throw Error(ErrorCode::kProtocolError, "SCRAM: " + what);
}

// One message is attributes "k=value" separated by commas.
std::vector<std::string_view> split(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    size_t comma = s.find(',', start);
    parts.push_back(s.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return parts;
}

std::string_view attribute(std::string_view part, char key) {
  if (part.size() < 2 || part[0] != key || part[1] != '=') {
    protocol_error(std::string("expected attribute '") + key + "'");
  }
  return part.substr(2);
}

// saslname: "=2C" is ',', "=3D" is '='; any other '=' is malformed (RFC 5802 5.1).
std::string unescape_user(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] != '=') {
      out += name[i];
      continue;
    }
    std::string_view code = name.substr(i + 1, 2);
    if (code == "2C") {
      out += ',';
    } else if (code == "3D") {
      out += '=';
    } else {
      protocol_error("malformed user name");
    }
    i += 2;
  }
  return out;
}

[[noreturn]] void authentication_failed() {
  throw Error(ErrorCode::kAuthenticationFailed, "Authentication failed.");
}

}  // namespace

std::string_view mechanism_name(ScramMechanism mechanism) {
  return mechanism == ScramMechanism::kSha1 ? "SCRAM-SHA-1" : "SCRAM-SHA-256";
}

std::optional<ScramMechanism> mechanism_named(std::string_view name) {
  if (name == "SCRAM-SHA-1") return ScramMechanism::kSha1;
  if (name == "SCRAM-SHA-256") return ScramMechanism::kSha256;
  return std::nullopt;
}

std::string prepared_password(ScramMechanism mechanism, std::string_view user,
                              std::string_view password) {
  if (mechanism == ScramMechanism::kSha256) return saslprep(password);
  std::string joined(user);
  joined += ":mongo:";
  joined += password;
  return hex(hash(EVP_md5(), joined));
}

ScramCredentials derive_credentials(ScramMechanism mechanism, std::string_view password,
                                    std::string_view salt, int32_t iterations) {
  const EVP_MD* md = digest(mechanism);
  std::string salted(static_cast<size_t>(EVP_MD_get_size(md)), '\0');
  if (PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                        reinterpret_cast<const unsigned char*>(salt.data()),
                        static_cast<int>(salt.size()), iterations, md,
                        static_cast<int>(salted.size()),
                        reinterpret_cast<unsigned char*>(salted.data())) != 1) {
    throw Error(ErrorCode::kInternalError, "PBKDF2 failed");
  }
  ScramCredentials c;
  c.iterations = iterations;
  c.salt = std::string(salt);
  c.stored_key = hash(md, hmac(mechanism, salted, "Client Key"));
  c.server_key = hmac(mechanism, salted, "Server Key");
  return c;
}

ScramCredentials make_credentials(ScramMechanism mechanism, std::string_view user,
                                  std::string_view password) {
  bool sha1 = mechanism == ScramMechanism::kSha1;
  return derive_credentials(mechanism, prepared_password(mechanism, user, password),
                            random_bytes(sha1 ? 16 : 28),
                            sha1 ? kDefaultSha1Iterations : kDefaultSha256Iterations);
}

std::string base64_encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()),
                          static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::string base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) protocol_error("malformed base64");
  std::string out(3 * (text.size() / 4) + 1, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()),
                          static_cast<int>(text.size()));
  if (n < 0) protocol_error("malformed base64");
  size_t pad = 0;
  if (!text.empty() && text.back() == '=') ++pad;
  if (text.size() > 1 && text[text.size() - 2] == '=') ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  // EVP_DecodeBlock skips leading and trailing blanks: demand the canonical text back.
  if (base64_encode(out) != text) protocol_error("malformed base64");
  return out;
}

std::string random_bytes(size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    throw Error(ErrorCode::kInternalError, "no random bytes");
  }
  return out;
}

ScramConversation::ScramConversation(ScramMechanism mechanism, std::string server_nonce)
    : mechanism_(mechanism),
      server_nonce_(server_nonce.empty() ? base64_encode(random_bytes(24))
                                         : std::move(server_nonce)) {}

std::string ScramConversation::first(std::string_view client_first, const Lookup& lookup) {
  if (!server_first_.empty()) protocol_error("the conversation has already started");
  // gs2-header: "n" (no channel binding) or "y" (client could but thinks we cannot), an
  // empty authzid; then client-first-bare: n=user,r=nonce[,extensions].
  std::vector<std::string_view> parts = split(client_first);
  if (parts.size() < 4) protocol_error("malformed client-first message");
  if (parts[0] != "n" && parts[0] != "y") {
    if (parts[0].starts_with("p=")) protocol_error("channel binding is not supported");
    protocol_error("malformed gs2 header");
  }
  if (!parts[1].empty()) protocol_error("an authorization identity (a=) is not supported");
  if (parts[2].starts_with("m=")) protocol_error("mandatory extensions are not supported");
  user_ = unescape_user(attribute(parts[2], 'n'));
  std::string_view client_nonce = attribute(parts[3], 'r');
  if (user_.empty() || client_nonce.empty()) protocol_error("empty user name or nonce");
  for (char c : client_nonce) {
    if (c < 0x21 || c > 0x7e || c == ',') protocol_error("malformed nonce");
  }
  gs2_header_ = std::string(parts[0]) + ",,";
  client_first_bare_ = std::string(client_first.substr(gs2_header_.size()));
  credentials_ = lookup(user_);
  if (!credentials_) authentication_failed();
  nonce_ = std::string(client_nonce) + server_nonce_;
  server_first_ = "r=" + nonce_ + ",s=" + base64_encode(credentials_->salt) +
                  ",i=" + std::to_string(credentials_->iterations);
  return server_first_;
}

std::string ScramConversation::final(std::string_view client_final) {
  if (server_first_.empty() || succeeded_) protocol_error("unexpected client-final message");
  size_t proof_at = client_final.rfind(",p=");
  if (proof_at == std::string_view::npos) protocol_error("client-final has no proof");
  std::string_view without_proof = client_final.substr(0, proof_at);
  std::vector<std::string_view> parts = split(without_proof);
  if (parts.size() < 2) protocol_error("malformed client-final message");
  if (attribute(parts[0], 'c') != base64_encode(gs2_header_)) {
    protocol_error("channel binding data does not match the gs2 header");
  }
  if (attribute(parts[1], 'r') != nonce_) authentication_failed();
  std::string proof = base64_decode(client_final.substr(proof_at + 3));
  std::string auth_message =
      client_first_bare_ + "," + server_first_ + "," + std::string(without_proof);
  std::string signature = hmac(mechanism_, credentials_->stored_key, auth_message);
  if (proof.size() != signature.size()) authentication_failed();
  std::string client_key(proof.size(), '\0');
  for (size_t i = 0; i < proof.size(); ++i)
    client_key[i] = static_cast<char>(proof[i] ^ signature[i]);
  std::string stored = hash(digest(mechanism_), client_key);
  if (stored.size() != credentials_->stored_key.size() ||
      CRYPTO_memcmp(stored.data(), credentials_->stored_key.data(), stored.size()) != 0) {
    authentication_failed();
  }
  succeeded_ = true;
  return "v=" + base64_encode(hmac(mechanism_, credentials_->server_key, auth_message));
}

}  // namespace mongostore::server::auth
