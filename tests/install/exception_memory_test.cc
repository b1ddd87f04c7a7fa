// install/exception_memory.cc replaces libstdc++'s exception allocation in libtracewire.a.
// Linked into this test (and, through -rdynamic, used by libstdc++.so's own throws too),
// every throw, catch, rethrow and exception_ptr goes through it: a wrong header size
// would make libstdc++ read the exception's type and reference count from the wrong bytes
// (and corrupt the heap, which the asan configuration reports).
#include <cxxabi.h>

#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <typeinfo>
#include <vector>

#include "gtest/gtest.h"

extern "C" void* __cxa_allocate_exception(size_t thrown_size) noexcept;

namespace {

struct Big {
  char bytes[5000];
};

TEST(ExceptionMemoryTest, ThrowCatchKeepsTypeAndValue) {
  for (int i = 0; i < 1000; ++i) {
    try {
      throw std::runtime_error("error " + std::to_string(i));
    } catch (const std::exception& e) {
      EXPECT_EQ(*abi::__cxa_current_exception_type(), typeid(std::runtime_error));
      EXPECT_EQ(std::string(e.what()), "error " + std::to_string(i));
    }
  }
  try {
    Big big;
    memset(big.bytes, 'x', sizeof(big.bytes));
    throw big;
  } catch (const Big& b) {
    EXPECT_EQ(b.bytes[0], 'x');
    EXPECT_EQ(b.bytes[sizeof(b.bytes) - 1], 'x');
  }
}

TEST(ExceptionMemoryTest, LibstdcxxThrowsAreCaught) {
  std::string s = "abc";
  EXPECT_THROW((void)s.at(10), std::out_of_range);
  std::vector<int> v;
  EXPECT_THROW(v.reserve(v.max_size() + 1), std::length_error);
}

TEST(ExceptionMemoryTest, ExceptionPtrAndRethrow) {
  std::exception_ptr saved;
  try {
    throw 42;
  } catch (...) {
    saved = std::current_exception();
  }
  std::exception_ptr copy = saved;
  for (int i = 0; i < 3; ++i) {
    try {
      std::rethrow_exception(copy);
    } catch (int value) {
      EXPECT_EQ(value, 42);
    }
  }
  // std::make_exception_ptr and nested exceptions (dependent exceptions when rethrown).
  try {
    try {
      throw std::invalid_argument("inner");
    } catch (...) {
      std::throw_with_nested(std::runtime_error("outer"));
    }
  } catch (const std::runtime_error& outer) {
    EXPECT_STREQ(outer.what(), "outer");
    try {
      std::rethrow_if_nested(outer);
      ADD_FAILURE() << "not nested";
    } catch (const std::invalid_argument& inner) {
      EXPECT_STREQ(inner.what(), "inner");
    }
  }
  saved = nullptr;
  copy = nullptr;
}

TEST(ExceptionMemoryTest, ThreadsThrowConcurrently) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 2000; ++i) {
        try {
          throw t * 10000 + i;
        } catch (int value) {
          if (value != t * 10000 + i) std::terminate();
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
}

TEST(ExceptionMemoryTest, HeaderIsZeroedAndObjectAligned) {
  void* object = __cxa_allocate_exception(16);
  ASSERT_NE(object, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(object) % 16, 0u);
  const unsigned char* header = static_cast<unsigned char*>(object) - 128;
  for (int i = 0; i < 128; ++i) EXPECT_EQ(header[i], 0) << i;
  abi::__cxa_free_exception(object);
}

}  // namespace
