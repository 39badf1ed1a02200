//! The crate's SIMD: short byte comparisons and sixteen-lane tag matches, with the
//! implementation picked here, in one place, for the whole crate.
//!
//! On x86-64 (outside Miri) the [`sse2`] module answers: SSE2 is part of the x86-64
//! baseline, so no runtime detection is needed. Everywhere else the [`portable`]
//! module does, with word-sized reads. Both are compiled on x86-64 and the tests run
//! them side by side on random inputs, so the fallback is tested on every machine
//! that runs the tests.
//!
//! The safe functions below are what the rest of the crate calls; they check their
//! preconditions (or take types that carry them) and pass raw reads to the chosen
//! implementation.

/// Sixteen `u16` lanes, 16-byte aligned so that SIMD loads of them are aligned loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(16))]
pub(crate) struct Lanes16(pub(crate) [u16; 16]);

/// One `u16` repeated in eight lanes (a mask kept ready for [`match_masked`], so that a
/// lookup loads it instead of broadcasting a scalar).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(16))]
pub(crate) struct Splat8([u16; 8]);

impl Splat8 {
    pub(crate) const fn new(value: u16) -> Splat8 {
        Splat8([value; 8])
    }

    pub(crate) const fn value(&self) -> u16 {
        self.0[0]
    }
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
use sse2 as chosen;

#[cfg(not(all(target_arch = "x86_64", not(miri))))]
use portable as chosen;

/// Bit `k` set when `lanes[k] & mask == want`.
#[inline(always)]
pub(crate) fn match_masked(lanes: &Lanes16, mask: &Splat8, want: u16) -> u32 {
    chosen::match_masked(lanes, mask, want)
}

/// Bit `k` set when `a[k] & b[k]` is all ones (both lanes are `0xFFFF`).
#[inline(always)]
pub(crate) fn both_all_ones(a: &Lanes16, b: &Lanes16) -> u32 {
    chosen::both_all_ones(a, b)
}

/// Bit `k` set when lane `k`'s top bit is.
#[inline(always)]
pub(crate) fn top_bits(lanes: &Lanes16) -> u32 {
    chosen::top_bits(lanes)
}

/// `a == b`, for slices of up to 32 bytes without a call (word-sized overlapping
/// reads); longer ones compare as slices do.
#[cfg(test)]
pub(crate) fn eq_short(a: &[u8], b: &[u8]) -> bool {
    // SAFETY: `a` is readable for its length, which equals `b`'s.
    a.len() == b.len() && unsafe { eq_at(a.as_ptr(), b) }
}

/// Whether the `b.len()` bytes at `a` equal `b`: without a call up to 32 bytes
/// (word-sized overlapping reads), as slices compare beyond.
///
/// # Safety
/// `a` must be readable for `b.len()` bytes.
#[inline(always)]
pub(crate) unsafe fn eq_at(a: *const u8, b: &[u8]) -> bool {
    let n = b.len();
    let (pa, pb) = (a, b.as_ptr());
    // Each read below lies in `[0, n)` of both sides, which are `n` bytes long (the
    // caller's promise for `a`); the branch conditions bound `n` for each read.
    if n >= 8 {
        if n <= 16 {
            // SAFETY: `8 <= n <= 16`: reads at 0 and n - 8 lie in `[0, n)`.
            return unsafe { (read64(pa, 0) ^ read64(pb, 0)) | (read64(pa, n - 8) ^ read64(pb, n - 8)) == 0 };
        }
        if n <= 32 {
            // SAFETY: both are readable for `n` bytes, `17 <= n <= 32`.
            return unsafe { chosen::eq_17_to_32(pa, pb, n) };
        }
        // SAFETY: `a` is readable for `n` bytes (the caller's promise).
        return unsafe { std::slice::from_raw_parts(pa, n) } == b;
    }
    if n >= 4 {
        // SAFETY: `4 <= n < 8`: reads at 0 and n - 4 lie in `[0, n)`.
        return unsafe { (read32(pa, 0) ^ read32(pb, 0)) | (read32(pa, n - 4) ^ read32(pb, n - 4)) == 0 };
    }
    if n == 0 {
        return true;
    }
    // SAFETY: `1 <= n < 4`: bytes 0, n / 2 and n - 1 lie in `[0, n)`.
    unsafe { (*pa ^ *pb) | (*pa.add(n / 2) ^ *pb.add(n / 2)) | (*pa.add(n - 1) ^ *pb.add(n - 1)) == 0 }
}

/// An unaligned `u64` at `p + at`.
///
/// # Safety
/// `p + at .. p + at + 8` must be readable.
#[inline(always)]
unsafe fn read64(p: *const u8, at: usize) -> u64 {
    // SAFETY: the caller's promise.
    unsafe { p.add(at).cast::<u64>().read_unaligned() }
}

/// An unaligned `u32` at `p + at`.
///
/// # Safety
/// `p + at .. p + at + 4` must be readable.
#[inline(always)]
unsafe fn read32(p: *const u8, at: usize) -> u32 {
    // SAFETY: the caller's promise.
    unsafe { p.add(at).cast::<u32>().read_unaligned() }
}

/// Word-at-a-time versions, for every target.
#[cfg_attr(all(target_arch = "x86_64", not(miri)), allow(dead_code))]
mod portable {
    use super::{Lanes16, Splat8, read64};

    #[inline(always)]
    pub(super) fn match_masked(lanes: &Lanes16, mask: &Splat8, want: u16) -> u32 {
        let mask = mask.value();
        let mut bits = 0;
        for (k, &lane) in lanes.0.iter().enumerate() {
            bits |= u32::from(lane & mask == want) << k;
        }
        bits
    }

    #[inline(always)]
    pub(super) fn top_bits(lanes: &Lanes16) -> u32 {
        let mut bits = 0;
        for (k, &lane) in lanes.0.iter().enumerate() {
            bits |= u32::from(lane >> 15) << k;
        }
        bits
    }

    #[inline(always)]
    pub(super) fn both_all_ones(a: &Lanes16, b: &Lanes16) -> u32 {
        let mut bits = 0;
        for k in 0..16 {
            bits |= u32::from(a.0[k] & b.0[k] == u16::MAX) << k;
        }
        bits
    }

    /// # Safety
    /// `a` and `b` readable for `n` bytes, `17 <= n <= 32`.
    #[inline(always)]
    pub(super) unsafe fn eq_17_to_32(a: *const u8, b: *const u8, n: usize) -> bool {
        // SAFETY: with `16 < n <= 32`, reads at 0, 8, n - 16 and n - 8 lie in `[0, n)`.
        unsafe {
            (read64(a, 0) ^ read64(b, 0))
                | (read64(a, 8) ^ read64(b, 8))
                | (read64(a, n - 16) ^ read64(b, n - 16))
                | (read64(a, n - 8) ^ read64(b, n - 8))
                == 0
        }
    }
}

/// SSE2 versions (x86-64 baseline).
#[cfg(target_arch = "x86_64")]
#[cfg_attr(miri, allow(dead_code))]
mod sse2 {
    use super::{Lanes16, Splat8};
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_cmpeq_epi16, _mm_load_si128, _mm_loadu_si128, _mm_movemask_epi8,
        _mm_packs_epi16, _mm_set1_epi16,
    };

    #[inline(always)]
    pub(super) fn match_masked(lanes: &Lanes16, mask: &Splat8, want: u16) -> u32 {
        let p = lanes.0.as_ptr().cast::<__m128i>();
        // SAFETY: SSE2 is part of the x86-64 baseline. `Lanes16` is 32 bytes aligned to
        // 16, so both aligned 16-byte loads lie inside it; `Splat8` is 16 bytes aligned
        // to 16.
        unsafe {
            let m = _mm_load_si128(mask.0.as_ptr().cast::<__m128i>());
            let w = _mm_set1_epi16(want as i16);
            let lo = _mm_cmpeq_epi16(_mm_and_si128(_mm_load_si128(p), m), w);
            let hi = _mm_cmpeq_epi16(_mm_and_si128(_mm_load_si128(p.add(1)), m), w);
            // Saturating packs keep 0 and -1, so the byte mask has one bit per lane.
            _mm_movemask_epi8(_mm_packs_epi16(lo, hi)) as u32
        }
    }

    #[inline(always)]
    pub(super) fn top_bits(lanes: &Lanes16) -> u32 {
        let p = lanes.0.as_ptr().cast::<__m128i>();
        // SAFETY: SSE2 is part of the x86-64 baseline; `Lanes16` is 32 bytes aligned to
        // 16, so both aligned loads lie inside it.
        unsafe {
            // Saturating packs keep each lane's sign, which the byte mask collects.
            _mm_movemask_epi8(_mm_packs_epi16(_mm_load_si128(p), _mm_load_si128(p.add(1)))) as u32
        }
    }

    #[inline(always)]
    pub(super) fn both_all_ones(a: &Lanes16, b: &Lanes16) -> u32 {
        let (p, q) = (a.0.as_ptr().cast::<__m128i>(), b.0.as_ptr().cast::<__m128i>());
        // SAFETY: SSE2 is part of the x86-64 baseline. Each `Lanes16` is 32 bytes aligned
        // to 16, so the aligned 16-byte loads at offsets 0 and 16 lie inside it.
        unsafe {
            let ones = _mm_set1_epi16(-1);
            let lo = _mm_cmpeq_epi16(_mm_and_si128(_mm_load_si128(p), _mm_load_si128(q)), ones);
            let hi = _mm_cmpeq_epi16(_mm_and_si128(_mm_load_si128(p.add(1)), _mm_load_si128(q.add(1))), ones);
            _mm_movemask_epi8(_mm_packs_epi16(lo, hi)) as u32
        }
    }

    /// # Safety
    /// `a` and `b` readable for `n` bytes, `17 <= n <= 32`.
    #[inline(always)]
    pub(super) unsafe fn eq_17_to_32(a: *const u8, b: *const u8, n: usize) -> bool {
        // SAFETY: SSE2 is baseline; with `16 < n <= 32` the loads at 0 and n - 16 cover
        // `[0, n)` and stay inside it.
        unsafe {
            let load = |p: *const u8, at: usize| _mm_loadu_si128(p.add(at).cast::<__m128i>());
            let lo = _mm_cmpeq_epi8(load(a, 0), load(b, 0));
            let hi = _mm_cmpeq_epi8(load(a, n - 16), load(b, n - 16));
            _mm_movemask_epi8(_mm_and_si128(lo, hi)) == 0xFFFF
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift64*), so failures reproduce.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
    }

    #[test]
    fn eq_short_agrees_with_slice_equality_at_every_length() {
        for n in 0..80usize {
            let a: Vec<u8> = (0..n as u8).collect();
            assert!(eq_short(&a, &a.clone()), "{n}");
            for i in 0..n {
                let mut b = a.clone();
                b[i] ^= 1;
                assert!(!eq_short(&a, &b), "{n} {i}");
            }
            assert!(!eq_short(&a, &[a.as_slice(), b"x"].concat()), "length {n} vs {}", n + 1);
        }
    }

    #[test]
    fn both_implementations_match_the_same_lanes() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for round in 0..20_000 {
            let mut lanes = Lanes16([0; 16]);
            for lane in &mut lanes.0 {
                // Few distinct values, so that matches are common.
                *lane = ((rng.next() % 7) as u16 * 0x1111) | (rng.next() % 2) as u16;
            }
            let mask = Splat8::new(rng.next() as u16 | 0xF000);
            let want =
                if round % 2 == 0 { lanes.0[(rng.next() % 16) as usize] & mask.value() } else { rng.next() as u16 };
            let expected: u32 = (0..16).filter(|&k| lanes.0[k] & mask.value() == want).map(|k| 1 << k).sum();
            assert_eq!(portable::match_masked(&lanes, &mask, want), expected, "{lanes:?} {mask:?} {want}");
            #[cfg(target_arch = "x86_64")]
            assert_eq!(sse2::match_masked(&lanes, &mask, want), expected, "{lanes:?} {mask:?} {want}");
        }
    }

    #[test]
    fn both_implementations_find_the_same_all_ones_and_top_bit_lanes() {
        let mut rng = Rng(0x5EED);
        for _ in 0..20_000 {
            let mut a = Lanes16([0; 16]);
            let mut b = Lanes16([0; 16]);
            for k in 0..16 {
                // Mostly all ones, sometimes one bit short, in either half.
                let r = rng.next();
                a.0[k] = if r.is_multiple_of(4) { !(1 << ((r >> 8) % 16)) } else { u16::MAX };
                b.0[k] = if (r >> 4).is_multiple_of(4) { !(1 << ((r >> 16) % 16)) } else { u16::MAX };
            }
            let expected: u32 = (0..16).filter(|&k| a.0[k] & b.0[k] == u16::MAX).map(|k| 1 << k).sum();
            assert_eq!(portable::both_all_ones(&a, &b), expected, "{a:?} {b:?}");
            #[cfg(target_arch = "x86_64")]
            assert_eq!(sse2::both_all_ones(&a, &b), expected, "{a:?} {b:?}");
            let top: u32 = (0..16).filter(|&k| a.0[k] & 0x8000 != 0).map(|k| 1 << k).sum();
            assert_eq!(portable::top_bits(&a), top, "{a:?}");
            #[cfg(target_arch = "x86_64")]
            assert_eq!(sse2::top_bits(&a), top, "{a:?}");
        }
    }

    #[test]
    fn both_implementations_compare_17_to_32_bytes_alike() {
        let mut rng = Rng(7);
        for _ in 0..20_000 {
            let n = 17 + (rng.next() % 16) as usize;
            let a: Vec<u8> = (0..n).map(|_| (rng.next() % 3) as u8).collect();
            let mut b = a.clone();
            if rng.next().is_multiple_of(2) {
                let at = (rng.next() as usize) % n;
                b[at] = b[at].wrapping_add(1 + (rng.next() % 255) as u8);
            }
            let expected = a == b;
            // SAFETY: both vectors are `n` bytes long, `17 <= n <= 32`.
            assert_eq!(unsafe { portable::eq_17_to_32(a.as_ptr(), b.as_ptr(), n) }, expected);
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            assert_eq!(unsafe { sse2::eq_17_to_32(a.as_ptr(), b.as_ptr(), n) }, expected);
        }
    }
}
