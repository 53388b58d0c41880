// A memcpy for collective payloads that does not fall into glibc's
// page-aliasing trap.
//
// glibc (2.36, Debian 12) copies blocks of a few KiB to about a MiB with
// `rep movsb`. On the AMD EPYC processors of our machines that instruction
// runs about 20x slower — 2 GB/s instead of 45 — when the destination lies
// 1 to ~63 bytes past the source modulo the 4 KiB page (measured: 64 KiB,
// dst - src = 16 mod 4096: 2.4 GB/s; 0 or 64: 48 GB/s; an SSE2 loop: 37).
// It is the common case for a plugin: its staging buffers are page
// aligned, while a user's tensors from malloc start 16 bytes into a page.
// Later glibc releases avoid `rep movsb` there; this does the same now.
#ifndef STRATA_SDK_HOST_COPY_H_
#define STRATA_SDK_HOST_COPY_H_

#include <cstdint>

namespace strata::sdk {

// Copies `bytes` from `src` to `dst` (they must not overlap): std::memcpy,
// except for the aliasing distances above at the sizes glibc copies with
// `rep movsb` (2 KiB up to the L2 cache's size), which take a vector loop.
void copy_host(void* dst, const void* src, uint64_t bytes) noexcept;

// The same copy with non-temporal stores: the lines go to memory without
// first being fetched into this core's cache and, where another core holds
// them, without the exchange that fetching them from it takes. For data
// another process reads next out of shared memory (a segment's slot): on a
// host where two cores' caches are far apart, writing lines a peer has
// cached runs at a fraction of memcpy's speed (docs/performance/shm.md,
// "Staging stores"). The stores are complete (sfence) when it returns.
// Falls back to copy_host where there are no such stores.
void copy_host_streaming(void* dst, const void* src, uint64_t bytes) noexcept;

// Whether copy_host(dst, src, bytes) avoids memcpy (for tests).
bool copy_host_avoids_memcpy(const void* dst, const void* src, uint64_t bytes) noexcept;

}  // namespace strata::sdk

#endif  // STRATA_SDK_HOST_COPY_H_
