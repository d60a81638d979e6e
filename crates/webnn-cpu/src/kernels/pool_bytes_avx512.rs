//! maxPool2d of 8-bit (uint8 / int8) nchw planes with AVX-512BW: the pools of quantized
//! models, which `compile::quantized::elementwise` runs on the bytes. Per output row, the
//! window's real rows are reduced 64 columns at a time into a row buffer padded with the
//! lowest value on both sides (so the taps need no edge cases: a padded position never wins
//! against a real one, and a window with no real element gives the lowest value, as the
//! portable kernel does); then each tap is one unaligned load per 64 outputs: at column
//! stride 1 straight from the row, at column stride 2 from its even and odd columns, split
//! once per row (`vpmovwb` of the 16-bit lanes and of the lanes shifted right by 8). int8 is
//! mapped onto uint8's order by flipping the top bit on load and back on store.
//!
//! Measured (ResNet-50 int8's 3×3 / 2 pool of 64×112×112 alone, 1 thread,
//! `WEBNN_PROFILE=all webnn bench`): the portable kernel on bytes 0.150 ms, this one 0.04–0.05
//! (ONNX Runtime's NHWC pool on bytes: 0.060); the float path it replaces, dequantize +
//! float32 pool + quantize, 0.32.

use super::pool::PoolGeom;
use std::arch::x86_64::*;

/// The most bytes of [`PlaneBufs`] a task may take (they grow with the padding and the output
/// height, both the caller's): larger planes take the portable kernel, whose buffers are a
/// row.
const MAX_BUFFER: usize = 1 << 22;

/// Whether [`max_pool_plane`] applies to this geometry: nchw, column stride 1, or 2 without
/// column dilation, and buffers of at most [`MAX_BUFFER`] bytes.
pub(super) fn applies(g: &PoolGeom) -> bool {
    !g.nhwc
        && g.ow > 0
        && g.window[1] > 0
        && (g.strides[1] == 1 || (g.strides[1] == 2 && g.dilations[1] == 1))
        && PlaneBufs::lengths(g).is_some_and(|(padded, half)| {
            (padded + 2 * half).checked_mul(g.oh).is_some_and(|bytes| bytes <= MAX_BUFFER)
        })
}

/// Whether the CPU has what [`max_pool_plane`] needs.
pub(super) fn available() -> bool {
    super::unary::has_avx512() && std::is_x86_feature_detected!("avx512bw")
}

/// The buffers of one task: per output row of a plane, the padded row of vertical maxima (in
/// uint8 order) and, at column stride 2, its even and odd columns. Each pass runs over the
/// whole plane before the next reads its results: a load right after the store of the same
/// bytes at another offset or width waits for the store (measured: the same passes row by
/// row took 0.092 ms on ResNet-50's pool against 0.04–0.05 plane by plane).
pub(super) struct PlaneBufs {
    /// Bytes per padded row.
    padded_len: usize,
    /// Bytes per even / odd row.
    half_len: usize,
    padded: Vec<u8>,
    even: Vec<u8>,
    odd: Vec<u8>,
}

impl PlaneBufs {
    /// The bytes of a padded row and of an even / odd row (`None`: past `usize`): the padded
    /// columns the windows reach, and the column pairs of the stride-2 split (rounded up to
    /// whole 64-pair steps); 64 more bytes for each row's last load.
    fn lengths(g: &PoolGeom) -> Option<(usize, usize)> {
        let span = (g.window[1] - 1).checked_mul(g.dilations[1])?;
        let reach = (g.ow - 1).checked_mul(g.strides[1])?.checked_add(span)?.checked_add(1)?;
        let pairs = g.ow.checked_add((g.window[1] - 1) / 2 + 1)?.checked_next_multiple_of(64)?;
        let padded = g.pad_begin[1].checked_add(g.w)?.max(reach).max(pairs.checked_mul(2)?).checked_add(64)?;
        Some((padded, if g.strides[1] == 2 { pairs + 64 } else { 0 }))
    }

    /// Buffers for planes of `g` (which [`applies`]), the padding filled with the lowest value.
    pub(super) fn new(g: &PoolGeom) -> Self {
        let (padded_len, half_len) = Self::lengths(g).expect("applies() checked the lengths");
        PlaneBufs {
            padded_len,
            half_len,
            padded: vec![0; padded_len * g.oh],
            even: vec![0; half_len * g.oh],
            odd: vec![0; half_len * g.oh],
        }
    }
}

/// The mask of the first `n.min(64)` bytes.
#[inline(always)]
fn mask_of(n: usize) -> __mmask64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// One nchw plane: `xp` (h × w bytes) into `o` (oh × ow bytes); `signed`: int8.
///
/// # Safety
/// AVX-512F and BW ([`available`]); [`applies`] holds; `xp` and `o` hold a plane of `g`;
/// `bufs` was made by [`PlaneBufs::new`] for `g` and only used by this function since.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn max_pool_plane(g: &PoolGeom, signed: bool, xp: &[u8], o: &mut [u8], bufs: &mut PlaneBufs) {
    debug_assert!(applies(g) && xp.len() == g.h * g.w && o.len() == g.oh * g.ow);
    let flip = _mm512_set1_epi8(if signed { i8::MIN } else { 0 });
    let (w, first, kw, dw) = (g.w, g.pad_begin[1], g.window[1], g.dilations[1]);
    let (padded_len, half_len) = (bufs.padded_len, bufs.half_len);
    // The window rows' maxima, row by row.
    for oh in 0..g.oh {
        let (h0, h1) = g.rows[oh];
        // SAFETY (this block): AVX-512F/BW by the contract; the masked loads read columns
        // c .. c + 64 clipped to the row, inside `xp`; the stores write padded columns
        // first + c .. first + w of row oh, inside `padded` (sized by `PlaneBufs::new`).
        unsafe {
            let padded = bufs.padded.as_mut_ptr().add(oh * padded_len + first);
            let mut c = 0;
            while c < w {
                let mask = mask_of(w - c);
                let mut v = _mm512_setzero_si512();
                for kh in h0..h1 {
                    let row = xp.as_ptr().add(g.ih_of(oh, kh) * w + c);
                    v = _mm512_max_epu8(v, _mm512_xor_si512(_mm512_maskz_loadu_epi8(mask, row.cast()), flip));
                }
                _mm512_mask_storeu_epi8(padded.add(c).cast(), mask, v);
                c += 64;
            }
        }
    }
    // The taps of one output row: `tap(t)` is where output 0's tap t lies (output j's is j
    // bytes on): padded column t·dw, at stride 2 even or odd column t/2.
    let taps = |orow: &mut [u8], tap: &dyn Fn(usize) -> *const u8| {
        let mut j = 0;
        while j < g.ow {
            // SAFETY: the loads read bytes j .. j + 64 from each tap's start, inside its row
            // plus the row's 64 spare bytes (`PlaneBufs::new`); the store writes outputs
            // j .. ow of this row.
            unsafe {
                let mut v = _mm512_loadu_si512(tap(0).add(j).cast());
                for t in 1..kw {
                    v = _mm512_max_epu8(v, _mm512_loadu_si512(tap(t).add(j).cast()));
                }
                let out = _mm512_xor_si512(v, flip);
                _mm512_mask_storeu_epi8(orow.as_mut_ptr().add(j).cast(), mask_of(g.ow - j), out);
            }
            j += 64;
        }
    };
    if g.strides[1] == 1 {
        for (oh, orow) in o.chunks_exact_mut(g.ow).enumerate() {
            let row = &bufs.padded[oh * padded_len..][..padded_len];
            taps(orow, &|t| row[t * dw..].as_ptr());
        }
        return;
    }
    let pairs = g.ow + (kw - 1) / 2 + 1;
    for oh in 0..g.oh {
        let mut i = 0;
        while i < pairs {
            // SAFETY: reads bytes 2i .. 2i + 128 of padded row oh and writes bytes i .. i + 64
            // of even / odd row oh, inside the rows (`PlaneBufs::new` sized them for `pairs`
            // rounded up to 64).
            unsafe {
                let padded = bufs.padded.as_ptr().add(oh * padded_len + 2 * i);
                let a = _mm512_loadu_si512(padded.cast());
                let b = _mm512_loadu_si512(padded.add(64).cast());
                let join = |lo: __m256i, hi: __m256i| _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi);
                let e = join(_mm512_cvtepi16_epi8(a), _mm512_cvtepi16_epi8(b));
                let od = join(
                    _mm512_cvtepi16_epi8(_mm512_srli_epi16::<8>(a)),
                    _mm512_cvtepi16_epi8(_mm512_srli_epi16::<8>(b)),
                );
                _mm512_storeu_si512(bufs.even.as_mut_ptr().add(oh * half_len + i).cast(), e);
                _mm512_storeu_si512(bufs.odd.as_mut_ptr().add(oh * half_len + i).cast(), od);
            }
            i += 64;
        }
    }
    for (oh, orow) in o.chunks_exact_mut(g.ow).enumerate() {
        let even = &bufs.even[oh * half_len..][..half_len];
        let odd = &bufs.odd[oh * half_len..][..half_len];
        taps(orow, &|t| if t % 2 == 0 { even[t / 2..].as_ptr() } else { odd[t / 2..].as_ptr() });
    }
}
