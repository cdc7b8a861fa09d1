// OP_COMPRESSED (opcode 2012): a message whose body is compressed with snappy, zlib or zstd.
// Layout after the 16-byte header: originalOpcode (int32), uncompressedSize (int32),
// compressorId (uint8), then the compressed bytes of the original message minus its header.
// The compressors are agreed in the handshake (`hello.compression`); the server answers a
// compressed request with a reply compressed the same way, as mongod does.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace mongostore::server {

inline constexpr int32_t kOpCompressed = 2012;

/// The compressor ids of the wire protocol.
enum class Compressor : uint8_t { kNoop = 0, kSnappy = 1, kZlib = 2, kZstd = 3 };

/// "snappy", "zlib", "zstd" (the names drivers put in `compressors=` and `hello.compression`);
/// nullopt for a name the server does not offer.
std::optional<Compressor> compressor_named(std::string_view name);
std::string_view compressor_name(Compressor compressor);

/// The plain message inside an OP_COMPRESSED one (header included, its opcode the original
/// one), and which compressor it used. Throws Error(FailedToParse) on an unknown compressor, a
/// size over `max_message_size` or data that does not decompress to the announced size; the
/// caller then closes the connection.
std::vector<uint8_t> decompress_message(std::span<const uint8_t> message, size_t max_message_size,
                                        Compressor* used);

/// `message` (a whole plain message) wrapped as OP_COMPRESSED with `compressor`.
std::vector<uint8_t> compress_message(std::span<const uint8_t> message, Compressor compressor);

}  // namespace mongostore::server
