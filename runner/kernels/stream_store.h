// Streaming (non-temporal) stores for large kernel outputs. A store through
// the cache first reads the line it lands in (for ownership) and later
// writes it back; a streaming store writes whole lines straight to memory,
// so a copy moves two bytes per byte instead of three. Only outputs of
// kStreamBytes or more take them: a smaller output is likely read again
// from the caches by the next kernel, where streaming it out would cost
// that kernel a trip to memory.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace etkit::rt::kernels {

// A quarter of this machine's 32 MiB L3 (docs/performance.md, "permute_copy:
// streaming stores for large outputs").
inline constexpr int64_t kStreamBytes = int64_t(8) << 20;

// Whether [p, p + n) and [q, q + m) share a byte.
inline bool bytes_overlap(const void* p, size_t n, const void* q, size_t m) {
  const auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(q);
  return a < b + m && b < a + n;
}

// Whether an elementwise output of n elements at out may be streamed while
// reading the operand at in (n elements too): big enough, and in either is
// out (in place: each element is read before it is written) or lies apart
// from it. A partial overlap keeps the plain loop's order.
template <typename T, typename U>
inline bool stream_fits(const T* in, const U* out, int64_t n) {
  return static_cast<const void*>(in) == static_cast<const void*>(out) ||
         !bytes_overlap(in, size_t(n) * sizeof(T), out, size_t(n) * sizeof(U));
}

// Orders the streaming stores before whatever the thread does next (they
// are weakly ordered; another kernel, or the caller reading out, must see
// them).
inline void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

// dst = src over n bytes (not overlapping), without the fence: ordinary
// stores up to dst's first 64-byte boundary and for the last bytes that do
// not fill 16, streaming stores of whole lines (four 16-byte stores each,
// back to back so that each line leaves its write-combining buffer whole)
// in between.
inline void stream_bytes(uint8_t* dst, const uint8_t* src, size_t n) {
#if defined(__SSE2__)
  const size_t head = std::min(n, (64 - (reinterpret_cast<uintptr_t>(dst) & 63)) & 63);
  std::memcpy(dst, src, head);
  dst += head, src += head, n -= head;
  for (; n >= 64; n -= 64, dst += 64, src += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 32));
    const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + 48), d);
  }
  for (; n >= 16; n -= 16, dst += 16, src += 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src)));
  }
#endif
  std::memcpy(dst, src, n);
}

// dst = src over n bytes that do not overlap, streamed and fenced.
inline void stream_copy(void* dst, const void* src, size_t n) {
  stream_bytes(static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), n);
  stream_fence();
}

// memmove(dst, src, n), streamed when n is kStreamBytes or more and the two
// do not overlap (the same-dtype copies: clone, _to_copy, view copies).
inline void move_bytes(void* dst, const void* src, size_t n) {
  if (int64_t(n) >= kStreamBytes && !bytes_overlap(dst, n, src, n)) return stream_copy(dst, src, n);
  std::memmove(dst, src, n);
}

// Writes out[0, n) by blocks: fill(buf, begin, len) computes elements
// [begin, begin + len) into a 1 KiB buffer, which stays in L1 and then
// streams to out. The caller's loop over the block is the one the compiler
// vectorizes anyway. The block is small so that the loads of the next one
// overlap the streaming stores of this one still draining: with 4 KiB
// blocks relu on 4M floats ran 10% slower, the loads and stores taking
// turns; with 256 bytes the calls cost more than they gained. After a
// first short block up to out's 64-byte boundary every block writes whole
// cache lines (a line written partly by ordinary and partly by streaming
// stores, block after block, was ten times slower).
template <typename T, typename Fill>
void stream_blocks(T* out, int64_t n, Fill&& fill) {
  constexpr int64_t kBlock = 1024 / int64_t(sizeof(T));
  alignas(64) T buf[kBlock];
  const auto misaligned = int64_t(reinterpret_cast<uintptr_t>(out) & 63);
  int64_t begin = misaligned == 0 ? 0 : std::min(n, (64 - misaligned) / int64_t(sizeof(T)));
  if (begin > 0) {
    fill(buf, int64_t(0), begin);
    std::memcpy(out, buf, size_t(begin) * sizeof(T));
  }
  for (; begin < n; begin += kBlock) {
    const int64_t len = std::min(kBlock, n - begin);
    fill(buf, begin, len);
    stream_bytes(reinterpret_cast<uint8_t*>(out + begin), reinterpret_cast<const uint8_t*>(buf), size_t(len) * sizeof(T));
  }
  stream_fence();
}

}  // namespace etkit::rt::kernels
