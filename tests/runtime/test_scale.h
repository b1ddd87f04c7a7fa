// How much of the long runtime tests' volume to run. Under ThreadSanitizer every access
// and allocation of the checking code (decoding traces into per-event objects) goes
// through shadow memory and is far slower, so those tests record a tenth of the events;
// the threads, generation switches and interleavings they exercise are the same.
#ifndef TRACEWIRE_TESTS_RUNTIME_TEST_SCALE_H_
#define TRACEWIRE_TESTS_RUNTIME_TEST_SCALE_H_

namespace tracewire::testing {

#if defined(__SANITIZE_THREAD__)
inline constexpr int kVolumeDivisor = 10;
#else
inline constexpr int kVolumeDivisor = 1;
#endif

}  // namespace tracewire::testing

#endif  // TRACEWIRE_TESTS_RUNTIME_TEST_SCALE_H_
