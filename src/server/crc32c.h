// CRC-32C (Castagnoli), the checksum an OP_MSG carries when its checksumPresent flag is set.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mongostore::server {

/// The CRC-32C of `size` bytes at `data` (reflected polynomial 0x82F63B78, initial and final
/// XOR 0xFFFFFFFF), as the wire protocol specifies.
uint32_t crc32c(const uint8_t* data, size_t size);

}  // namespace mongostore::server
