#include "mongostore/records/content_id.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>

#include "mongostore/error.h"
#include "records/utf8.h"

namespace mongostore::records {
namespace {

constexpr char kHex[] = "0123456789abcdef";

[[noreturn]] void bad(std::string message) {
  throw Error(ErrorCode::kBadValue, std::move(message));
}

void append_hex(std::string& out, std::string_view raw) {
  size_t at = out.size();
  out.resize(at + raw.size() * 2);
  char* p = out.data() + at;
  for (unsigned char c : raw) {
    *p++ = kHex[c >> 4];
    *p++ = kHex[c & 0xF];
  }
}

void append_u_escape(std::string& out, uint32_t unit) {
  char buf[6] = {'\\',
                 'u',
                 kHex[(unit >> 12) & 0xF],
                 kHex[(unit >> 8) & 0xF],
                 kHex[(unit >> 4) & 0xF],
                 kHex[unit & 0xF]};
  out.append(buf, 6);
}

// Whether a byte is written as itself: printable ASCII except '"' and '\\'.
constexpr bool plain(unsigned char c) {
  return c >= 0x20 && c < 0x7F && c != '"' && c != '\\';
}

void append_float_hex(std::string& out, double value) {
  if (!std::isfinite(value)) bad("non-finite float values cannot have a content identity");
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if (bits >> 63) out += '-';
  uint64_t exponent = (bits >> 52) & 0x7FF;
  uint64_t fraction = bits & ((uint64_t{1} << 52) - 1);
  if (exponent == 0 && fraction == 0) {
    out += "0x0.0p+0";
    return;
  }
  out += exponent == 0 ? "0x0." : "0x1.";
  char digits[13];
  for (int i = 12; i >= 0; --i, fraction >>= 4) digits[i] = kHex[fraction & 0xF];
  out.append(digits, 13);
  int e = exponent == 0 ? -1022 : static_cast<int>(exponent) - 1023;
  out += 'p';
  out += e < 0 ? '-' : '+';
  out += std::to_string(e < 0 ? -e : e);
}

const EVP_MD* sha256_md() {
  static const EVP_MD* md = EVP_MD_fetch(nullptr, "SHA2-256", nullptr);
  if (md == nullptr) throw Error(ErrorCode::kInternalError, "OpenSSL has no SHA-256");
  return md;
}

// One digest context per thread, reused: creating and freeing one per digest costs about as
// much as hashing a small child record's form.
struct DigestContext {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  ~DigestContext() { EVP_MD_CTX_free(ctx); }
};

void append_digest_hex(std::string& out, std::string_view bytes) {
  thread_local DigestContext context;
  if (context.ctx == nullptr) throw Error(ErrorCode::kInternalError, "OpenSSL: out of memory");
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestInit_ex2(context.ctx, sha256_md(), nullptr) != 1 ||
      EVP_DigestUpdate(context.ctx, bytes.data(), bytes.size()) != 1 ||
      EVP_DigestFinal_ex(context.ctx, digest, &length) != 1) {
    throw Error(ErrorCode::kInternalError, "OpenSSL SHA-256 failed");
  }
  append_hex(out, std::string_view(reinterpret_cast<const char*>(digest), length));
}

/// Buffers for the canonical forms of nested records, one per nesting level, kept per thread
/// so that a save's many child digests reuse their capacity. A deque keeps references to a
/// level's buffer valid while deeper levels are added.
std::string& scratch(size_t level) {
  thread_local std::deque<std::string> buffers;
  while (buffers.size() <= level) buffers.emplace_back();
  std::string& buffer = buffers[level];
  buffer.clear();
  return buffer;
}

/// A scratch buffer grown by an unusually large record is given back rather than kept.
void release_if_large(std::string& buffer) {
  constexpr size_t kKeep = size_t{1} << 20;
  if (buffer.capacity() > kKeep) std::string().swap(buffer);
}

class Writer {
 public:
  explicit Writer(std::string& out, size_t level = 0) : out_(out), level_(level) {}

  void record(const IdentityNode& node, std::span<const IdentityNode::Entry> extras, int depth) {
    if (node.kind() != IdentityNode::Kind::kRecord) {
      bad("the canonical form is of a record node");
    }
    check_depth(depth);
    out_ += '{';
    if (!extras.empty()) {
      out_ += "\"extras\":";
      write_extras(extras, depth);
      out_ += ',';
    }
    out_ += "\"fields\":";
    entries(node.entries(), depth);
    out_ += ",\"identity_name\":";
    append_json_string(out_, node.text());
    out_ += ",\"type\":\"record\",\"version\":2}";
  }

  void value(const IdentityNode& node, int depth) {
    using K = IdentityNode::Kind;
    check_depth(depth);
    switch (node.kind()) {
      case K::kNull:
        out_ += "{\"type\":\"null\"}";
        return;
      case K::kBool:
        out_ += node.as_bool() ? "{\"type\":\"bool\",\"value\":true}"
                               : "{\"type\":\"bool\",\"value\":false}";
        return;
      case K::kInt:
        out_ += "{\"type\":\"int\",\"value\":\"";
        out_ += node.text();  // digits and '-' only
        out_ += "\"}";
        return;
      case K::kFloat:
        out_ += "{\"type\":\"float\",\"value\":\"";
        append_float_hex(out_, node.as_double());
        out_ += "\"}";
        return;
      case K::kString:
        out_ += "{\"type\":\"string\",\"value\":";
        append_json_string(out_, node.text());
        out_ += '}';
        return;
      case K::kBytes:
        out_ += "{\"type\":\"bytes\",\"value\":\"";
        append_hex(out_, node.text());
        out_ += "\"}";
        return;
      case K::kRational:
        out_ += "{\"type\":\"rational\",\"value\":\"";
        node.as_rational().append_to(out_);
        out_ += "\"}";
        return;
      case K::kFracVector:
        frac_vector(node);
        return;
      case K::kDatetime:
        out_ += node.aware() ? "{\"aware\":true,\"type\":\"datetime\",\"value\":\""
                             : "{\"aware\":false,\"type\":\"datetime\",\"value\":\"";
        out_ += node.text();  // ASCII digits and separators
        out_ += "\"}";
        return;
      case K::kDate:
        out_ += "{\"type\":\"date\",\"value\":\"";
        out_ += node.text();
        out_ += "\"}";
        return;
      case K::kList:
      case K::kTuple: {
        out_ += node.kind() == K::kList ? "{\"type\":\"list\",\"value\":["
                                        : "{\"type\":\"tuple\",\"value\":[";
        bool first = true;
        for (const IdentityNode& item : node.items()) {
          if (!first) out_ += ',';
          first = false;
          value(item, depth + 1);
        }
        out_ += "]}";
        return;
      }
      case K::kMapping:
        out_ += "{\"type\":\"mapping\",\"value\":";
        entries(node.entries(), depth);
        out_ += '}';
        return;
      case K::kRecordRef:
        out_ += "{\"content_id\":\"";
        out_ += node.text();
        out_ += "\",\"type\":\"record_ref\"}";
        return;
      case K::kRecord: {
        // A nested record is a Merkle reference: the digest of its own canonical form.
        std::string& child = scratch(level_ + 1);
        Writer(child, level_ + 1).record(node, {}, depth + 1);
        out_ += "{\"content_id\":\"";
        append_digest_hex(out_, child);
        release_if_large(child);
        out_ += "\",\"type\":\"record_ref\"}";
        return;
      }
      case K::kCustom:
        out_ += "{\"python_type\":";
        append_json_string(out_, node.text());
        out_ += ",\"type\":\"custom\",\"value\":";
        value(node.items()[0], depth + 1);
        out_ += '}';
        return;
    }
  }

 private:
  static void check_depth(int depth) {
    if (depth > kMaxIdentityDepth) {
      bad("identity value nests deeper than " + std::to_string(kMaxIdentityDepth) + " levels");
    }
  }

  // [[key,node],…] for entries already sorted by key (fields, mappings).
  void entries(std::span<const IdentityNode::Entry> sorted, int depth) {
    out_ += '[';
    bool first = true;
    for (const auto& [key, node] : sorted) {
      if (!first) out_ += ',';
      first = false;
      out_ += '[';
      append_json_string(out_, key);
      out_ += ',';
      value(node, depth + 1);
      out_ += ']';
    }
    out_ += ']';
  }

  void write_extras(std::span<const IdentityNode::Entry> extras, int depth) {
    // Extras come from the save call in any order: sort pointers, not copies of the nodes.
    std::vector<const IdentityNode::Entry*> sorted;
    sorted.reserve(extras.size());
    for (const auto& e : extras) {
      if (!utf8::valid(e.first)) bad("extras key is not valid UTF-8");
      sorted.push_back(&e);
    }
    std::sort(sorted.begin(), sorted.end(),
              [](const auto* a, const auto* b) { return a->first < b->first; });
    for (size_t i = 1; i < sorted.size(); ++i) {
      if (sorted[i - 1]->first == sorted[i]->first) {
        bad("duplicate extras key '" + sorted[i]->first.substr(0, 200) + "'");
      }
    }
    out_ += '[';
    for (size_t i = 0; i < sorted.size(); ++i) {
      if (i) out_ += ',';
      out_ += '[';
      append_json_string(out_, sorted[i]->first);
      out_ += ',';
      value(sorted[i]->second, depth + 1);
      out_ += ']';
    }
    out_ += ']';
  }

  void frac_vector(const IdentityNode& node) {
    // httk: {"denominator": simplified.denom, "nominators": noms} with Python ints (JSON
    // numbers) and the nominators nested as the vector's shape (a bare number for a scalar).
    out_ += "{\"type\":\"frac_vector\",\"value\":{\"denominator\":";
    out_ += node.frac_denominator();
    out_ += ",\"nominators\":";
    std::span<const std::string> noms = node.frac_nominators();
    std::span<const size_t> shape = node.frac_shape();
    size_t next = 0;
    nominators(noms, shape, next);
    out_ += "}}";
  }

  void nominators(std::span<const std::string> noms, std::span<const size_t> shape, size_t& next) {
    if (shape.empty()) {
      out_ += noms[next++];
      return;
    }
    out_ += '[';
    for (size_t i = 0; i < shape[0]; ++i) {
      if (i) out_ += ',';
      nominators(noms, shape.subspan(1), next);
    }
    out_ += ']';
  }

  std::string& out_;
  size_t level_;  // the scratch level of out_ (0: the caller's buffer)
};

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  size_t i = 0;
  while (i < s.size()) {
    size_t run = i;
    while (run < s.size() && plain(static_cast<unsigned char>(s[run]))) ++run;
    out.append(s.data() + i, run - i);
    i = run;
    if (i == s.size()) break;
    unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"':
        out += "\\\"";
        ++i;
        continue;
      case '\\':
        out += "\\\\";
        ++i;
        continue;
      case '\n':
        out += "\\n";
        ++i;
        continue;
      case '\r':
        out += "\\r";
        ++i;
        continue;
      case '\t':
        out += "\\t";
        ++i;
        continue;
      case '\b':
        out += "\\b";
        ++i;
        continue;
      case '\f':
        out += "\\f";
        ++i;
        continue;
      default:
        break;
    }
    int32_t cp = utf8::next(s, i);
    if (cp < 0) bad("string is not valid UTF-8");
    if (cp < 0x10000) {
      append_u_escape(out, static_cast<uint32_t>(cp));
    } else {
      uint32_t v = static_cast<uint32_t>(cp) - 0x10000;
      append_u_escape(out, 0xD800 | (v >> 10));
      append_u_escape(out, 0xDC00 | (v & 0x3FF));
    }
  }
  out += '"';
}

void append_canonical_form(std::string& out, const IdentityNode& record,
                           std::span<const IdentityNode::Entry> extras) {
  Writer(out).record(record, extras, 0);
}

std::string canonical_form(const IdentityNode& record,
                           std::span<const IdentityNode::Entry> extras) {
  std::string out;
  out.reserve(512);
  append_canonical_form(out, record, extras);
  return out;
}

std::string content_id(const IdentityNode& record, std::span<const IdentityNode::Entry> extras) {
  std::string& form = scratch(0);
  Writer(form, 0).record(record, extras, 0);
  std::string id;
  id.reserve(64);
  append_digest_hex(id, form);
  release_if_large(form);
  return id;
}

std::string canonical_value(const IdentityNode& value) {
  std::string out;
  Writer(out).value(value, 0);
  return out;
}

std::string float_hex(double value) {
  std::string out;
  append_float_hex(out, value);
  return out;
}

std::string sha256_hex(std::string_view bytes) {
  std::string out;
  out.reserve(64);
  append_digest_hex(out, bytes);
  return out;
}

}  // namespace mongostore::records
