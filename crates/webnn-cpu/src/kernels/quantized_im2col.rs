//! The uint8 im2col of the quantized conv2d ([`super::quantized`]): the same tile as the
//! generic [`im2col_nchw`] for `u8` (row (ci, kh, kw), column output pixel, padding = the
//! input's zero point), byte for byte, but built with AVX-512BW where the width axis allows.
//!
//! The generic code builds each row from one short segment per output row (56 bytes for
//! ResNet-50's 56 × 56 stage) with `fill` / `copy_from_slice` calls and the index arithmetic
//! around them. Here a segment of up to 64 outputs (32 at width stride 2) is one masked byte
//! load of the input row, whose masked-off lanes (the padding columns) take the pad value,
//! and one masked store: no branches on the padding, no calls; where a whole output row fits
//! one vector (ow ≤ 64, or 32 at stride 2), its masks are the same for every output row of
//! the im2col row and are computed once. Width stride 2 loads 64 input bytes and keeps the
//! even ones (`vpmovwb`, the low byte of each 16-bit lane), which AVX-512BW has (no VBMI
//! needed). Other width strides and dilations, and CPUs without AVX-512BW, run the generic
//! code.

use super::conv::{im2col_nchw, Geom};

/// Tiles of at least this many bytes are filled by several threads (one task per row), as
/// [`im2col_nchw`] splits them.
#[cfg(target_arch = "x86_64")]
const PARALLEL_MIN: usize = 1 << 15;

/// [`im2col_nchw`] for uint8 inputs: the im2col tile of the group's input planes `xg` for
/// output pixels `p0..p0 + pcount`, row (ci, kh, kw), column pixel; padding reads `pad`.
/// Same bytes as `im2col_nchw::<u8>`; AVX-512BW where the width dilation is 1 and the width
/// stride 1 or 2.
pub(super) fn im2col_nchw_u8(g: &Geom, xg: &[u8], p0: usize, pcount: usize, col: &mut [u8], pad: u8) {
    #[cfg(target_arch = "x86_64")]
    if pcount > 0 && vector_applies(g) && has_avx512bw() {
        let row = |r: usize, dst: &mut [u8]| {
            // SAFETY: `avx512::row` only requires AVX-512F, BW and VL, which `has_avx512bw`
            // just detected; it checks every bound itself.
            unsafe { avx512::row(g, xg, p0, r, dst, pad) }
        };
        if col.len() >= PARALLEL_MIN {
            crate::par::chunks(col, pcount, row);
        } else {
            col.chunks_mut(pcount).enumerate().for_each(|(r, dst)| row(r, dst));
        }
        return;
    }
    im2col_nchw(g, xg, p0, pcount, col, pad)
}

/// Whether the vector code takes this geometry: width dilation 1, width stride 1 or 2 (the
/// height axis only picks the input row, so any stride and dilation there).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn vector_applies(g: &Geom) -> bool {
    g.dilations[1] == 1 && matches!(g.strides[1], 1 | 2)
}

/// True if the CPU has AVX-512F, VL (with AVX2 and FMA, as [`super::unary::has_avx512`]
/// requires) and BW (detected once, cached by std).
#[cfg(target_arch = "x86_64")]
fn has_avx512bw() -> bool {
    super::unary::has_avx512() && std::is_x86_feature_detected!("avx512bw")
}

/// Bits `lo..hi` of a 64-bit mask (`lo ≤ hi ≤ 64`; empty when `lo == hi`).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
fn bits(lo: usize, hi: usize) -> u64 {
    debug_assert!(lo <= hi && hi <= 64);
    let below = |n: usize| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    below(hi) & !below(lo)
}

/// The AVX-512BW rows of [`im2col_nchw_u8`].
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::super::conv::{span, Geom};
    use super::bits;
    use std::arch::x86_64::*;

    /// The even bits of a 64-bit mask: the low byte of each 16-bit lane.
    const EVEN: u64 = 0x5555_5555_5555_5555;

    /// Row `r` = (ci, kh, kw) of the tile: output pixels `p0..p0 + dst.len()`, padding `pad`.
    /// Needs width dilation 1 and width stride 1 or 2 ([`super::vector_applies`]); panics
    /// (as the generic code does) if `xg` lacks channel `ci`'s plane.
    ///
    /// # Safety
    /// The CPU must support AVX-512F, AVX-512BW and AVX-512VL. Nothing else: every access is
    /// checked or derived from checked slices below.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub(super) unsafe fn row(g: &Geom, xg: &[u8], p0: usize, r: usize, dst: &mut [u8], pad: u8) {
        debug_assert!(super::vector_applies(g));
        let hw = g.h * g.w;
        let (ci, k) = (r / g.kk(), r % g.kk());
        let (kh, kw) = (k / g.kw, k % g.kw);
        // Output columns lo..hi read the input row; the others its padding.
        let (lo, hi) = span(g.ow, g.strides[1], kw, g.padding[2], g.w);
        let tap = Tap { g, xp: &xg[ci * hw..][..hw], kh, kw, lo, hi, padv: _mm512_set1_epi8(pad as i8) };
        let (ow, pcount) = (g.ow, dst.len());
        let (mut oh, ow0) = (p0 / ow, p0 % ow);
        let mut p = 0;
        if ow0 != 0 {
            // The rest of an output row the previous tile began.
            p = (ow - ow0).min(pcount);
            tap.segment(oh, ow0, &mut dst[..p]);
            oh += 1;
        }
        let whole = (pcount - p) / ow * ow;
        let rows = &mut dst[p..p + whole];
        if ow * g.strides[1] <= 64 {
            tap.whole_rows(oh, rows);
        } else {
            for (i, d) in rows.chunks_exact_mut(ow).enumerate() {
                tap.segment(oh + i, 0, d);
            }
        }
        p += whole;
        oh += whole / ow;
        if p < pcount {
            // The start of an output row the next tile ends.
            tap.segment(oh, 0, &mut dst[p..]);
        }
    }

    /// What one im2col row (ci, kh, kw) reads: output pixel (oh, ow) is input column
    /// `ow · stride + kw − pl` of input row `oh · sH + kh · dH − pt` of the plane `xp`, or the
    /// pad where that lies outside the plane.
    struct Tap<'a> {
        /// The convolution.
        g: &'a Geom,
        /// Input plane ci, h × w.
        xp: &'a [u8],
        /// The filter row.
        kh: usize,
        /// The filter column (the width dilation is 1).
        kw: usize,
        /// First output column that reads the input row ([`span`]).
        lo: usize,
        /// One past the last output column that reads the input row (`lo ≤ hi ≤ ow`).
        hi: usize,
        /// The pad byte in every lane.
        padv: __m512i,
    }

    impl Tap<'_> {
        /// The input row output row `oh` reads, if not in the padding.
        #[inline(always)]
        fn input_row(&self, oh: usize) -> Option<usize> {
            let g = self.g;
            (oh * g.strides[0] + self.kh * g.dilations[0]).checked_sub(g.padding[0]).filter(|&i| i < g.h)
        }

        /// The output columns `a..b` of `c0..c0 + n` that read the input row (`a == b` if
        /// none).
        #[inline(always)]
        fn valid(&self, c0: usize, n: usize) -> (usize, usize) {
            let a = self.lo.clamp(c0, c0 + n);
            (a, self.hi.clamp(a, c0 + n))
        }

        /// Output row `oh`, columns `ow0..ow0 + d.len()` (within the row), into `d`.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
        fn segment(&self, oh: usize, ow0: usize, d: &mut [u8]) {
            match self.input_row(oh) {
                None => fill(d, self.padv),
                Some(ih) => {
                    let xrow = &self.xp[ih * self.g.w..][..self.g.w];
                    if self.g.strides[1] == 1 {
                        self.segment_stride1(xrow, ow0, d)
                    } else {
                        self.segment_stride2(xrow, ow0, d)
                    }
                }
            }
        }

        /// Whole output rows `oh0..oh0 + d.len() / ow` (`d.len()` a multiple of ow) where one
        /// vector holds a row (`ow · stride ≤ 64`): one masked load and store per row, with
        /// the masks, the same for every row, computed once.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
        fn whole_rows(&self, oh0: usize, d: &mut [u8]) {
            let g = self.g;
            let (ow, stride, pl) = (g.ow, g.strides[1], g.padding[2]);
            debug_assert!(ow * stride <= 64 && d.len().is_multiple_of(ow));
            // Lane i (stride 1) or 2i (stride 2) reads output column i.
            let load = if stride == 1 { bits(self.lo, self.hi) } else { EVEN & bits(2 * self.lo, 2 * self.hi) };
            let store = bits(0, ow);
            for (i, out) in d.chunks_exact_mut(ow).enumerate() {
                let v = match self.input_row(oh0 + i) {
                    None => self.padv,
                    Some(ih) => {
                        // Lane i · stride reads plane byte ih · w + i · stride + kw − pl; the
                        // address may lie outside the plane (padding lanes), hence wrapping.
                        let src = self.xp.as_ptr().wrapping_add(ih * g.w + self.kw).wrapping_sub(pl);
                        // SAFETY: the load reads only the lanes set in `load`, i · stride for
                        // output columns i in lo..hi (the others are not accessed and take the
                        // pad): input columns i · stride + kw − pl in 0..w by span, of row
                        // ih < h, so plane bytes below h · w = xp.len().
                        unsafe { _mm512_mask_loadu_epi8(self.padv, load, src.cast()) }
                    }
                };
                if stride == 1 {
                    // SAFETY: the store writes lanes 0..ow only, the bytes of `out`.
                    unsafe { _mm512_mask_storeu_epi8(out.as_mut_ptr().cast(), store, v) };
                } else {
                    // The low (even) byte of each 16-bit lane: output i in byte i.
                    let even = _mm512_cvtepi16_epi8(v);
                    // SAFETY: the store writes lanes 0..ow (≤ 32) only, the bytes of `out`.
                    unsafe { _mm256_mask_storeu_epi8(out.as_mut_ptr().cast(), store as u32, even) };
                }
            }
        }

        /// One output row segment at width stride 1, columns `ow0..ow0 + d.len()` of input row
        /// `xrow`: `d[i]` = `xrow[ow0 + i + kw − pl]`, or the pad where that lies outside the
        /// row; 64 outputs per masked load and store.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
        fn segment_stride1(&self, xrow: &[u8], ow0: usize, d: &mut [u8]) {
            let mut j = 0;
            while j < d.len() {
                let n = (d.len() - j).min(64);
                let c0 = ow0 + j;
                let (a, b) = self.valid(c0, n);
                // Lane i reads input column c0 + i + kw − pl; the address may lie outside the
                // row (the padding lanes), hence wrapping arithmetic and no reference to it.
                let src = xrow.as_ptr().wrapping_add(c0 + self.kw).wrapping_sub(self.g.padding[2]);
                // SAFETY: the load reads only the lanes set in its mask, i = a − c0..b − c0 (the
                // others are not accessed and take the pad): input columns a + kw − pl ..
                // b + kw − pl, inside `xrow` because output columns a..b lie in span's lo..hi.
                let v = unsafe { _mm512_mask_loadu_epi8(self.padv, bits(a - c0, b - c0), src.cast()) };
                // SAFETY: the store writes lanes 0..n only, bytes d[j..j + n], inside `d`.
                unsafe { _mm512_mask_storeu_epi8(d.as_mut_ptr().add(j).cast(), bits(0, n), v) };
                j += n;
            }
        }

        /// One output row segment at width stride 2, columns `ow0..ow0 + d.len()` of input row
        /// `xrow`: `d[i]` = `xrow[2(ow0 + i) + kw − pl]`, or the pad where that lies outside
        /// the row; 32 outputs per masked 64-byte load (the even bytes, kept by `vpmovwb`)
        /// and masked store.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
        fn segment_stride2(&self, xrow: &[u8], ow0: usize, d: &mut [u8]) {
            let mut j = 0;
            while j < d.len() {
                let n = (d.len() - j).min(32);
                let c0 = ow0 + j;
                let (a, b) = self.valid(c0, n);
                // Byte lane 2i reads input column 2(c0 + i) + kw − pl (odd lanes are never
                // read); the address may lie outside the row, hence wrapping arithmetic.
                let src = xrow.as_ptr().wrapping_add(2 * c0 + self.kw).wrapping_sub(self.g.padding[2]);
                let mask = EVEN & bits(2 * (a - c0), 2 * (b - c0));
                // SAFETY: the load reads only the lanes set in `mask`, 2i for i = a − c0..b − c0
                // (the others are not accessed and take the pad): input columns 2a + kw − pl,
                // 2(a + 1) + kw − pl, .. 2(b − 1) + kw − pl, inside `xrow` because output
                // columns a..b lie in span's lo..hi.
                let v = unsafe { _mm512_mask_loadu_epi8(self.padv, mask, src.cast()) };
                // The low (even) byte of each 16-bit lane: output i in byte i.
                let even = _mm512_cvtepi16_epi8(v);
                // SAFETY: the store writes lanes 0..n only, bytes d[j..j + n], inside `d`.
                unsafe { _mm256_mask_storeu_epi8(d.as_mut_ptr().add(j).cast(), bits(0, n) as u32, even) };
                j += n;
            }
        }
    }

    /// `d.fill(pad)` with 64-byte masked stores (a whole output row in the padding).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    fn fill(d: &mut [u8], padv: __m512i) {
        let mut j = 0;
        while j < d.len() {
            let n = (d.len() - j).min(64);
            // SAFETY: the store writes lanes 0..n only, bytes d[j..j + n], inside `d`.
            unsafe { _mm512_mask_storeu_epi8(d.as_mut_ptr().add(j).cast(), bits(0, n), padv) };
            j += n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The output size of one axis, or None if the window does not fit the padded input.
    fn out_size(len: usize, k: usize, s: usize, d: usize, pb: usize, pe: usize) -> Option<usize> {
        let window = d * (k - 1) + 1;
        (len + pb + pe >= window).then(|| (len + pb + pe - window) / s + 1)
    }

    /// Pixel tiles of `pixels` output pixels `ow` to a row: the whole image, tiles that start
    /// and end mid-row, one pixel.
    fn tiles(pixels: usize, ow: usize) -> Vec<(usize, usize)> {
        let a = (ow / 2 + 1).min(pixels - 1);
        let b = (2 * ow + 3).min(pixels - 1);
        let mut t = vec![(0, pixels), (a, pixels - a), (a, (pixels - a).min(ow + ow / 2 + 1)), (pixels - 1, 1)];
        t.push((b, (pixels - b).min(3 * ow / 2 + 2)));
        t.push((0, (pixels / 2).max(1)));
        t
    }

    /// Runs the new and the generic im2col on one geometry (every tile of [`tiles`], pads 0
    /// and 128) and compares them byte for byte; returns how many tiles it compared.
    fn compare(g: &Geom, x: &[u8]) -> usize {
        let pixels = g.oh * g.ow;
        let rows = g.cig() * g.kk();
        let mut count = 0;
        for (p0, pc) in tiles(pixels, g.ow) {
            for pad in [0u8, 128] {
                let mut want = vec![0xa5u8; rows * pc];
                let mut got = vec![0x5au8; rows * pc];
                im2col_nchw(g, x, p0, pc, &mut want, pad);
                im2col_nchw_u8(g, x, p0, pc, &mut got, pad);
                if let Some(i) = want.iter().zip(&got).position(|(a, b)| a != b) {
                    panic!("{g:?} p0 {p0} pcount {pc} pad {pad}: first difference at {i} (row {})", i / pc);
                }
                count += 1;
            }
        }
        count
    }

    /// The tile's bytes equal the generic im2col's over a grid of kernels (1, 3, 5, 7),
    /// strides (1, 2, 3 and mixed), dilations (1, 2), symmetric and asymmetric paddings,
    /// widths 1 to 130 (rows over 64 bytes), partial pixel tiles and pads 0 and 128.
    #[test]
    fn matches_generic_im2col() {
        let mut rng = webnn_core::testing::Rng::new(17);
        let mut compared = 0;
        for k in [1, 3, 5, 7] {
            for strides in [[1, 1], [2, 2], [3, 3], [1, 2], [2, 1]] {
                for dilations in [[1, 1], [2, 2], [2, 1], [1, 2]] {
                    for padding in [[0; 4], [1; 4], [3; 4], [0, 2, 1, 3], [2, 0, 3, 0], [1, 3, 0, 2]] {
                        for w in [1, 7, 14, 56, 70, 130] {
                            let (cin, h) = (2, 9);
                            let [pt, pb, pl, pr] = padding;
                            let Some(oh) = out_size(h, k, strides[0], dilations[0], pt, pb) else { continue };
                            let Some(ow) = out_size(w, k, strides[1], dilations[1], pl, pr) else { continue };
                            let g = Geom {
                                n: 1,
                                cin,
                                h,
                                w,
                                cout: 4,
                                oh,
                                ow,
                                kh: k,
                                kw: k,
                                groups: 1,
                                strides,
                                dilations,
                                padding,
                                nhwc: false,
                            };
                            let x: Vec<u8> = (0..cin * h * w).map(|_| rng.next_u64() as u8).collect();
                            compared += compare(&g, &x);
                        }
                    }
                }
            }
        }
        assert!(compared > 10_000, "only {compared} tiles compared");
    }

    /// Non-square kernels, a grouped conv (the group's planes only) and a tile large enough to
    /// be filled by several threads.
    #[test]
    fn matches_generic_im2col_odd_shapes() {
        let mut rng = webnn_core::testing::Rng::new(23);
        let base = Geom {
            n: 1,
            cin: 4,
            h: 13,
            w: 67,
            cout: 4,
            oh: 0,
            ow: 0,
            kh: 1,
            kw: 1,
            groups: 1,
            strides: [1, 1],
            dilations: [1, 1],
            padding: [0; 4],
            nhwc: false,
        };
        let cases = [
            Geom { kh: 1, kw: 7, padding: [0, 0, 3, 3], ..base },
            Geom { kh: 7, kw: 1, padding: [3, 3, 0, 0], ..base },
            Geom { kh: 3, kw: 5, strides: [1, 2], padding: [1, 1, 2, 2], ..base },
            Geom { kh: 3, kw: 3, groups: 2, strides: [2, 2], padding: [1, 1, 1, 1], ..base },
            Geom { cin: 64, h: 56, w: 56, kh: 3, kw: 3, padding: [1; 4], ..base },
            Geom { cin: 3, h: 64, w: 224, kh: 7, kw: 7, strides: [2, 2], padding: [3; 4], ..base },
        ];
        for c in cases {
            let [pt, pb, pl, pr] = c.padding;
            let oh = out_size(c.h, c.kh, c.strides[0], c.dilations[0], pt, pb).unwrap();
            let ow = out_size(c.w, c.kw, c.strides[1], c.dilations[1], pl, pr).unwrap();
            let g = Geom { oh, ow, ..c };
            let x: Vec<u8> = (0..g.cig() * g.h * g.w).map(|_| rng.next_u64() as u8).collect();
            compare(&g, &x);
        }
    }

    /// The geometries the vector code takes: width dilation 1, width stride 1 or 2, anything
    /// on the height axis.
    #[test]
    fn vector_geometries() {
        let g = Geom {
            n: 1,
            cin: 1,
            h: 4,
            w: 4,
            cout: 1,
            oh: 4,
            ow: 4,
            kh: 3,
            kw: 3,
            groups: 1,
            strides: [1, 2],
            dilations: [2, 1],
            padding: [1; 4],
            nhwc: false,
        };
        assert!(vector_applies(&g));
        assert!(!vector_applies(&Geom { strides: [1, 3], ..g }));
        assert!(!vector_applies(&Geom { dilations: [1, 2], ..g }));
    }

    /// The masks of [`bits`] at the edges (0 and 64).
    #[test]
    fn bit_ranges() {
        assert_eq!(bits(0, 0), 0);
        assert_eq!(bits(0, 64), u64::MAX);
        assert_eq!(bits(64, 64), 0);
        assert_eq!(bits(3, 5), 0b11000);
        assert_eq!(bits(63, 64), 1 << 63);
    }
}
