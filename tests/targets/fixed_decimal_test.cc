// AppendFixed/AppendFixedPadded against snprintf("%.*f") / ("%*.*f") on many values,
// including exact ties (k/128), values near rounding boundaries, subnormals and the
// printf fallback range.
#include "reader/targets/fixed_decimal.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>

#include "gtest/gtest.h"

namespace tracewire::targets {
namespace {

std::string Printf(double value, int width, int precision) {
  char buffer[512];
  snprintf(buffer, sizeof(buffer), "%*.*f", width, precision, value);
  return buffer;
}

std::string Fixed(double value, int width, int precision) {
  std::string out;
  AppendFixedPadded(value, width, precision, &out);
  return out;
}

void Check(double value) {
  for (int precision : {0, 1, 2, 6, 9, 12}) {
    ASSERT_EQ(Fixed(value, 0, precision), Printf(value, 0, precision))
        << "value " << value << " precision " << precision;
  }
  ASSERT_EQ(Fixed(value, 9, 6), Printf(value, 9, 6)) << value;
  ASSERT_EQ(Fixed(value, 8, 6), Printf(value, 8, 6)) << value;
}

TEST(FixedDecimalTest, Examples) {
  std::string out;
  AppendFixed(0.000735, 6, &out);
  EXPECT_EQ(out, "0.000735");
  out.clear();
  AppendFixedPadded(0.001196, 9, 6, &out);
  EXPECT_EQ(out, " 0.001196");
  out.clear();
  AppendFixedPadded(123.456789, 9, 6, &out);
  EXPECT_EQ(out, "123.456789");
  out.clear();
  AppendFixed(3.14159, 2, &out);
  EXPECT_EQ(out, "3.14");
}

TEST(FixedDecimalTest, SpecialValues) {
  for (double v : {0.0,
                   -0.0,
                   1.0,
                   -1.0,
                   0.5,
                   1.5,
                   2.5,
                   -2.5,
                   1e-7,
                   5e-7,
                   4.9999995e-7,
                   std::numeric_limits<double>::denorm_min(),
                   std::numeric_limits<double>::min(),
                   4294967295.9999995,
                   4294967296.0,
                   1e15,
                   1e300,
                   -1e300,
                   std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::quiet_NaN()}) {
    Check(v);
  }
}

TEST(FixedDecimalTest, ExactTiesRoundToEven) {
  // k/128 with k odd: the seventh decimal of v*10^6 is exactly 5 for many k.
  for (int k = 0; k < 200000; ++k) Check(k / 128.0);
  for (int k = 0; k < 20000; ++k) Check(k / 1024.0 + 3.0);
}

TEST(FixedDecimalTest, MicrosecondTimes) {
  // Times as the reader computes them: ticks / frequency, and us / 1e6.
  for (uint64_t us = 0; us < 3000000; us += 7) Check(static_cast<double>(us) / 1000000.0);
  for (uint64_t ticks = 0; ticks < 5000000; ticks += 131) {
    Check(static_cast<double>(ticks) / 2995200000.0 * 1000.0);
  }
}

TEST(FixedDecimalTest, RandomValues) {
  std::mt19937_64 random(42);
  std::uniform_real_distribution<double> small(0, 10);
  std::uniform_real_distribution<double> large(-5e9, 5e9);
  std::uniform_int_distribution<uint64_t> bits;
  for (int i = 0; i < 150000; ++i) {
    Check(small(random));
    Check(large(random));
    uint64_t b = bits(random);
    double v;
    memcpy(&v, &b, sizeof(v));
    Check(v);
    // Near a rounding boundary at 6 decimals.
    const double boundary = (std::floor(small(random) * 1e6) + 0.5) / 1e6;
    Check(boundary);
    Check(std::nextafter(boundary, 0));
    Check(std::nextafter(boundary, 100));
  }
}

}  // namespace
}  // namespace tracewire::targets
