// SHA-1 (FIPS 180-4) for the host part of the session id, which git defines as the first
// eight hex digits of SHA-1(hostname). Self-contained on purpose: linking libcrypto's SHA-1
// also links OpenSSL's `.init` code, which executes CPUID about a dozen times in every
// process start (a VM exit each under virtualization), tracing on or off.
#ifndef TRACEWIRE_RUNTIME_SHA1_H_
#define TRACEWIRE_RUNTIME_SHA1_H_

#include <array>
#include <cstdint>
#include <string_view>

namespace tracewire::runtime {

// The 20-byte SHA-1 digest of `data`. Not for security: used only as a name hash.
std::array<uint8_t, 20> Sha1(std::string_view data);

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_SHA1_H_
