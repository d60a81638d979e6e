//! The panel layouts and the packing into them, plus the view checks.
//!
//! Both layouts group the depth in fours, the four bytes `vpdpbusd` multiplies into one i32
//! lane: an A panel holds, for each group g, the MR words `a[r][4g..4g + 4]`; a B panel, for
//! each group, the NR words `b[4g..4g + 4][j]`. Depth steps past k are zero in both, columns
//! past n in B and rows past m in A too.
//!
//! The wide layouts (the AVX2 kernel's `vpmaddwd`, which multiplies pairs of i16) group the
//! depth in pairs, each element widened to 16 bits (A sign-extended, B zero-extended): an A
//! panel holds, for each pair q, the MR words `a[r][2q] | a[r][2q + 1] << 16`; a B panel the
//! NR words `b[2q][j] | b[2q + 1][j] << 16`. Per four depth steps that is twice the bytes
//! (two words of four bytes where the byte layout has one), with the same word strides: MR
//! words per step of A, NR per step of B.

use super::{MR, NR};

/// True if the `rows × cols` view with strides `rs`, `cs` lies inside `len` elements.
pub(super) fn view_fits(len: usize, rows: usize, cols: usize, rs: usize, cs: usize) -> bool {
    if rows == 0 || cols == 0 {
        return true;
    }
    (rows - 1)
        .checked_mul(rs)
        .zip((cols - 1).checked_mul(cs))
        .and_then(|(a, b)| a.checked_add(b))
        .is_some_and(|last| last < len)
}

/// True if no two elements of the `rows × cols` view share an address (the output is written
/// by several threads).
pub(super) fn view_is_injective(rows: usize, cols: usize, rs: usize, cs: usize) -> bool {
    // Dimensions of extent 1 have no stride to speak of; of two others, the one with the
    // larger stride must step past the whole extent of the other.
    match (rows > 1, cols > 1) {
        (false, false) => true,
        (true, false) => rs > 0,
        (false, true) => cs > 0,
        (true, true) => {
            let ((e0, s0), s1) = if rs <= cs { ((rows, rs), cs) } else { ((cols, cs), rs) };
            s0 > 0 && e0.checked_mul(s0).is_some_and(|span| s1 >= span)
        }
    }
}

/// The depth rounded up to whole groups of four.
pub(super) fn padded_depth(k: usize) -> usize {
    k.div_ceil(4) * 4
}

/// Bytes per element in a layout (1, or 2 for the wide one).
pub(super) fn elem_bytes(wide: bool) -> usize {
    if wide {
        2
    } else {
        1
    }
}

/// Bytes of an m × k A packed into MR-high panels (of the wide layout if `wide`).
pub(super) fn packed_a_len(m: usize, k: usize, wide: bool) -> Option<usize> {
    m.div_ceil(MR).checked_mul(MR)?.checked_mul(padded_depth(k))?.checked_mul(elem_bytes(wide))
}

/// Packs the m × k matrix `a` (row i at `a[i * rs..]`) into `dst` (zeroed, `packed_a_len`
/// bytes, the wide layout if `wide`) and stores each row's sum in `row_sums`.
pub(super) fn pack_a(a: &[i8], m: usize, k: usize, rs: usize, wide: bool, dst: &mut [u8], row_sums: &mut [i32]) {
    let kp = padded_depth(k);
    let w = elem_bytes(wide);
    for i in 0..m {
        let row = &a[i * rs..][..k];
        row_sums[i] = row.iter().map(|&v| v as i32).sum();
        let panel = &mut dst[i / MR * MR * kp * w..][..MR * kp * w];
        let r = i % MR;
        if wide {
            for (q, two) in row.chunks(2).enumerate() {
                for (t, &v) in two.iter().enumerate() {
                    panel[(q * MR + r) * 4 + 2 * t..][..2].copy_from_slice(&(v as i16).to_le_bytes());
                }
            }
        } else {
            for (g, four) in row.chunks(4).enumerate() {
                for (t, &v) in four.iter().enumerate() {
                    panel[(g * MR + r) * 4 + t] = v as u8;
                }
            }
        }
    }
}

/// Zeros, for the depth steps past k.
static ZEROS: [u8; NR] = [0; NR];

/// [`pack_b`] into the wide layout: ceil(nc / NR) panels of NR × `padded_depth(k)` u16
/// (2 · NR · kp bytes); panel q holds, for each pair p, the NR words
/// `b[2p][j] | b[2p + 1][j] << 16` of columns `j = j0 + q·NR + jj`, zero past k and past nc.
pub(super) fn pack_b_wide(data: &[u8], k: usize, rs: usize, cs: usize, j0: usize, nc: usize, dst: &mut [u8]) {
    let kp = padded_depth(k);
    for_each_panel(dst, NR * kp * 2, j0, nc, |panel, jq, cols| {
        if cs == 1 {
            // Row-major B: two rows at a time, zero-extended and interleaved.
            for (p, out) in panel.chunks_exact_mut(NR * 4).enumerate() {
                let row = |t: usize| {
                    let d = 2 * p + t;
                    if d < k {
                        &data[d * rs + jq..][..cols]
                    } else {
                        &ZEROS[..cols]
                    }
                };
                // Each word `[b[2p][j], 0, b[2p + 1][j], 0]`: the byte layout's interleave
                // of four rows, two of them zeros.
                let zeros = &ZEROS[..cols];
                interleave4([row(0), zeros, row(1), zeros], out);
                out[cols * 4..].fill(0);
            }
        } else if rs == 1 {
            // Column j's depth steps are contiguous: each pair one word.
            for jj in 0..NR {
                for p in 0..kp / 2 {
                    let at = |d: usize| if jj < cols && d < k { data[(jq + jj) * cs + d] } else { 0 };
                    panel[(p * NR + jj) * 4..][..4].copy_from_slice(&[at(2 * p), 0, at(2 * p + 1), 0]);
                }
            }
        } else {
            for (p, out) in panel.chunks_exact_mut(NR * 4).enumerate() {
                for (jj, word) in out.chunks_exact_mut(4).enumerate() {
                    let at = |d: usize| if d < k && jj < cols { data[d * rs + (jq + jj) * cs] } else { 0 };
                    word.copy_from_slice(&[at(2 * p), 0, at(2 * p + 1), 0]);
                }
            }
        }
    });
}

/// Runs `pack(panel, jq, cols)` on each of the ceil(nc / NR) panels of `panel_len` bytes at
/// the start of `dst` for columns `j0..j0 + nc`: panel q holds columns `jq = j0 + q·NR` on,
/// `cols` (≤ NR) of them.
#[inline(always)]
fn for_each_panel(
    dst: &mut [u8],
    panel_len: usize,
    j0: usize,
    nc: usize,
    mut pack: impl FnMut(&mut [u8], usize, usize),
) {
    if panel_len == 0 {
        return;
    }
    for (q, panel) in dst[..nc.div_ceil(NR) * panel_len].chunks_exact_mut(panel_len).enumerate() {
        pack(panel, j0 + q * NR, (nc - q * NR).min(NR));
    }
}

/// Packs columns `j0..j0 + nc` of the k × n view (element (p, j) at `data[p * rs + j * cs]`)
/// into ceil(nc / NR) panels of NR × `padded_depth(k)` bytes at the start of `dst`: panel q
/// holds, for each group g, the NR words `b[4g..4g + 4][j0 + q·NR + jj]`, zero past k and
/// past nc. The view lies inside `data`.
pub(super) fn pack_b(data: &[u8], k: usize, rs: usize, cs: usize, j0: usize, nc: usize, dst: &mut [u8]) {
    let kp = padded_depth(k);
    for_each_panel(dst, NR * kp, j0, nc, |panel, jq, cols| {
        if cs == 1 {
            // Row-major B: four rows at a time, interleaved byte by byte.
            for (g, out) in panel.chunks_exact_mut(NR * 4).enumerate() {
                let row = |t: usize| {
                    let p = 4 * g + t;
                    if p < k {
                        &data[p * rs + jq..][..cols]
                    } else {
                        &ZEROS[..cols]
                    }
                };
                interleave4([row(0), row(1), row(2), row(3)], out);
                out[cols * 4..].fill(0);
            }
        } else if rs == 1 {
            // Column j's depth steps are contiguous: each group one (unaligned) word.
            for jj in 0..NR {
                if jj < cols {
                    let col = &data[(jq + jj) * cs..][..k];
                    let (whole, tail) = col.split_at(k / 4 * 4);
                    for (g, four) in whole.chunks_exact(4).enumerate() {
                        panel[(g * NR + jj) * 4..][..4].copy_from_slice(four);
                    }
                    if !tail.is_empty() {
                        let mut word = [0u8; 4];
                        word[..tail.len()].copy_from_slice(tail);
                        panel[(k / 4 * NR + jj) * 4..][..4].copy_from_slice(&word);
                    }
                } else {
                    for g in 0..kp / 4 {
                        panel[(g * NR + jj) * 4..][..4].fill(0);
                    }
                }
            }
        } else {
            for (g, out) in panel.chunks_exact_mut(NR * 4).enumerate() {
                for (jj, word) in out.chunks_exact_mut(4).enumerate() {
                    for (t, o) in word.iter_mut().enumerate() {
                        let p = 4 * g + t;
                        *o = if p < k && jj < cols { data[p * rs + (jq + jj) * cs] } else { 0 };
                    }
                }
            }
        }
    });
}

/// `out[4j + t] = rows[t][j]` for the columns j of the four rows (all of one length ≤ NR).
#[inline]
fn interleave4(rows: [&[u8]; 4], out: &mut [u8]) {
    let cols = rows[0].len();
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
    let mut j = 0;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        while j + 16 <= cols {
            // SAFETY: each row holds `cols ≥ j + 16` bytes, `out` at least 4 · cols (its
            // caller's NR · 4), so the 16-byte loads and the 64 bytes of stores are in bounds;
            // SSE2 is part of x86-64.
            unsafe {
                let r0 = _mm_loadu_si128(rows[0].as_ptr().add(j).cast());
                let r1 = _mm_loadu_si128(rows[1].as_ptr().add(j).cast());
                let r2 = _mm_loadu_si128(rows[2].as_ptr().add(j).cast());
                let r3 = _mm_loadu_si128(rows[3].as_ptr().add(j).cast());
                let lo01 = _mm_unpacklo_epi8(r0, r1);
                let hi01 = _mm_unpackhi_epi8(r0, r1);
                let lo23 = _mm_unpacklo_epi8(r2, r3);
                let hi23 = _mm_unpackhi_epi8(r2, r3);
                let o = out.as_mut_ptr().add(4 * j);
                _mm_storeu_si128(o.cast(), _mm_unpacklo_epi16(lo01, lo23));
                _mm_storeu_si128(o.add(16).cast(), _mm_unpackhi_epi16(lo01, lo23));
                _mm_storeu_si128(o.add(32).cast(), _mm_unpacklo_epi16(hi01, hi23));
                _mm_storeu_si128(o.add(48).cast(), _mm_unpackhi_epi16(hi01, hi23));
            }
            j += 16;
        }
    }
    for (jj, word) in out[4 * j..4 * cols].chunks_exact_mut(4).enumerate() {
        let c = j + jj;
        word.copy_from_slice(&[rows[0][c], rows[1][c], rows[2][c], rows[3][c]]);
    }
}
