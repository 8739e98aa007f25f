/*
 * arch/mem_loops.h - mem_bandwidth's streaming loops, the one place where
 * they differ by architecture (probes/mem_bandwidth.c includes this and
 * carries no #ifdef of its own):
 *   x86-64   SSE2 intrinsics (baseline x86-64, no -march needed): 16-byte
 *            loads into 4 independent accumulators, 16-byte stores, and
 *            non-temporal stores (movntdq) for write_nt;
 *   aarch64  NEON intrinsics (baseline ARMv8-A): the same shapes with
 *            128-bit q registers; no write_nt (below);
 *   others   portable C over 64-bit words, four accumulators, that the
 *            compiler may vectorise.
 * Every loop moves 128 bytes per iteration: n must be a multiple of 128
 * (the probe's blocks are 64 KiB or a slice, a multiple of MB_CHUNK 256)
 * and p 16-byte aligned (page-aligned slices).
 *
 * MB_LOOPS_KIND names the loops in the probe's log; MB_HAVE_NT says whether
 * mb_write_nt streams past the caches.  aarch64 has no plain equivalent of
 * x86's non-temporal store: STNP is only a hint that the line is not
 * reused, and cores (Cortex-A72, Neoverse N1) still allocate or merge it
 * like a normal store, so "write_nt" would measure a plain write under
 * another name: the variant is skipped there, with that reason.
 */
#ifndef SYSMETER_MEM_LOOPS_H
#define SYSMETER_MEM_LOOPS_H

#include <stddef.h>
#include <stdint.h>

#ifndef MB_NO_LIBCALL
#define MB_NO_LIBCALL __attribute__((noinline, optimize("no-tree-loop-distribute-patterns")))
#endif

#if defined(__x86_64__)
#include <emmintrin.h>

#define MB_LOOPS_KIND "SSE2, 16-byte loads and stores"
#define MB_HAVE_NT 1
#define MB_NT_WHY_NOT ""

static MB_NO_LIBCALL uint64_t mb_read(const char *p, size_t n)
{
	__m128i a0 = _mm_setzero_si128(), a1 = a0, a2 = a0, a3 = a0;
	const __m128i *v = (const __m128i *)p, *end = (const __m128i *)(p + n);

	for (; v < end; v += 8) {
		a0 = _mm_add_epi64(a0, _mm_load_si128(v + 0));
		a1 = _mm_add_epi64(a1, _mm_load_si128(v + 1));
		a2 = _mm_add_epi64(a2, _mm_load_si128(v + 2));
		a3 = _mm_add_epi64(a3, _mm_load_si128(v + 3));
		a0 = _mm_add_epi64(a0, _mm_load_si128(v + 4));
		a1 = _mm_add_epi64(a1, _mm_load_si128(v + 5));
		a2 = _mm_add_epi64(a2, _mm_load_si128(v + 6));
		a3 = _mm_add_epi64(a3, _mm_load_si128(v + 7));
	}
	a0 = _mm_add_epi64(_mm_add_epi64(a0, a1), _mm_add_epi64(a2, a3));
	return (uint64_t)_mm_cvtsi128_si64(a0) +
	       (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(a0, a0));
}

static MB_NO_LIBCALL void mb_write(char *p, size_t n, uint64_t pattern)
{
	const __m128i x = _mm_set1_epi64x((long long)pattern);
	__m128i *v = (__m128i *)p, *end = (__m128i *)(p + n);

	for (; v < end; v += 8) {
		_mm_store_si128(v + 0, x);
		_mm_store_si128(v + 1, x);
		_mm_store_si128(v + 2, x);
		_mm_store_si128(v + 3, x);
		_mm_store_si128(v + 4, x);
		_mm_store_si128(v + 5, x);
		_mm_store_si128(v + 6, x);
		_mm_store_si128(v + 7, x);
	}
}

static MB_NO_LIBCALL void mb_write_nt(char *p, size_t n, uint64_t pattern)
{
	const __m128i x = _mm_set1_epi64x((long long)pattern);
	__m128i *v = (__m128i *)p, *end = (__m128i *)(p + n);

	for (; v < end; v += 8) {
		_mm_stream_si128(v + 0, x);
		_mm_stream_si128(v + 1, x);
		_mm_stream_si128(v + 2, x);
		_mm_stream_si128(v + 3, x);
		_mm_stream_si128(v + 4, x);
		_mm_stream_si128(v + 5, x);
		_mm_stream_si128(v + 6, x);
		_mm_stream_si128(v + 7, x);
	}
}

static MB_NO_LIBCALL void mb_copy(char *d, const char *s, size_t n)
{
	__m128i *v = (__m128i *)d, *end = (__m128i *)(d + n);
	const __m128i *u = (const __m128i *)s;

	for (; v < end; v += 8, u += 8) {
		__m128i x0 = _mm_load_si128(u + 0), x1 = _mm_load_si128(u + 1);
		__m128i x2 = _mm_load_si128(u + 2), x3 = _mm_load_si128(u + 3);
		__m128i x4 = _mm_load_si128(u + 4), x5 = _mm_load_si128(u + 5);
		__m128i x6 = _mm_load_si128(u + 6), x7 = _mm_load_si128(u + 7);

		_mm_store_si128(v + 0, x0);
		_mm_store_si128(v + 1, x1);
		_mm_store_si128(v + 2, x2);
		_mm_store_si128(v + 3, x3);
		_mm_store_si128(v + 4, x4);
		_mm_store_si128(v + 5, x5);
		_mm_store_si128(v + 6, x6);
		_mm_store_si128(v + 7, x7);
	}
}

#elif defined(__aarch64__)
#include <arm_neon.h>

#define MB_LOOPS_KIND "NEON, 16-byte loads and stores"
#define MB_HAVE_NT 0
#define MB_NT_WHY_NOT "write_nt is x86's non-temporal store (movntdq); aarch64 has no " \
		      "store that surely bypasses the caches (STNP is a hint cores may ignore)"

static MB_NO_LIBCALL uint64_t mb_read(const char *p, size_t n)
{
	uint64x2_t a0 = vdupq_n_u64(0), a1 = a0, a2 = a0, a3 = a0;
	const uint64_t *v = (const uint64_t *)p, *end = (const uint64_t *)(p + n);

	for (; v < end; v += 16) {
		a0 = vaddq_u64(a0, vld1q_u64(v + 0));
		a1 = vaddq_u64(a1, vld1q_u64(v + 2));
		a2 = vaddq_u64(a2, vld1q_u64(v + 4));
		a3 = vaddq_u64(a3, vld1q_u64(v + 6));
		a0 = vaddq_u64(a0, vld1q_u64(v + 8));
		a1 = vaddq_u64(a1, vld1q_u64(v + 10));
		a2 = vaddq_u64(a2, vld1q_u64(v + 12));
		a3 = vaddq_u64(a3, vld1q_u64(v + 14));
	}
	a0 = vaddq_u64(vaddq_u64(a0, a1), vaddq_u64(a2, a3));
	return vgetq_lane_u64(a0, 0) + vgetq_lane_u64(a0, 1);
}

static MB_NO_LIBCALL void mb_write(char *p, size_t n, uint64_t pattern)
{
	const uint64x2_t x = vdupq_n_u64(pattern);
	uint64_t *v = (uint64_t *)p, *end = (uint64_t *)(p + n);

	for (; v < end; v += 16) {
		vst1q_u64(v + 0, x);
		vst1q_u64(v + 2, x);
		vst1q_u64(v + 4, x);
		vst1q_u64(v + 6, x);
		vst1q_u64(v + 8, x);
		vst1q_u64(v + 10, x);
		vst1q_u64(v + 12, x);
		vst1q_u64(v + 14, x);
	}
}

/* Never called (MB_HAVE_NT 0: setup skips the variant). */
static void mb_write_nt(char *p, size_t n, uint64_t pattern)
{
	mb_write(p, n, pattern);
}

static MB_NO_LIBCALL void mb_copy(char *d, const char *s, size_t n)
{
	uint64_t *v = (uint64_t *)d, *end = (uint64_t *)(d + n);
	const uint64_t *u = (const uint64_t *)s;

	for (; v < end; v += 16, u += 16) {
		uint64x2_t x0 = vld1q_u64(u + 0), x1 = vld1q_u64(u + 2);
		uint64x2_t x2 = vld1q_u64(u + 4), x3 = vld1q_u64(u + 6);
		uint64x2_t x4 = vld1q_u64(u + 8), x5 = vld1q_u64(u + 10);
		uint64x2_t x6 = vld1q_u64(u + 12), x7 = vld1q_u64(u + 14);

		vst1q_u64(v + 0, x0);
		vst1q_u64(v + 2, x1);
		vst1q_u64(v + 4, x2);
		vst1q_u64(v + 6, x3);
		vst1q_u64(v + 8, x4);
		vst1q_u64(v + 10, x5);
		vst1q_u64(v + 12, x6);
		vst1q_u64(v + 14, x7);
	}
}

#else

#define MB_LOOPS_KIND "portable C, 64-bit words (vectorised as the compiler sees fit)"
#define MB_HAVE_NT 0
#define MB_NT_WHY_NOT "write_nt is x86's non-temporal store (movntdq); this architecture's " \
		      "build has no streaming store"

static MB_NO_LIBCALL uint64_t mb_read(const char *p, size_t n)
{
	const uint64_t *v = (const uint64_t *)p;
	uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;

	for (size_t i = 0; i < n / 8; i += 4) {
		a0 += v[i];
		a1 += v[i + 1];
		a2 += v[i + 2];
		a3 += v[i + 3];
	}
	return a0 + a1 + a2 + a3;
}

static MB_NO_LIBCALL void mb_write(char *p, size_t n, uint64_t pattern)
{
	uint64_t *v = (uint64_t *)p;

	for (size_t i = 0; i < n / 8; i++)
		v[i] = pattern;
}

static void mb_write_nt(char *p, size_t n, uint64_t pattern)
{
	mb_write(p, n, pattern);
}

static MB_NO_LIBCALL void mb_copy(char *d, const char *s, size_t n)
{
	uint64_t *v = (uint64_t *)d;
	const uint64_t *u = (const uint64_t *)s;

	for (size_t i = 0; i < n / 8; i++)
		v[i] = u[i];
}
#endif

#endif
