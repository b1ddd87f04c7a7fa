// Fixed-point decimal text of doubles, byte-identical to printf's "%.*f" and "%*.*f" (glibc:
// the exact binary value rounded to nearest, ties to even), without going through printf for
// the common case (|value| < 2^32, precision <= 9). The git targets print every time as
// "%.6f", "%9.6f" or "%8.6f".
#ifndef TRACEWIRE_READER_TARGETS_FIXED_DECIMAL_H_
#define TRACEWIRE_READER_TARGETS_FIXED_DECIMAL_H_

#include <string>

#include "reader/targets/output_cursor.h"

namespace tracewire::targets {

// Appends `value` as printf("%.*f", precision, value) writes it (precision >= 0).
void AppendFixed(double value, int precision, std::string* out);

// Appends `value` as printf("%*.*f", width, precision, value) writes it: right-aligned,
// padded with spaces on the left to at least `width` bytes.
void AppendFixedPadded(double value, int width, int precision, std::string* out);

// AppendFixed through a cursor.
void PutFixed(double value, int precision, OutputCursor& cursor);

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_FIXED_DECIMAL_H_
