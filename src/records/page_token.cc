#include "records/page_token.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <variant>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"
#include "mongostore/records/errors.h"
#include "mongostore/records/value.h"
#include "records/canonical_json.h"

namespace mongostore::records {

namespace {

constexpr size_t kMaxTokenChars = 12'000;
constexpr size_t kMaxJsonBytes = 9'000;
constexpr size_t kMaxStringBytes = 4'096;
constexpr size_t kMaxIntDigits = 128;
constexpr int kTokenVersion = 3;

const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

[[noreturn]] void bad(const std::string& why) {
  throw PaginationCursorError("invalid page token: " + why);
}

std::string hex_float(double d) {
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "%a", d);
  return std::string(buf, static_cast<size_t>(n));
}

// A parsed JSON value of the token's own small grammar.
struct Json {
  std::variant<std::monostate, bool, int64_t, std::string, std::vector<Json>,
               std::map<std::string, Json>>
      v;
  CanonicalJson canonical() const {
    switch (v.index()) {
      case 0:
        return CanonicalJson();
      case 1:
        return CanonicalJson(std::get<bool>(v));
      case 2:
        return CanonicalJson(std::get<int64_t>(v));
      case 3:
        return CanonicalJson(std::get<std::string>(v));
      case 4: {
        CanonicalJson::Array a;
        for (const Json& j : std::get<4>(v)) a.push_back(j.canonical());
        return CanonicalJson(std::move(a));
      }
      default: {
        CanonicalJson::Object o;
        for (const auto& [k, j] : std::get<5>(v)) o.emplace(k, j.canonical());
        return CanonicalJson(std::move(o));
      }
    }
  }
};

// A token's JSON as Json values, read by the project's extended-JSON reader
// (bson::Document::from_json, libbson's): only null, bools, integers, strings, arrays and
// objects nested at most three deep are token values; anything else (a double, an
// extended-JSON type) is refused. The caller re-encodes the result canonically and compares
// it with the text, which refuses whitespace, key order, escapes other than CanonicalJson's,
// repeated keys and wrappers such as {"$numberLong": "1"} that the reader folds away.
Json token_value(const bson::Value& v, int depth) {
  if (depth > 3) bad("nested too deeply");
  Json j;
  switch (v.type()) {
    case bson::BsonType::kNull:
      break;
    case bson::BsonType::kBool:
      j.v = v.as_bool();
      break;
    case bson::BsonType::kInt32:
      j.v = static_cast<int64_t>(v.as_int32());
      break;
    case bson::BsonType::kInt64:
      j.v = v.as_int64();
      break;
    case bson::BsonType::kString:
      if (v.as_string().size() > kMaxStringBytes) bad("string too long");
      j.v = std::string(v.as_string());
      break;
    case bson::BsonType::kArray: {
      std::vector<Json> items;
      for (const bson::Element& e : v.as_array()) items.push_back(token_value(e.value, depth + 1));
      j.v = std::move(items);
      break;
    }
    case bson::BsonType::kDocument: {
      std::map<std::string, Json> members;
      for (const bson::Element& e : v.as_document()) {
        members.emplace(std::string(e.key), token_value(e.value, depth + 1));
      }
      j.v = std::move(members);
      break;
    }
    default:
      bad("not a token value");
  }
  return j;
}

Json parse_token_json(std::string_view json) {
  bson::Document d;
  try {
    d = bson::Document::from_json(json);
  } catch (const Error&) {
    bad("not JSON");
  }
  std::map<std::string, Json> members;
  for (const bson::Element& e : d.view()) {
    members.emplace(std::string(e.key), token_value(e.value, 1));
  }
  Json j;
  j.v = std::move(members);
  return j;
}

// The lowercase hex HMAC-SHA256 of `json` under `key`.
std::string mac_of(std::string_view json, std::string_view key) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
            reinterpret_cast<const unsigned char*>(json.data()), json.size(), out, &n)) {
    throw Error(ErrorCode::kInternalError, "HMAC-SHA256 failed");
  }
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < n; ++i) {
    hex += kHex[out[i] >> 4];
    hex += kHex[out[i] & 15];
  }
  return hex;
}

// Whether `text` is the canonical ISO text of a datetime (or a date) column value.
bool canonical_time(const std::string& text, bool date) {
  try {
    return date ? Date::parse_iso(text).iso() == text : DateTime::parse_iso(text).iso() == text;
  } catch (const std::exception&) {
    return false;
  }
}

const Json* member(const std::map<std::string, Json>& o, const char* key) {
  auto it = o.find(key);
  return it == o.end() ? nullptr : &it->second;
}

}  // namespace

std::string base64url_encode(std::string_view bytes) {
  std::string out;
  size_t i = 0;
  auto at = [&](size_t k) { return static_cast<unsigned char>(bytes[k]); };
  for (; i + 3 <= bytes.size(); i += 3) {
    unsigned v = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2);
    for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(v >> s) & 63];
  }
  size_t rest = bytes.size() - i;
  if (rest == 1) {
    unsigned v = at(i) << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
  } else if (rest == 2) {
    unsigned v = (at(i) << 16) | (at(i + 1) << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
  }
  return out;
}

bool base64url_decode(std::string_view text, std::string* out) {
  out->clear();
  if (text.size() % 4 == 1) return false;
  unsigned acc = 0;
  int bits = 0;
  for (char c : text) {
    int v;
    if (c >= 'A' && c <= 'Z') {
      v = c - 'A';
    } else if (c >= 'a' && c <= 'z') {
      v = c - 'a' + 26;
    } else if (c >= '0' && c <= '9') {
      v = c - '0' + 52;
    } else if (c == '-') {
      v = 62;
    } else if (c == '_') {
      v = 63;
    } else {
      return false;
    }
    acc = (acc << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return (acc & ((1u << bits) - 1)) == 0;  // no stray bits: one text per byte string
}

std::string encode_page_token(const PageToken& token, const std::vector<AnchorKind>& kinds,
                              std::string_view secret) {
  CanonicalJson::Array anchors;
  size_t i = 0;
  for (const auto& e : token.anchors.view()) {
    bson::Value v = e.value;
    AnchorKind kind = i < kinds.size() ? kinds[i] : AnchorKind::kString;
    ++i;
    CanonicalJson::Object a;
    switch (v.type()) {
      case bson::BsonType::kNull:
      case bson::BsonType::kEndOfDocument:
      case bson::BsonType::kUndefined:
        a.emplace("type", "null");
        break;
      case bson::BsonType::kBool:
        a.emplace("type", "bool");
        a.emplace("value", v.as_bool());
        break;
      case bson::BsonType::kInt32:
      case bson::BsonType::kInt64:
        a.emplace("type", "int");
        a.emplace("value", std::to_string(v.as_int64()));
        break;
      case bson::BsonType::kDouble:
        if (!std::isfinite(v.as_double())) {
          throw Error(ErrorCode::kBadValue, "a page anchor is not a finite number");
        }
        a.emplace("type", "float");
        a.emplace("value", hex_float(v.as_double()));
        break;
      case bson::BsonType::kString:
        a.emplace("type", kind == AnchorKind::kDateTime ? "datetime"
                          : kind == AnchorKind::kDate   ? "date"
                                                        : "str");
        a.emplace("value", std::string(v.as_string()));
        break;
      case bson::BsonType::kBinary: {
        auto b = v.as_binary();
        a.emplace("type", "bytes");
        a.emplace("value", base64url_encode(std::string_view(
                               reinterpret_cast<const char*>(b.bytes.data()), b.bytes.size())));
        break;
      }
      default:
        throw Error(ErrorCode::kBadValue, "a page anchor of an unsupported type");
    }
    anchors.emplace_back(std::move(a));
  }
  CanonicalJson::Object o;
  o.emplace("a", std::move(anchors));
  o.emplace("d", token.forward ? "forward" : "backward");
  o.emplace("f", token.fingerprint);
  o.emplace("s", token.sid);
  o.emplace("v", kTokenVersion);
  std::string unsigned_json = CanonicalJson(o).dump();
  o.emplace("m", mac_of(unsigned_json, secret));
  return base64url_encode(CanonicalJson(std::move(o)).dump());
}

PageToken decode_page_token(std::string_view text, std::string_view fingerprint,
                            const std::vector<AnchorKind>& kinds, std::string_view secret) {
  if (text.empty() || text.size() > kMaxTokenChars) bad("empty or too long");
  std::string json;
  if (!base64url_decode(text, &json)) bad("not base64url");
  if (json.size() > kMaxJsonBytes) bad("too long");
  Json parsed = parse_token_json(json);
  if (parsed.canonical().dump() != json) bad("not in canonical form");
  const auto* o = std::get_if<std::map<std::string, Json>>(&parsed.v);
  if (!o || o->size() != 6) bad("not a token object");
  const Json* a = member(*o, "a");
  const Json* d = member(*o, "d");
  const Json* f = member(*o, "f");
  const Json* s = member(*o, "s");
  const Json* v = member(*o, "v");
  if (!a || !d || !f || !s || !v) bad("missing members");
  const auto* version = std::get_if<int64_t>(&v->v);
  if (!version || *version != kTokenVersion) bad("unknown version");
  const auto* fp = std::get_if<std::string>(&f->v);
  if (!fp) bad("no fingerprint");
  if (*fp != fingerprint) {
    throw PaginationCursorError("page token belongs to a different query (or store layout)");
  }
  // The signature, before anything in the token is believed.
  const Json* m = member(*o, "m");
  const auto* mac = m ? std::get_if<std::string>(&m->v) : nullptr;
  if (!mac) bad("no signature");
  std::map<std::string, Json> rest = *o;
  rest.erase("m");
  Json unsigned_token;
  unsigned_token.v = std::move(rest);
  std::string expected = mac_of(unsigned_token.canonical().dump(), secret);
  if (mac->size() != expected.size() ||
      CRYPTO_memcmp(mac->data(), expected.data(), expected.size()) != 0) {
    throw PaginationCursorError("page token is not signed by this store (forged or foreign)");
  }
  PageToken token;
  token.fingerprint = *fp;
  const auto* dir = std::get_if<std::string>(&d->v);
  if (!dir || (*dir != "forward" && *dir != "backward")) bad("bad direction");
  token.forward = *dir == "forward";
  const auto* sid = std::get_if<int64_t>(&s->v);
  if (!sid || *sid < 1) bad("bad sid");
  token.sid = *sid;
  const auto* list = std::get_if<std::vector<Json>>(&a->v);
  if (!list || list->size() != kinds.size()) bad("wrong number of anchors");
  bson::DocumentBuilder b;
  for (size_t i = 0; i < list->size(); ++i) {
    std::string key = std::to_string(i);
    const auto* anchor = std::get_if<std::map<std::string, Json>>(&(*list)[i].v);
    if (!anchor) bad("anchor is not an object");
    const Json* type = member(*anchor, "type");
    const auto* t = type ? std::get_if<std::string>(&type->v) : nullptr;
    if (!t) bad("anchor without type");
    if (*t == "null") {
      if (anchor->size() != 1) bad("null anchor with a value");
      b.append(key, bson::Null{});
      continue;
    }
    const Json* value = member(*anchor, "value");
    if (!value || anchor->size() != 2) bad("anchor without value");
    AnchorKind kind = kinds[i];
    if (*t == "bool" && kind == AnchorKind::kBool) {
      const bool* x = std::get_if<bool>(&value->v);
      if (!x) bad("bool anchor");
      b.append(key, *x);
    } else if (*t == "int" && kind == AnchorKind::kInt) {
      const auto* x = std::get_if<std::string>(&value->v);
      if (!x || x->empty() || x->size() > kMaxIntDigits) bad("int anchor");
      errno = 0;
      char* end = nullptr;
      long long n = std::strtoll(x->c_str(), &end, 10);
      if (errno != 0 || end != x->c_str() + x->size() || std::to_string(n) != *x) {
        bad("int anchor out of range or not canonical");
      }
      b.append(key, static_cast<int64_t>(n));
    } else if (*t == "float" && kind == AnchorKind::kFloat) {
      const auto* x = std::get_if<std::string>(&value->v);
      if (!x) bad("float anchor");
      char* end = nullptr;
      double n = std::strtod(x->c_str(), &end);
      if (end != x->c_str() + x->size() || !std::isfinite(n) || hex_float(n) != *x) {
        bad("float anchor not a canonical finite hex float");
      }
      b.append(key, n);
    } else if (*t == "str" && kind == AnchorKind::kString) {
      const auto* x = std::get_if<std::string>(&value->v);
      if (!x) bad("str anchor");
      b.append(key, *x);
    } else if ((*t == "datetime" && kind == AnchorKind::kDateTime) ||
               (*t == "date" && kind == AnchorKind::kDate)) {
      const auto* x = std::get_if<std::string>(&value->v);
      if (!x || !canonical_time(*x, kind == AnchorKind::kDate)) bad(*t + " anchor");
      b.append(key, *x);
    } else if (*t == "bytes" && kind == AnchorKind::kBytes) {
      const auto* x = std::get_if<std::string>(&value->v);
      std::string raw;
      if (!x || !base64url_decode(*x, &raw)) bad("bytes anchor");
      b.append(key,
               bson::BinaryView{0, std::span<const uint8_t>(
                                       reinterpret_cast<const uint8_t*>(raw.data()), raw.size())});
    } else {
      bad("anchor " + std::to_string(i) + " of type '" + *t + "' does not fit its order key");
    }
  }
  token.anchors = b.finish();
  return token;
}

}  // namespace mongostore::records
