//! Winograd F(4×4, 3×3) conv2d: float32, 3×3 filter, stride 1, dilation 1, groups 1, nchw.
//!
//! Each 4×4 block of output pixels (a tile) is computed from the 6×6 input patch `d` under it
//! as `Y = Aᵀ·[Σ_cin U ⊙ V]·A` with `U = G·g·Gᵀ` (the filter `g` transformed once, at build)
//! and `V = Bᵀ·d·B` (the input transformed at run time): per tile and channel pair, 36
//! multiply-adds instead of the 4·4·9 = 144 of a direct convolution. The sum over input
//! channels is, for each of the 36 transform points ξ, a GEMM `M[ξ] = U[ξ] · V[ξ]`
//! (`cout × cin` times `cin × tiles`) on the packed GEMM.
//!
//! The matrices are the Toom-Cook ones of Lavin & Gray ("Fast Algorithms for Convolutional
//! Neural Networks", 2016) for the interpolation points 0, 1, −1, 2, −2 and ∞ (derived below,
//! checked in the tests against the 1-D identity `Aᵀ·[(G·g) ⊙ (Bᵀ·d)] = correlation(d, g)`).
//! For a point `p`, `Aᵀ`'s column is `(1, p, p², p³)` (∞: `(0, 0, 0, 1)`), `G`'s row is
//! `(1, p, p²) / Π_{q≠p}(p − q)` (∞: `(0, 0, 1)`), and `Bᵀ`'s row holds the coefficients of
//! `Π_{q≠p}(x − q)` (∞: of `Π_q(x − q)`), lowest power first, times the sign that makes the
//! rows below (1/4 = 1/((0−1)(0+1)(0−2)(0+2)) and so on; the scale factors all sit in `G`).
//!
//! Run time, per block of whole tile rows of one image (sized so that the transformed input
//! and the products stay in L2): input transform into `V` (zero padding applied while the
//! input rows are staged), 36 GEMMs into `M`, output transform into the output, then the
//! bias and the fused epilogue in one pass over each channel's rows of the block (contiguous in nchw).
//! Blocks run in parallel; each is computed the same way on any thread count.
//!
//! Accuracy: see `winograd_tests.rs` (measured error against an f64 direct convolution,
//! next to the im2col path's).

use super::conv::Geom;
use super::epilogue::{BoundEpilogue, TileBias};
use super::packed_gemm::{gemm, no_epilogue, Lhs, PackedLhs, Rhs, TileOut};
use super::scratch::{grow, try_zeroed};
use super::sgemm::Mat;
use super::simd::simd;
use std::ops::{Add, Mul, Sub};
use webnn_core::{Error, Result};

/// Output tile side.
const TILE: usize = 4;
/// Input patch side (TILE + 3 − 1).
const PATCH: usize = 6;
/// Transform points per tile (PATCH²): the number of GEMMs.
const POINTS: usize = PATCH * PATCH;
/// Tiles per step of the vectorized transforms.
const L: usize = 16;
/// Target size, in f32 elements, of a block's transformed input and products (`36·(cin +
/// cout)·tiles`): 1 Mi floats = 4 MiB per thread. Larger than L2 on purpose: every block
/// streams the whole transformed filter (36·cin·cout) through the GEMMs, so more tiles per
/// block mean fewer passes over it. Measured (1 thread, Zen 5, effective GFLOP/s for 64→64
/// 56², 128→128 28², 256→256 14², 80→80 40²): 2^17: 327, 316, 130, 267; 2^18: 322, 383,
/// 224, 328; 2^19: 335, 431, 361, 366; 2^20: 375, 455, 381, 380; 2^21 and 2^22: the same
/// within noise (and 32→32 256² fell from 203 to 139 at 2^22).
const BLOCK_BUDGET: usize = 1 << 20;

/// `Bᵀ` (6×6), applied to each column then each row of an input patch. Row `k` is for point
/// 0, 1, −1, 2, −2, ∞.
pub const BT: [[f64; 6]; 6] = [
    [4.0, 0.0, -5.0, 0.0, 1.0, 0.0],
    [0.0, -4.0, -4.0, 1.0, 1.0, 0.0],
    [0.0, 4.0, -4.0, -1.0, 1.0, 0.0],
    [0.0, -2.0, -1.0, 2.0, 1.0, 0.0],
    [0.0, 2.0, -1.0, -2.0, 1.0, 0.0],
    [0.0, 4.0, 0.0, -5.0, 0.0, 1.0],
];

/// `G` (6×3), applied to each column then each row of a 3×3 filter.
pub const G: [[f64; 3]; 6] = [
    [1.0 / 4.0, 0.0, 0.0],
    [-1.0 / 6.0, -1.0 / 6.0, -1.0 / 6.0],
    [-1.0 / 6.0, 1.0 / 6.0, -1.0 / 6.0],
    [1.0 / 24.0, 1.0 / 12.0, 1.0 / 6.0],
    [1.0 / 24.0, -1.0 / 12.0, 1.0 / 6.0],
    [0.0, 0.0, 1.0],
];

/// `Aᵀ` (4×6), applied to each column then each row of a tile's 6×6 products.
pub const AT: [[f64; 6]; 4] = [
    [1.0, 1.0, 1.0, 1.0, 1.0, 0.0],
    [0.0, 1.0, -1.0, 2.0, -2.0, 0.0],
    [0.0, 1.0, 1.0, 4.0, 4.0, 0.0],
    [0.0, 1.0, -1.0, 8.0, -8.0, 1.0],
];

/// Whether conv2d `g` is one this path computes (the shape; see [`pays`] for when it is
/// chosen).
pub fn applies(g: &Geom) -> bool {
    g.kh == 3
        && g.kw == 3
        && g.strides == [1, 1]
        && g.dilations == [1, 1]
        && g.groups == 1
        && !g.nhwc
        && g.oh > 0
        && g.ow > 0
}

/// Whether this path is expected to be faster than im2col + GEMM for `g` (measured on Zen 5,
/// see ARCHITECTURE.md): enough channels on both sides for the 36 GEMMs to run near the
/// microkernel's speed, and at least 16 tiles per image (an output of 13×13 or more): each
/// element of the transformed filter — 4× the filter — is used once per tile of a block, so
/// with few tiles the GEMMs only stream it (512→512 at 7×7, 4 tiles: 135 GFLOP/s against
/// im2col's 148 on one thread, 170 against 290 on two; at 14×14, 16 tiles: 380 against 185).
///
/// The same rule against the direct kernel (`conv_direct`, which takes these convs from
/// im2col on AVX-512 CPUs). Stop 34 measured the direct kernel ahead below 128 input
/// channels (64→64 on 56², 16→64 on 55²); since the GEMM's in-place A block and in-kernel B
/// prefetch (stop 37) Winograd's 36 GEMMs run at twice the direct kernel's rate there.
/// Measured on Ice Lake-SP, 1 thread (kernel bench, effective GFLOP/s, Winograd / direct):
/// 64→64 on 56² 207 / 109, 80→80 on 40² 223 / 110 (the direct case at 40² is 64→64),
/// 256→256 on 14² 210 / 110; 512→512 on 7² (4 tiles) 88 / 96, left out here. Models,
/// alternating runs, medians of 3, 1 thread, direct → Winograd wherever it pays: YOLOv8n
/// 23.8 → 20.3 ms, ResNet-50 77.7 → 70.2, SqueezeNet 1.1 7.56 → 6.73, UNet 162 → 132;
/// 2 threads YOLOv8n 14.2 → 12.1, ResNet-50 43.6 → 38.0.
///
/// Below 32 input channels the AVX-512 direct kernel is faster again (each of the 36 GEMMs
/// is only 16 deep). Measured on a Xeon with AVX-512 (2026-12-02, `WEBNN_PROFILE=all`,
/// alternating runs, per step, Winograd → direct): YOLOv8n's 16→16 on 80² 0.47–0.54 →
/// 0.38–0.41 ms at 1 thread, 0.32–0.44 → 0.23–0.28 at 2; SqueezeNet's 16→64 on 55²
/// 0.47–0.56 → 0.46–0.48 at 1 thread, 0.33–0.41 → 0.25–0.29 at 2. The AVX2 direct form was
/// not measured against Winograd there, so AVX2 CPUs keep 16.
pub fn pays(g: &Geom) -> bool {
    g.cin >= min_cin(g) && g.cout >= 16 && g.oh.div_ceil(TILE) * g.ow.div_ceil(TILE) >= 16
}

/// Fewest input channels for [`pays`]: 32 where the direct kernel (`conv_direct`, AVX-512 or
/// AVX2) takes `g`, else 16. With 16 input channels Winograd's 36 GEMMs are 16 deep, and the
/// direct kernel runs such a conv about twice as fast: AVX-512 (stop 50) YOLOv8n's 16→16 on
/// 80² 0.47–0.54 → 0.38–0.41 ms; AVX2 on Zen 3 (stop 53, `WEBNN_PROFILE=all`, 1 thread,
/// alternating) SqueezeNet's 16→64 on 55² 2.1–2.3 → 1.06–1.18 ms. From 32 channels the two
/// are level on AVX2 (SqueezeNet's 32→128 on 27²: 0.95–1.04 against 0.90–1.27) and Winograd
/// wins from 48 (48→192 on 13²: 0.52–0.53 against 0.51–0.56; 64→256 on 13²: 0.78–0.81
/// against 0.83–1.06).
fn min_cin(g: &Geom) -> usize {
    #[cfg(target_arch = "x86_64")]
    let direct = super::conv_direct::applies(g);
    #[cfg(not(target_arch = "x86_64"))]
    let direct = {
        let _ = g;
        false
    };
    if direct {
        32
    } else {
        16
    }
}

/// The filter transformed and packed at build: `U[ξ]` (`cout × cin`) for each of the 36
/// transform points, packed as the GEMM's left operand.
pub struct WinogradFilter {
    u: Vec<PackedLhs>,
}

impl WinogradFilter {
    /// Transforms `wts` (laid out `[cout][cin][3][3]`, as `conv::pack_conv_filter` packs an
    /// nchw filter) and packs it; None if memory is short (the caller keeps im2col).
    pub fn new(g: &Geom, wts: &[f32]) -> Option<WinogradFilter> {
        let (cin, cout) = (g.cin, g.cout);
        if wts.len() < cout * cin * 9 {
            return None;
        }
        let plane = cout * cin;
        let mut u: Vec<f32> = try_zeroed(POINTS.checked_mul(plane)?)?;
        for (oi, f) in wts.chunks_exact(9).take(plane).enumerate() {
            for (xi, v) in transform_filter(f).into_iter().enumerate() {
                u[xi * plane + oi] = v;
            }
        }
        let packed = (0..POINTS)
            .map(|xi| PackedLhs::new(cout, cin, Mat::rows(&u[xi * plane..][..plane], cin)))
            .collect::<Option<Vec<_>>>()?;
        Some(WinogradFilter { u: packed })
    }
}

/// `G·f·Gᵀ` of one 3×3 filter (row-major), computed in f64 and rounded once: entry
/// `a·6 + b` is transform point ξ = (a, b).
pub fn transform_filter(f: &[f32]) -> [f32; POINTS] {
    let mut gf = [[0f64; 3]; PATCH];
    for a in 0..PATCH {
        for c in 0..3 {
            gf[a][c] = (0..3).map(|r| G[a][r] * f[r * 3 + c] as f64).sum();
        }
    }
    let mut out = [0f32; POINTS];
    for a in 0..PATCH {
        for b in 0..PATCH {
            out[a * PATCH + b] = (0..3).map(|c| gf[a][c] * G[b][c]).sum::<f64>() as f32;
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Vectorized transforms: one `Lane` holds one value of L tiles.

/// One value of `L` consecutive tiles (a vector register or two).
#[derive(Clone, Copy)]
pub struct Lane(pub [f32; L]);

// The loops below have constant trip counts: the compiler turns each into vector operations
// (`std::array::from_fn` is avoided here: it is not always inlined, and then nothing is).

impl Add for Lane {
    type Output = Lane;
    #[inline(always)]
    fn add(mut self, o: Lane) -> Lane {
        for i in 0..L {
            self.0[i] += o.0[i];
        }
        self
    }
}

impl Sub for Lane {
    type Output = Lane;
    #[inline(always)]
    fn sub(mut self, o: Lane) -> Lane {
        for i in 0..L {
            self.0[i] -= o.0[i];
        }
        self
    }
}

impl Mul<f32> for Lane {
    type Output = Lane;
    #[inline(always)]
    fn mul(mut self, k: f32) -> Lane {
        for i in 0..L {
            self.0[i] *= k;
        }
        self
    }
}

impl Lane {
    /// All zeros.
    const ZERO: Lane = Lane([0.0; L]);

    /// The first L elements of `s` (which holds at least L).
    #[inline(always)]
    fn load(s: &[f32]) -> Lane {
        let mut v = [0f32; L];
        v.copy_from_slice(&s[..L]);
        Lane(v)
    }

    /// Stores the first `cnt` (≤ L) values at the start of `d`.
    #[inline(always)]
    fn store(&self, d: &mut [f32], cnt: usize) {
        if cnt == L {
            d[..L].copy_from_slice(&self.0);
        } else {
            d[..cnt].copy_from_slice(&self.0[..cnt]);
        }
    }
}

/// `Bᵀ·d` for one column `d` of 6 values (the rows of [`BT`] written out).
#[inline(always)]
pub fn bt(d: [Lane; PATCH]) -> [Lane; PATCH] {
    let [d0, d1, d2, d3, d4, d5] = d;
    let p = d4 - d2 * 4.0;
    let q = d3 - d1 * 4.0;
    let r = d4 - d2;
    let s = (d3 - d1) * 2.0;
    [d0 * 4.0 - d2 * 5.0 + d4, p + q, p - q, r + s, r - s, d1 * 4.0 - d3 * 5.0 + d5]
}

/// `Aᵀ·m` for one column `m` of 6 products (the rows of [`AT`] written out).
#[inline(always)]
pub fn at(m: [Lane; PATCH]) -> [Lane; TILE] {
    let [m0, m1, m2, m3, m4, m5] = m;
    let (a, b, c, d) = (m1 + m2, m1 - m2, m3 + m4, m3 - m4);
    [m0 + a + c, b + d * 2.0, a + c * 4.0, b + d * 8.0 + m5]
}

// ---------------------------------------------------------------------------------------
// Run time

/// How an image's output is cut into tiles and blocks.
#[derive(Clone, Copy, Debug)]
struct Tiling {
    /// Tile rows, tile columns.
    rows: usize,
    cols: usize,
    /// Tile rows per block.
    block_rows: usize,
    /// Pitch of a staged input phase row: ≥ cols + 1, and every L-wide load from a tile
    /// column < cols (+ 1) stays inside it.
    pitch: usize,
}

impl Tiling {
    fn of(g: &Geom) -> Tiling {
        let rows = g.oh.div_ceil(TILE);
        let cols = g.ow.div_ceil(TILE);
        let per_row = POINTS * (g.cin + g.cout) * cols;
        let block_rows = (BLOCK_BUDGET / per_row.max(1)).clamp(1, rows.max(1));
        Tiling { rows, cols, block_rows, pitch: cols.div_ceil(L) * L + L }
    }

    /// Tiles per (full) block.
    fn block_tiles(&self) -> usize {
        self.block_rows * self.cols
    }

    /// Blocks per image.
    fn blocks(&self) -> usize {
        self.rows.div_ceil(self.block_rows)
    }

    /// Elements of a thread's scratch: V, M (plus one lane of slack for the output
    /// transform's last loads), the patch (or output) staging and the staged input rows.
    fn scratch_len(&self, g: &Geom) -> Option<usize> {
        let t = self.block_tiles();
        let vm = POINTS.checked_mul(g.cin.checked_add(g.cout)?)?.checked_mul(t)?;
        vm.checked_add(L)?.checked_add(self.transform_len(t))
    }

    /// Elements of one transform's scratch for a block of `t` tiles: the patch (or output)
    /// staging, a padded row and the staged input rows.
    fn transform_len(&self, t: usize) -> usize {
        POINTS * (t + L) + 4 * self.pitch + (TILE * self.block_rows + 2) * 4 * self.pitch
    }
}

thread_local! {
    /// Per-thread scratch of the Winograd blocks (V, M and staged rows), grown on first use.
    static WINOGRAD_SCRATCH: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Blocks of a convolution (all images): the most threads [`conv`] keeps busy (a block's
/// transforms and small GEMMs run on one thread).
pub fn blocks(g: &Geom) -> usize {
    Tiling::of(g).blocks() * g.n
}

/// One block's share of the output: image `n`, tile rows `ty0..ty1`, and for each output
/// channel its output rows `4·ty0 .. min(4·ty1, oh)` (contiguous in nchw).
#[derive(Default)]
struct Job<'a> {
    n: usize,
    ty0: usize,
    ty1: usize,
    out: Vec<&'a mut [f32]>,
}

/// conv2d on f32 nchw data by Winograd F(4×4, 3×3) (`g` must satisfy [`applies`]): the bias
/// and then `ep` are applied to each channel's rows of a block as it is finished.
pub fn conv(
    g: &Geom,
    x: &[f32],
    filter: &WinogradFilter,
    bias: Option<&[f32]>,
    out: &mut [f32],
    ep: &BoundEpilogue<'_>,
) -> Result<()> {
    let (hw, plane) = (g.h * g.w, g.oh * g.ow);
    if !applies(g)
        || filter.u.len() != POINTS
        || x.len() < g.n * g.cin * hw
        || out.len() < g.n * g.cout * plane
        || bias.is_some_and(|b| b.len() < g.cout)
    {
        return Err(Error::unknown("winograd conv2d: operands do not match the geometry"));
    }
    let tiling = Tiling::of(g);
    let scratch_len = tiling.scratch_len(g).ok_or_else(|| Error::unknown("winograd conv2d: scratch size overflows"))?;
    // Each block's output rows of each channel, as disjoint slices.
    let (nb, per_block_rows) = (tiling.blocks(), tiling.block_rows * TILE);
    let mut jobs: Vec<Job<'_>> = Vec::new();
    jobs.try_reserve_exact(g.n * nb).map_err(|_| Error::unknown("winograd conv2d: cannot allocate the block list"))?;
    for (n, img) in out[..g.n * g.cout * plane].chunks_mut(g.cout * plane).enumerate() {
        let first = jobs.len();
        for b in 0..nb {
            let mut v = Vec::new();
            v.try_reserve_exact(g.cout)
                .map_err(|_| Error::unknown("winograd conv2d: cannot allocate the block list"))?;
            let ty0 = b * tiling.block_rows;
            jobs.push(Job { n, ty0, ty1: (ty0 + tiling.block_rows).min(tiling.rows), out: v });
        }
        for chan in img.chunks_mut(plane) {
            let mut rest = chan;
            for b in 0..nb {
                let rows = per_block_rows.min(g.oh - b * per_block_rows);
                let (head, tail) = rest.split_at_mut(rows * g.ow);
                jobs[first + b].out.push(head);
                rest = tail;
            }
        }
    }
    let inner_parallel = jobs.len() < crate::par::threads();
    let run = |job: Job<'_>| -> Result<()> {
        WINOGRAD_SCRATCH.with(|cell| {
            let scratch = &mut *cell.borrow_mut();
            grow(scratch, scratch_len)?;
            block(g, &tiling, x, filter, bias, job, scratch, inner_parallel, ep)
        })
    };
    crate::par::try_chunks(&mut jobs, 1, |_, job| run(std::mem::take(&mut job[0])))
}

/// Computes one block: input transform, 36 GEMMs, output transform, bias and epilogue.
/// `parallel` (a block with the pool to itself): the transforms are split across threads by
/// channel and the 36 GEMMs by product, each on one thread; every value is computed as on
/// one thread, so results do not depend on it.
#[allow(clippy::too_many_arguments)]
fn block(
    g: &Geom,
    tiling: &Tiling,
    x: &[f32],
    filter: &WinogradFilter,
    bias: Option<&[f32]>,
    mut job: Job<'_>,
    scratch: &mut [f32],
    parallel: bool,
    ep: &BoundEpilogue<'_>,
) -> Result<()> {
    let t = (job.ty1 - job.ty0) * tiling.cols;
    let (v, rest) = scratch.split_at_mut(POINTS * g.cin * t);
    let (m, work) = rest.split_at_mut(POINTS * g.cout * t + L);
    let xn = &x[job.n * g.cin * g.h * g.w..][..g.cin * g.h * g.w];
    let hw = g.h * g.w;
    // V[c][ξ][t]: one contiguous run per input channel.
    each(parallel, v, POINTS * t, work, tiling.transform_len(t), |c, vc, work| {
        let (patches, rest) = work.split_at_mut(POINTS * (t + L));
        let (row_buf, stage) = rest.split_at_mut(4 * tiling.pitch);
        simd(
            #[inline(always)]
            || input_transform(g, tiling, &xn[c * hw..][..hw], job.ty0, job.ty1, vc, patches, row_buf, stage),
        );
        Ok(())
    })?;
    let v = &*v;
    each(parallel, &mut m[..POINTS * g.cout * t], g.cout * t, &mut [], 0, |xi, mx, _| {
        let vx = Mat { data: &v[xi * t..], rs: POINTS * t, cs: 1 };
        gemm(g.cout, t, g.cin, Lhs::Packed(&filter.u[xi]), Rhs::Strided(vx), mx, t, false, &no_epilogue)
    })?;
    let m = &*m;
    let plane = g.oh * g.ow;
    let (ty0, ty1, n) = (job.ty0, job.ty1, job.n);
    each(parallel, &mut job.out, 1, work, tiling.transform_len(t), |o, seg, work| {
        let seg = &mut *seg[0];
        let (patches, rest) = work.split_at_mut(POINTS * (t + L));
        let row_buf = &mut rest[..4 * tiling.pitch];
        simd(
            #[inline(always)]
            || output_transform(g, tiling, m, o, t, ty0, ty1, patches, row_buf, seg),
        );
        // The bias and the steps in one pass over the channel's rows (still in L1).
        let first = (n * g.cout + o) * plane + ty0 * TILE * g.ow;
        let len = seg.len();
        if let Some(mut rows) = TileOut::new(seg, len, 1, len) {
            let bias = bias.map_or(TileBias::None, |b| TileBias::Rows(&b[o..]));
            ep.apply_tile(&mut rows, bias, |_| first);
        }
        Ok(())
    })
}

thread_local! {
    /// Per-thread transform scratch of a parallel block (the block's own thread holds
    /// [`WINOGRAD_SCRATCH`] meanwhile).
    static TRANSFORM_SCRATCH: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `f(i, chunk, work)` for each `size`-element chunk of `data`, with `work` (`work_len`
/// elements) a scratch of the thread running it: `spare` itself on one thread, else split
/// across the pool's threads (each with its own scratch).
fn each<T: Send>(
    parallel: bool,
    data: &mut [T],
    size: usize,
    spare: &mut [f32],
    work_len: usize,
    f: impl Fn(usize, &mut [T], &mut [f32]) -> Result<()> + Sync + Send,
) -> Result<()> {
    if !parallel {
        let work = &mut spare[..work_len];
        return data.chunks_mut(size).enumerate().try_for_each(|(i, c)| f(i, c, work));
    }
    crate::par::try_chunks(data, size, |i, c| {
        TRANSFORM_SCRATCH.with(|cell| {
            let work = &mut *cell.borrow_mut();
            grow(work, work_len)?;
            f(i, c, &mut work[..work_len])
        })
    })
}

/// `vc[ξ][t] = (Bᵀ·d·B)[ξ]` of input channel `xc` for every tile `t` of tile rows
/// `ty0..ty1` (tile `t` = (ty − ty0)·cols + tx), `t` contiguous.
///
/// The input rows are staged split by column phase (column `4·k + p` at `[p][k]`, zeros
/// outside the input: the padding), so that one patch element (i, j) of the tiles of a tile
/// row is a contiguous run; these runs are copied into `patches[i·6 + j][t]` (36 rows of
/// `t + L`: every copy and load is whole lanes), and the transform then runs over L
/// consecutive tiles at a time whatever the width of the image.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn input_transform(
    g: &Geom,
    tl: &Tiling,
    xc: &[f32],
    ty0: usize,
    ty1: usize,
    vc: &mut [f32],
    patches: &mut [f32],
    row_buf: &mut [f32],
    stage: &mut [f32],
) {
    let [pt, _, pl, _] = g.padding;
    let (sp, cols) = (tl.pitch, tl.cols);
    let t = (ty1 - ty0) * cols;
    let pp = t + L;
    let rows = TILE * (ty1 - ty0) + 2;
    let stage = &mut stage[..rows * 4 * sp];
    // The input columns that land in the staged columns 0..4·sp, and where.
    let (first, last_col) = (pl.min(4 * sp), (4 * sp).saturating_sub(pl).min(g.w));
    let padded = &mut row_buf[..4 * sp];
    for (rr, srow) in stage.chunks_exact_mut(4 * sp).enumerate() {
        let Some(ih) = (TILE * ty0 + rr).checked_sub(pt).filter(|&i| i < g.h) else {
            srow.fill(0.0);
            continue;
        };
        // The padded row, then split by phase (an interleaved load the compiler
        // vectorizes).
        padded[..first].fill(0.0);
        padded[first..first + last_col].copy_from_slice(&xc[ih * g.w..][..last_col]);
        padded[first + last_col..].fill(0.0);
        let (p0, rest) = srow.split_at_mut(sp);
        let (p1, rest) = rest.split_at_mut(sp);
        let (p2, p3) = rest.split_at_mut(sp);
        for ((((q, a), b), c), d) in padded.chunks_exact(4).zip(p0).zip(p1).zip(p2).zip(p3) {
            (*a, *b, *c, *d) = (q[0], q[1], q[2], q[3]);
        }
    }
    // A tile row's copies may run up to L − 1 past it: the next row's copies (or the
    // slack at the end) overwrite them.
    for ty in ty0..ty1 {
        let (r0, tbase) = (TILE * (ty - ty0), (ty - ty0) * cols);
        for i in 0..PATCH {
            for j in 0..PATCH {
                let src = &stage[(r0 + i) * 4 * sp + (j % 4) * sp + j / 4..];
                let dst = &mut patches[(i * PATCH + j) * pp + tbase..];
                for k in (0..cols).step_by(L) {
                    Lane::load(&src[k..]).store(&mut dst[k..], L);
                }
            }
        }
    }
    let patches = &*patches;
    for t0 in (0..t).step_by(L) {
        // w[j][a] = (Bᵀ·column j)[a]
        let mut w = [[Lane::ZERO; PATCH]; PATCH];
        for (j, wj) in w.iter_mut().enumerate() {
            let mut d = [Lane::ZERO; PATCH];
            for (i, di) in d.iter_mut().enumerate() {
                *di = Lane::load(&patches[(i * PATCH + j) * pp + t0..]);
            }
            *wj = bt(d);
        }
        let cnt = L.min(t - t0);
        for a in 0..PATCH {
            let vb = bt([w[0][a], w[1][a], w[2][a], w[3][a], w[4][a], w[5][a]]);
            for (b, lane) in vb.iter().enumerate() {
                lane.store(&mut vc[(a * PATCH + b) * t + t0..], cnt);
            }
        }
    }
}

/// Output channel `o`'s rows of the block (`seg`: rows `4·ty0 .. min(4·ty1, oh)`) from the
/// products `M[ξ][o][t]`: `Y = Aᵀ·M·A` for L tiles at a time into `ys[i·4 + j][t]` (row i,
/// column j of tile t; rows of `t + L`), then interleaved into the output rows, cut at the
/// right and bottom edges.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn output_transform(
    g: &Geom,
    tl: &Tiling,
    m: &[f32],
    o: usize,
    t: usize,
    ty0: usize,
    ty1: usize,
    ys: &mut [f32],
    row_buf: &mut [f32],
    seg: &mut [f32],
) {
    let (ow, cols) = (g.ow, tl.cols);
    let yp = t + L;
    for t0 in (0..t).step_by(L) {
        // r[a][j] = (M row a · A)[j]
        let mut r = [[Lane::ZERO; TILE]; PATCH];
        for (a, ra) in r.iter_mut().enumerate() {
            let mut row = [Lane::ZERO; PATCH];
            for (b, mb) in row.iter_mut().enumerate() {
                *mb = Lane::load(&m[((a * PATCH + b) * g.cout + o) * t + t0..]);
            }
            *ra = at(row);
        }
        for j in 0..TILE {
            let y = at([r[0][j], r[1][j], r[2][j], r[3][j], r[4][j], r[5][j]]);
            for (i, lane) in y.iter().enumerate() {
                lane.store(&mut ys[(i * TILE + j) * yp + t0..], L);
            }
        }
    }
    let ys = &*ys;
    let seg_rows = seg.len() / ow.max(1);
    for ty in ty0..ty1 {
        let tbase = (ty - ty0) * cols;
        for i in 0..TILE {
            let row = TILE * (ty - ty0) + i;
            if row >= seg_rows {
                break;
            }
            // Interleaved (a store group the compiler vectorizes), then cut to the width.
            let wide = &mut row_buf[..TILE * cols];
            let y = |j: usize| &ys[(i * TILE + j) * yp + tbase..][..cols];
            for ((((q, a), b), c), d) in wide.chunks_exact_mut(4).zip(y(0)).zip(y(1)).zip(y(2)).zip(y(3)) {
                q.copy_from_slice(&[*a, *b, *c, *d]);
            }
            seg[row * ow..][..ow].copy_from_slice(&wide[..ow]);
        }
    }
}

#[cfg(test)]
#[path = "winograd_tests.rs"]
mod tests;
