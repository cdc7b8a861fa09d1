// Raw MongoDB wire messages over a plain POSIX socket, for the server tests: they build
// OP_MSG / OP_QUERY bytes by hand (so a test can also send wrong ones) and read replies back
// without a driver in between. A CRC-32C written here, independently of the server's, checks
// the server's checksum handling against the specification rather than against itself.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"

namespace mongostore::testing {

inline constexpr int32_t kWireOpReply = 1;
inline constexpr int32_t kWireOpQuery = 2004;
inline constexpr int32_t kWireOpMsg = 2013;
inline constexpr uint32_t kWireChecksumPresent = 1u << 0;
inline constexpr uint32_t kWireMoreToCome = 1u << 1;

/// CRC-32C (Castagnoli, reflected 0x82F63B78), bit by bit: slow and obviously right.
inline uint32_t reference_crc32c(const uint8_t* data, size_t size) {
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) {
    crc ^= data[i];
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
  }
  return crc ^ 0xFFFFFFFFu;
}

inline void put_int32(std::vector<uint8_t>& out, int32_t value) {
  auto v = static_cast<uint32_t>(value);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

inline int32_t get_int32(const uint8_t* p) {
  return static_cast<int32_t>(static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
                              (static_cast<uint32_t>(p[2]) << 16) |
                              (static_cast<uint32_t>(p[3]) << 24));
}

inline void put_bytes(std::vector<uint8_t>& out, const bson::Document& doc) {
  out.insert(out.end(), doc.data(), doc.data() + doc.size());
}

inline void set_message_length(std::vector<uint8_t>& message) {
  int32_t size = static_cast<int32_t>(message.size());
  for (int i = 0; i < 4; ++i)
    message[i] = static_cast<uint8_t>(static_cast<uint32_t>(size) >> (8 * i));
}

inline std::vector<uint8_t> header(int32_t length, int32_t request_id, int32_t op_code) {
  std::vector<uint8_t> out;
  put_int32(out, length);
  put_int32(out, request_id);
  put_int32(out, 0);
  put_int32(out, op_code);
  return out;
}

/// A kind-1 section's content: identifier plus documents.
struct DocumentSequence {
  std::string identifier;
  std::vector<bson::Document> documents;
};

/// An OP_MSG with a body section and optional document sequences. With kWireChecksumPresent
/// in `flags`, a CRC-32C is appended (wrong on purpose when `corrupt_checksum`).
inline std::vector<uint8_t> op_msg(int32_t request_id, const bson::Document& body,
                                   uint32_t flags = 0,
                                   const std::vector<DocumentSequence>& sequences = {},
                                   bool corrupt_checksum = false) {
  std::vector<uint8_t> out = header(0, request_id, kWireOpMsg);
  put_int32(out, static_cast<int32_t>(flags));
  out.push_back(0);
  put_bytes(out, body);
  for (const DocumentSequence& seq : sequences) {
    out.push_back(1);
    size_t size_at = out.size();
    put_int32(out, 0);
    out.insert(out.end(), seq.identifier.begin(), seq.identifier.end());
    out.push_back(0);
    for (const bson::Document& d : seq.documents) put_bytes(out, d);
    int32_t size = static_cast<int32_t>(out.size() - size_at);
    for (int i = 0; i < 4; ++i) {
      out[size_at + i] = static_cast<uint8_t>(static_cast<uint32_t>(size) >> (8 * i));
    }
  }
  if (flags & kWireChecksumPresent) {
    out.resize(out.size() + 4);
    set_message_length(out);
    uint32_t crc = reference_crc32c(out.data(), out.size() - 4);
    if (corrupt_checksum) crc ^= 0x1u;
    out.resize(out.size() - 4);
    put_int32(out, static_cast<int32_t>(crc));
  }
  set_message_length(out);
  return out;
}

/// A legacy OP_QUERY on `collection` (e.g. "admin.$cmd") asking for one document.
inline std::vector<uint8_t> op_query(int32_t request_id, const std::string& collection,
                                     const bson::Document& query) {
  std::vector<uint8_t> out = header(0, request_id, kWireOpQuery);
  put_int32(out, 0);  // flags
  out.insert(out.end(), collection.begin(), collection.end());
  out.push_back(0);
  put_int32(out, 0);   // numberToSkip
  put_int32(out, -1);  // numberToReturn
  put_bytes(out, query);
  set_message_length(out);
  return out;
}

/// A reply as read off the socket.
struct WireReply {
  int32_t request_id = 0;
  int32_t response_to = 0;
  int32_t op_code = 0;
  uint32_t flags = 0;           // OP_MSG flagBits or OP_REPLY responseFlags
  int32_t number_returned = 0;  // OP_REPLY only
  bson::Document body;          // OP_MSG body section or OP_REPLY's first document
};

/// One TCP connection to the server. Reads give up after `receive_timeout_seconds`, so a
/// server that neither answers nor closes fails the test instead of hanging it.
class WireConnection {
 public:
  explicit WireConnection(int port, int receive_timeout_seconds = 10) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0) return;
    timeval tv{receive_timeout_seconds, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~WireConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  WireConnection(const WireConnection&) = delete;
  WireConnection& operator=(const WireConnection&) = delete;

  bool connected() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  int32_t next_request_id() { return next_request_id_++; }

  /// Writes all of `bytes`; false when the connection is gone.
  bool send(const std::vector<uint8_t>& bytes) { return send(bytes.data(), bytes.size()); }
  bool send(const uint8_t* data, size_t size) {
    while (size > 0) {
      ssize_t n = ::send(fd_, data, size, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      data += n;
      size -= static_cast<size_t>(n);
    }
    return true;
  }

  /// Waits until the server's TCP has acknowledged every byte sent so far (this socket's
  /// count of unacknowledged bytes, SIOCOUTQ, is 0): they are then in the server's receive
  /// queue, or read. send() returning says only that they left this socket; on a loaded
  /// machine the loopback may deliver them later, after what the test does next. False on
  /// an error or after `limit`.
  bool wait_until_acknowledged(std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
      int unacknowledged = 0;
      if (::ioctl(fd_, SIOCOUTQ, &unacknowledged) != 0) return false;
      if (unacknowledged == 0) return true;
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

  /// Reads one whole message, as bytes (header included). Empty when the server closed the
  /// connection.
  std::optional<std::vector<uint8_t>> receive_message() {
    uint8_t head[16];
    if (!read_exactly(head, sizeof head)) return std::nullopt;
    int32_t length = get_int32(head);
    if (length < 16) return std::nullopt;
    std::vector<uint8_t> message(static_cast<size_t>(length));
    std::memcpy(message.data(), head, 16);
    if (!read_exactly(message.data() + 16, message.size() - 16)) return std::nullopt;
    return message;
  }

  /// Reads one whole message. Empty when the server closed the connection (EOF or reset);
  /// a read timeout fails the test (the server should have answered or closed).
  std::optional<WireReply> receive() {
    uint8_t head[16];
    if (!read_exactly(head, sizeof head)) return std::nullopt;
    int32_t length = get_int32(head);
    EXPECT_GE(length, 16);
    if (length < 16) return std::nullopt;
    std::vector<uint8_t> message(static_cast<size_t>(length));
    std::memcpy(message.data(), head, 16);
    if (!read_exactly(message.data() + 16, message.size() - 16)) return std::nullopt;
    WireReply reply;
    reply.request_id = get_int32(head + 4);
    reply.response_to = get_int32(head + 8);
    reply.op_code = get_int32(head + 12);
    const uint8_t* pos = message.data() + 16;
    const uint8_t* end = message.data() + message.size();
    if (reply.op_code == kWireOpMsg) {
      reply.flags = static_cast<uint32_t>(get_int32(pos));
      pos += 4;
      EXPECT_EQ(*pos, 0) << "first section of a reply should be the body";
      ++pos;
    } else if (reply.op_code == kWireOpReply) {
      reply.flags = static_cast<uint32_t>(get_int32(pos));
      pos += 4 + 8 + 4;  // responseFlags, cursorID, startingFrom
      reply.number_returned = get_int32(pos);
      pos += 4;
    } else {
      ADD_FAILURE() << "unexpected reply opCode " << reply.op_code;
      return std::nullopt;
    }
    if (end - pos < 5) {
      ADD_FAILURE() << "reply without a document";
      return std::nullopt;
    }
    int32_t doc_size = get_int32(pos);
    if (doc_size < 5 || doc_size > end - pos) {
      ADD_FAILURE() << "reply document length out of bounds";
      return std::nullopt;
    }
    reply.body = bson::Document::from_bytes({pos, static_cast<size_t>(doc_size)});
    return reply;
  }

  /// Sends `command` as an OP_MSG and returns the reply body (empty document if closed).
  std::optional<WireReply> command(const bson::Document& command) {
    if (!send(op_msg(next_request_id(), command))) return std::nullopt;
    return receive();
  }

  /// True when a ping on this connection is answered with ok: 1.
  bool ping() {
    auto reply = command(bson::make_document("ping", 1, "$db", "admin"));
    return reply && reply->body.get("ok").number_as_double() == 1.0;
  }

  /// True when the server has closed this connection: the next read sees EOF or a reset
  /// (bytes the server sent before closing, if any, are skipped).
  bool closed_by_server() {
    uint8_t buf[4096];
    for (;;) {
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n == 0) return true;
      if (n > 0) continue;
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return false;  // still open after timeout
      return true;                                                // ECONNRESET and the like
    }
  }

 private:
  bool read_exactly(uint8_t* data, size_t size) {
    while (size > 0) {
      ssize_t n = ::recv(fd_, data, size, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        ADD_FAILURE() << "server neither answered nor closed the connection";
        return false;
      }
      if (n <= 0) return false;
      data += n;
      size -= static_cast<size_t>(n);
    }
    return true;
  }

  int fd_ = -1;
  int32_t next_request_id_ = 1000;
};

}  // namespace mongostore::testing
