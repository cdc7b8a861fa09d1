#include "server/message_compression.h"

#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include <cstring>
#include <string>

#include "mongostore/error.h"
#include "mongostore/server/wire_protocol.h"

namespace mongostore::server {
namespace {

// Where the compressed bytes start: header, originalOpcode, uncompressedSize, compressorId.
constexpr size_t kCompressedPrefix = kHeaderSize + 4 + 4 + 1;

[[noreturn]] void malformed(const std::string& what) {
  throw Error(ErrorCode::kFailedToParse, "OP_COMPRESSED: " + what);
}

// Decompresses `in` into exactly `out.size()` bytes.
void decompress(Compressor compressor, std::span<const uint8_t> in, std::span<uint8_t> out) {
  const char* src = reinterpret_cast<const char*>(in.data());
  char* dst = reinterpret_cast<char*>(out.data());
  switch (compressor) {
    case Compressor::kNoop:
      if (in.size() != out.size()) malformed("noop data is not the announced size");
      std::memcpy(out.data(), in.data(), in.size());
      return;
    case Compressor::kSnappy: {
      size_t length = 0;
      if (snappy_uncompressed_length(src, in.size(), &length) != SNAPPY_OK ||
          length != out.size()) {
        malformed("snappy data is not the announced size");
      }
      if (snappy_uncompress(src, in.size(), dst, &length) != SNAPPY_OK) {
        malformed("snappy data does not decompress");
      }
      return;
    }
    case Compressor::kZlib: {
      uLongf length = static_cast<uLongf>(out.size());
      if (uncompress(out.data(), &length, in.data(), static_cast<uLong>(in.size())) != Z_OK ||
          length != out.size()) {
        malformed("zlib data does not decompress to the announced size");
      }
      return;
    }
    case Compressor::kZstd: {
      size_t length = ZSTD_decompress(dst, out.size(), src, in.size());
      if (ZSTD_isError(length) || length != out.size()) {
        malformed("zstd data does not decompress to the announced size");
      }
      return;
    }
  }
  malformed("unknown compressor");
}

std::vector<uint8_t> compress(Compressor compressor, std::span<const uint8_t> in) {
  const char* src = reinterpret_cast<const char*>(in.data());
  std::vector<uint8_t> out;
  switch (compressor) {
    case Compressor::kNoop:
      out.assign(in.begin(), in.end());
      return out;
    case Compressor::kSnappy: {
      size_t length = snappy_max_compressed_length(in.size());
      out.resize(length);
      if (snappy_compress(src, in.size(), reinterpret_cast<char*>(out.data()), &length) !=
          SNAPPY_OK) {
        throw Error(ErrorCode::kInternalError, "snappy compression failed");
      }
      out.resize(length);
      return out;
    }
    case Compressor::kZlib: {
      uLongf length = compressBound(static_cast<uLong>(in.size()));
      out.resize(length);
      if (compress2(out.data(), &length, in.data(), static_cast<uLong>(in.size()),
                    Z_DEFAULT_COMPRESSION) != Z_OK) {
        throw Error(ErrorCode::kInternalError, "zlib compression failed");
      }
      out.resize(length);
      return out;
    }
    case Compressor::kZstd: {
      out.resize(ZSTD_compressBound(in.size()));
      // Level 1: replies are compressed on the request's thread; speed matters more than the
      // last few percent of size.
      size_t length = ZSTD_compress(out.data(), out.size(), src, in.size(), 1);
      if (ZSTD_isError(length)) throw Error(ErrorCode::kInternalError, "zstd compression failed");
      out.resize(length);
      return out;
    }
  }
  throw Error(ErrorCode::kInternalError, "unknown compressor");
}

}  // namespace

std::optional<Compressor> compressor_named(std::string_view name) {
  if (name == "snappy") return Compressor::kSnappy;
  if (name == "zlib") return Compressor::kZlib;
  if (name == "zstd") return Compressor::kZstd;
  return std::nullopt;
}

std::string_view compressor_name(Compressor compressor) {
  switch (compressor) {
    case Compressor::kNoop:
      return "noop";
    case Compressor::kSnappy:
      return "snappy";
    case Compressor::kZlib:
      return "zlib";
    case Compressor::kZstd:
      return "zstd";
  }
  return "unknown";
}

std::vector<uint8_t> decompress_message(std::span<const uint8_t> message, size_t max_message_size,
                                        Compressor* used) {
  if (message.size() < kCompressedPrefix) malformed("message too short");
  int32_t original_opcode = read_int32(message.data() + kHeaderSize);
  int32_t uncompressed_size = read_int32(message.data() + kHeaderSize + 4);
  uint8_t id = message[kHeaderSize + 8];
  if (original_opcode == kOpCompressed) malformed("a compressed message inside another");
  if (uncompressed_size < 0 ||
      static_cast<size_t>(uncompressed_size) + kHeaderSize > max_message_size) {
    malformed("uncompressed size " + std::to_string(uncompressed_size) + " out of range");
  }
  if (id > static_cast<uint8_t>(Compressor::kZstd)) {
    malformed("unknown compressor id " + std::to_string(id));
  }
  auto compressor = static_cast<Compressor>(id);
  std::vector<uint8_t> plain(kHeaderSize + static_cast<size_t>(uncompressed_size));
  std::memcpy(plain.data(), message.data(), kHeaderSize);
  write_int32_at(plain.data(), static_cast<int32_t>(plain.size()));
  write_int32_at(plain.data() + 12, original_opcode);
  decompress(compressor, message.subspan(kCompressedPrefix),
             std::span<uint8_t>(plain).subspan(kHeaderSize));
  if (used != nullptr) *used = compressor;
  return plain;
}

std::vector<uint8_t> compress_message(std::span<const uint8_t> message, Compressor compressor) {
  if (message.size() < kHeaderSize) {
    throw Error(ErrorCode::kInternalError, "compress_message: not a whole message");
  }
  std::vector<uint8_t> body = compress(compressor, message.subspan(kHeaderSize));
  std::vector<uint8_t> out(kCompressedPrefix + body.size());
  std::memcpy(out.data(), message.data(), kHeaderSize);
  write_int32_at(out.data(), static_cast<int32_t>(out.size()));
  write_int32_at(out.data() + 12, kOpCompressed);
  write_int32_at(out.data() + kHeaderSize, read_int32(message.data() + 12));
  write_int32_at(out.data() + kHeaderSize + 4, static_cast<int32_t>(message.size() - kHeaderSize));
  out[kHeaderSize + 8] = static_cast<uint8_t>(compressor);
  std::memcpy(out.data() + kCompressedPrefix, body.data(), body.size());
  return out;
}

}  // namespace mongostore::server
