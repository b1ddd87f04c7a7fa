// Wire-format constants shared by the runtime (writer) and the reader.
// docs/format.md is the byte-exact contract these values implement.
#ifndef TRACEWIRE_FORMAT_CONSTANTS_H_
#define TRACEWIRE_FORMAT_CONSTANTS_H_

#include <cstddef>
#include <cstdint>

namespace tracewire::format {

// Version written into the file header. Bump together with docs/format.md.
// Version 2 added the `module` record of stack tables and the file header flags; version 3
// added the task and gauge rows (50-56) and the CPU profile rows (cpu_sample,
// cpu_samples_lost: 60-61); version 4 added the kernel thread id (`tid`) to thread_start and
// thread_status. Readers also read versions 1 to 3.
inline constexpr uint32_t kFormatVersion = 4;

// The format version that added the kernel thread id to thread_start and thread_status.
inline constexpr uint32_t kThreadIdVersion = 4;

// File header flags (bytes 12-15, version 2 on; zero in version 1).
// The trace is a flight-recorder dump: the most recent generations a process kept in
// memory, written on demand, so it need not start at the process's first generation.
inline constexpr uint32_t kFileFlagFlightRecorderDump = 1;
// Every flag this build knows; a header with another bit set is rejected.
inline constexpr uint32_t kKnownFileFlags = kFileFlagFlightRecorderDump;

// The file starts with these 8 bytes ("\x89TWR\r\n\x1a\n"), then the little-endian
// uint32 format version, then the little-endian uint32 flags (kFileFlag*).
inline constexpr unsigned char kFileMagic[8] = {0x89, 'T', 'W', 'R', '\r', '\n', 0x1a, '\n'};
inline constexpr size_t kFileHeaderSize = 16;

// A batch (header and body together) never exceeds 64 KiB.
inline constexpr size_t kMaxBatchSize = 64 * 1024;

// Largest encoded batch header: type byte plus four 10-byte varints.
inline constexpr size_t kMaxBatchHeaderSize = 1 + 4 * 10;

// A stack record holds at most this many frames.
inline constexpr size_t kMaxFramesPerStack = 128;

// Largest data trailer of one record inside a batch (string, string_part, experimental
// event). Longer strings are split into string_part records followed by one string
// record, all with the same ID; readers concatenate them.
inline constexpr size_t kMaxRecordDataSize = 32 * 1024;

// Largest string (after concatenating its parts) a reader must accept and a writer may
// emit. Strings and JSON values of up to this size travel whole.
inline constexpr size_t kMaxStringSize = 16 * 1024 * 1024;

// Largest uncompressed generation, and largest compressed_generation payload.
inline constexpr size_t kMaxGenerationSize = 256 * 1024 * 1024;

// Maximum number of varint arguments of one event (dt included).
inline constexpr size_t kMaxArgs = 8;

// Maximum encoded size of one unsigned LEB128 value.
inline constexpr size_t kMaxVarintSize = 10;

// Thread ID used in batch headers for data that belongs to no thread.
inline constexpr uint64_t kNoThread = ~uint64_t{0};

// First event type number of the experimental range.
inline constexpr uint8_t kFirstExperimentalType = 128;

// The runtime's own `counter` site: with compression asked for, the number of generations
// before the last that were written uncompressed (recorded at exit when not zero).
inline constexpr char kRuntimeCategory[] = "tracewire";
inline constexpr char kUncompressedGenerationsLabel[] = "uncompressed_generations";

}  // namespace tracewire::format

#endif  // TRACEWIRE_FORMAT_CONSTANTS_H_
