//! Integer GEMM for quantized convs and matmuls: `C = requant(A × B)` with A (m × k) signed
//! 8-bit weights, B (k × n) unsigned 8-bit activations, sums exact in i32.
//!
//! - A is packed once when the graph is built ([`PackedI8`]: MR-high row panels, four depth
//!   steps of a row in one 32-bit word, with the sum of every row kept for the zero point).
//! - B is a strided view ([`U8View`]) packed at run time, block by block, into thread-local
//!   scratch: NR-wide column panels laid out `[k/4][NR][4]` (`[k/2][NR][2]` u16 for AVX2; fast paths for a row-major B,
//!   `cs == 1`, and for a row-major `[n][k]` matrix read transposed, `rs == 1`).
//! - The microkernel computes an MR × NR tile of i32 sums: AVX-512 VNNI (`vpdpbusd`: four u8
//!   of B times four s8 of A added into each i32 lane) where the CPU has it, else AVX2
//!   (`vpmaddwd` on operands widened to 16 bits when they are packed: two products per i32
//!   lane, exact, where the usual `vpmaddubsw` would saturate), else portable Rust. All give
//!   the same sums (integers, no rounding, no saturation), so the same outputs.
//! - The requantizing epilogue ([`Requant`], [`Output`]) runs on each tile right after its
//!   last depth block, while the sums are in L1.
//!
//! # Arithmetic
//!
//! With `acc[i][j] = Σ_p a[i][p] · b[p][j]` (exact; see the limits below):
//!
//! ```text
//! v = ((acc − b_zero_point · row_sums[i]) as f32) · scale[i]   (+ bias[i])
//! v = clamp(v, lo, hi)                                          (as activation::clamp_value)
//! F32: v            U8 / I8: saturate(round_half_even(v / out_scale) + out_zero_point)
//! ```
//!
//! each step one f32 operation (no fused multiply-add), in that order, on every kernel. The
//! quantization is the spec's quantizeLinear as `kernels::quantize` computes it (divide by the
//! scale, round half to even, add the zero point in f32, saturate; NaN gives 0), so a
//! quantized output equals `quantizeLinear(v)` of the f32 value the F32 output holds.
//!
//! Where the result can differ from the float computation `Σ_p dequant(a)·dequant(b)`
//! (`(a[i][p] − 0)·a_scale[i]` times `(b[p][j] − b_zero_point)·b_scale`, summed in f32):
//! - the sum here is exact: `acc − b_zero_point · row_sums[i] = Σ_p a[i][p]·(b[p][j] −
//!   b_zero_point)` in integers, while the float sum rounds at every step (its result depends
//!   on the summation order; this one does not);
//! - that integer is converted to f32 once, which rounds it (to nearest even) only when its
//!   magnitude exceeds 2^24;
//! - the scales are applied once, to the sum, as the caller's `scale[i]` (usually
//!   `a_scale[i] · b_scale`, itself one f32 rounding) instead of to every product;
//! - the bias, the clamp and the quantization then follow the same f32 steps as the graph.
//!
//! # Limits
//! - The weights' zero point is 0 (symmetric int8 weights, the common case); B's zero point
//!   is any u8 value.
//! - `k ≤ MAX_DEPTH` (65,536): with `|a| ≤ 128` and `b ≤ 255` every sum, partial sum and
//!   `b_zero_point · row_sums[i]` then lies inside i32 (128 · 255 · 65,536 < 2^31). A deeper
//!   GEMM is an error (the caller falls back to the float path).
//! - Every size is checked, and every allocation fallible: an error, never a panic or an
//!   abort.
//!
//! Files: `pack.rs` (the panel layouts, the packing of A and B), `driver.rs` (the blocked
//! loops of one thread and the split among threads), `avx512_vnni.rs`, `avx2.rs` and
//! `portable.rs` (the microkernels and the epilogues), `tests.rs`.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512_vnni;
mod driver;
mod pack;
mod portable;
#[cfg(test)]
mod tests;

use super::requantize::Requantizer;
use crate::memory::AlignedBuf;
use driver::{Blocking, Epilogue, OutKind, Split};
use webnn_core::{DataType, Error};

/// Rows of an A micro-panel (and of a register tile).
pub const MR: usize = 8;
/// Columns of a B micro-panel (and of a register tile): three vectors of 16 i32 lanes.
pub const NR: usize = 48;
/// The deepest GEMM supported (see the module documentation, Limits).
pub const MAX_DEPTH: usize = 1 << 16;

/// The microkernel a GEMM runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    /// Plain Rust, any target.
    Portable,
    /// x86-64 AVX-512F + BW + VL + VNNI (`vpdpbusd`).
    Avx512Vnni,
    /// x86-64 AVX2 (`vpmaddwd` on 16-bit operands; Haswell, Zen 1–3 and later).
    Avx2,
}

impl Isa {
    /// The fastest one this CPU has (detected at run time; std caches it).
    pub fn best() -> Isa {
        [Isa::Avx512Vnni, Isa::Avx2].into_iter().find(|isa| isa.available()).unwrap_or(Isa::Portable)
    }

    /// Whether its panels hold 16-bit elements (pairs of depth steps per 32-bit word) rather
    /// than bytes (fours).
    pub(super) fn wide(self) -> bool {
        self == Isa::Avx2
    }

    /// Whether this CPU can run it.
    pub fn available(self) -> bool {
        match self {
            Isa::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512Vnni => {
                std::is_x86_feature_detected!("avx512f")
                    && std::is_x86_feature_detected!("avx512bw")
                    && std::is_x86_feature_detected!("avx512vl")
                    && std::is_x86_feature_detected!("avx512vnni")
            }
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => std::is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            Isa::Avx512Vnni | Isa::Avx2 => false,
        }
    }
}

/// Whether [`gemm()`] has a SIMD kernel on this CPU (else it runs the portable one, much
/// slower than a float GEMM with SIMD: a caller may prefer to dequantize then).
pub fn has_simd_kernel() -> bool {
    Isa::best() != Isa::Portable
}

/// The left operand A (m × k signed 8-bit weights, e.g. a quantized conv filter
/// `[cout][cin · kh · kw]` or the transposed weights of a MatMul), packed once when the graph
/// is built for one kernel's layout: ceil(m / MR) panels of MR rows; in a panel, for each
/// group of four depth steps, MR words of four bytes (row r's `a[r][4g..4g + 4]`), or for
/// the AVX2 kernel, for each pair of depth steps, MR words of two i16; rows past m and steps
/// past k zero. Also keeps `row_sums[i] = Σ_p a[i][p]`, for B's zero point.
pub struct PackedI8 {
    buf: AlignedBuf,
    row_sums: Vec<i32>,
    m: usize,
    k: usize,
    /// The 16-bit layout (`Isa::wide`).
    wide: bool,
}

impl PackedI8 {
    /// Packs the row-major m × k matrix `a` whose rows are `rs` elements apart (element
    /// (i, p) at `a[i * rs + p]`) for this CPU's best kernel.
    ///
    /// Errors (UnknownError): `a` does not hold the view, k exceeds [`MAX_DEPTH`], or the
    /// memory cannot be allocated.
    pub fn pack(a: &[i8], m: usize, k: usize, rs: usize) -> Result<PackedI8, Error> {
        Self::pack_for(Isa::best(), a, m, k, rs)
    }

    /// [`PackedI8::pack`] for the kernel of `isa` (which [`gemm_with`] then takes).
    pub fn pack_for(isa: Isa, a: &[i8], m: usize, k: usize, rs: usize) -> Result<PackedI8, Error> {
        let bad = |what: &str| Error::unknown(format!("int8 gemm: packing a {m}x{k} int8 matrix: {what}"));
        if k > MAX_DEPTH {
            return Err(bad("deeper than 65536"));
        }
        if !pack::view_fits(a.len(), m, k, rs, 1) {
            return Err(bad("the view does not lie inside its data"));
        }
        let wide = isa.wide();
        let len = pack::packed_a_len(m, k, wide).ok_or_else(|| bad("too large"))?;
        let mut buf = AlignedBuf::try_zeroed(len, "int8 gemm: packed weights")?;
        let mut row_sums = Vec::new();
        row_sums.try_reserve_exact(m).map_err(|_| bad("cannot allocate the row sums"))?;
        row_sums.resize(m, 0);
        pack::pack_a(a, m, k, rs, wide, buf.as_bytes_mut(), &mut row_sums);
        Ok(PackedI8 { buf, row_sums, m, k, wide })
    }

    /// `Σ_p a[i][p]` of every row i.
    pub fn row_sums(&self) -> &[i32] {
        &self.row_sums
    }

    /// Rows (m).
    pub fn rows(&self) -> usize {
        self.m
    }

    /// Depth (k).
    pub fn depth(&self) -> usize {
        self.k
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.buf.len() + self.row_sums.len() * 4
    }
}

/// The right operand B (k × n unsigned 8-bit activations): element (p, j) at
/// `data[p * rs + j * cs]`. Read, never written; the view may repeat elements (a stride 0).
/// Fast paths: `cs == 1` (the input of an NCHW 1×1 conv, an im2col matrix) and `rs == 1` (a
/// row-major `[n][k]` matrix used transposed, e.g. MatMul activations `[tokens][k]`).
#[derive(Clone, Copy, Debug)]
pub struct U8View<'a> {
    /// The elements.
    pub data: &'a [u8],
    /// Rows (the depth, k).
    pub k: usize,
    /// Columns (n).
    pub n: usize,
    /// Elements from one row to the next.
    pub rs: usize,
    /// Elements from one column to the next.
    pub cs: usize,
}

/// What happens to each sum `acc[i][j] = Σ_p a[i][p] · b[p][j]` (see the module
/// documentation, Arithmetic):
/// `v = clamp(((acc − b_zero_point · row_sums[i]) as f32) · scale[i] + bias[i], lo, hi)`.
#[derive(Clone, Copy, Debug)]
pub struct Requant<'a> {
    /// B's zero point, 0..=255.
    pub b_zero_point: i32,
    /// m scales (one per row: per-output-channel weights), or one for every row.
    pub scale: &'a [f32],
    /// m values added after the scale, if any.
    pub bias: Option<&'a [f32]>,
    /// Lower bound of the clamp (−∞ for none, 0 for a relu).
    pub lo: f32,
    /// Upper bound of the clamp (+∞ for none, 6 for a relu6).
    pub hi: f32,
    /// For an 8-bit output: each row's folded requantization, [`fold_rows`] of these
    /// parameters and that output's scale and zero point, computed once by a caller that runs
    /// the GEMM many times; `None`: the GEMM folds them on each call.
    pub folded: Option<&'a [Requantizer]>,
}

impl<'a> Requant<'a> {
    /// No bias, no clamp.
    pub fn new(b_zero_point: i32, scale: &'a [f32]) -> Self {
        Requant { b_zero_point, scale, bias: None, lo: f32::NEG_INFINITY, hi: f32::INFINITY, folded: None }
    }
}

/// Where C (m × n) goes: element (i, j) at `data[i * rs + j * cs]` (`rs == 1` for a
/// transposed C). Elements outside the view are not touched; the view must not repeat
/// elements.
#[derive(Debug)]
pub enum Output<'a> {
    /// The f32 values v.
    F32 {
        /// The elements.
        data: &'a mut [f32],
        /// Elements from one row to the next.
        rs: usize,
        /// Elements from one column to the next.
        cs: usize,
    },
    /// `saturate(round_half_even(v / scale) + zero_point)` as u8 (zero point 0..=255).
    U8 {
        /// The elements.
        data: &'a mut [u8],
        /// Elements from one row to the next.
        rs: usize,
        /// Elements from one column to the next.
        cs: usize,
        /// Output scale.
        scale: f32,
        /// Output zero point.
        zero_point: i32,
    },
    /// `saturate(round_half_even(v / scale) + zero_point)` as i8 (zero point −128..=127).
    I8 {
        /// The elements.
        data: &'a mut [i8],
        /// Elements from one row to the next.
        rs: usize,
        /// Elements from one column to the next.
        cs: usize,
        /// Output scale.
        scale: f32,
        /// Output zero point.
        zero_point: i32,
    },
}

/// `C = requant(A × B)` (m × n: A's rows, B's columns) on this CPU's best kernel, split over
/// the output across the current pool's threads (chosen from the multiply-add count with
/// `par::threads_for_macs`; results never depend on the split).
///
/// Errors (UnknownError): the shapes do not match (A's depth and B's), a view does not lie
/// inside its data, the output view repeats elements, `scale` or `bias` have the wrong length,
/// a zero point is out of its type's range, or the packing scratch cannot be allocated.
pub fn gemm(a: &PackedI8, b: U8View<'_>, req: &Requant<'_>, out: Output<'_>) -> Result<(), Error> {
    gemm_with(Isa::best(), a, b, req, out)
}

/// [`gemm()`] on the kernel of `isa` (an error if this CPU lacks it).
pub fn gemm_with(isa: Isa, a: &PackedI8, b: U8View<'_>, req: &Requant<'_>, out: Output<'_>) -> Result<(), Error> {
    gemm_tuned(isa, None, None, a, b, req, out)
}

/// [`gemm_with`] with the cache blocks (None: chosen from the shape) and the split of the
/// output among threads (None: from the thread count and the cost) given, for the tests.
fn gemm_tuned(
    isa: Isa,
    blocking: Option<Blocking>,
    split: Option<Split>,
    a: &PackedI8,
    b: U8View<'_>,
    req: &Requant<'_>,
    out: Output<'_>,
) -> Result<(), Error> {
    let (m, k, n) = (a.m, a.k, b.n);
    let bad = |what: &str| Err(Error::unknown(format!("int8 gemm {m}x{n}x{k}: {what}")));
    if !isa.available() {
        return bad("the CPU lacks the instruction set");
    }
    if isa.wide() != a.wide {
        return bad("A was packed for another kernel");
    }
    if b.k != k {
        return bad(&format!("B has {} rows, A {k} columns", b.k));
    }
    if !pack::view_fits(b.data.len(), k, n, b.rs, b.cs) {
        return bad("the B view does not lie inside its data");
    }
    if !(0..=255).contains(&req.b_zero_point) {
        return bad("B's zero point is not a uint8");
    }
    if req.scale.len() != m && req.scale.len() != 1 {
        return bad("the scales are neither one per row nor one");
    }
    if req.bias.is_some_and(|bias| bias.len() != m) {
        return bad("the bias is not one value per row");
    }
    let (kind, len, rs, cs) = match &out {
        Output::F32 { data, rs, cs } => (OutKind::F32, data.len(), *rs, *cs),
        Output::U8 { data, rs, cs, scale, zero_point } => {
            if !(0..=255).contains(zero_point) {
                return bad("the output zero point is not a uint8");
            }
            (OutKind::U8 { scale: *scale, zero_point: *zero_point as f32 }, data.len(), *rs, *cs)
        }
        Output::I8 { data, rs, cs, scale, zero_point } => {
            if !(-128..=127).contains(zero_point) {
                return bad("the output zero point is not an int8");
            }
            (OutKind::I8 { scale: *scale, zero_point: *zero_point as f32 }, data.len(), *rs, *cs)
        }
    };
    if !pack::view_fits(len, m, n, rs, cs) {
        return bad("the output view does not lie inside its data");
    }
    if !pack::view_is_injective(m, n, rs, cs) {
        return bad("the output view repeats elements");
    }
    if m == 0 || n == 0 {
        return Ok(());
    }
    let ptr = match out {
        Output::F32 { data, .. } => data.as_mut_ptr().cast::<u8>(),
        Output::U8 { data, .. } => data.as_mut_ptr(),
        Output::I8 { data, .. } => data.as_mut_ptr().cast::<u8>(),
    };
    // Finite parameters and a nonzero output scale: v is finite or ±∞ (an f32 overflow),
    // never NaN, and so is v / out_scale.
    let out_scale = match kind {
        OutKind::F32 => 1.0,
        OutKind::U8 { scale, .. } | OutKind::I8 { scale, .. } => scale,
    };
    let finite = req.scale.iter().chain(req.bias.unwrap_or(&[])).all(|v| v.is_finite());
    let may_be_nan = !finite || req.lo.is_nan() || req.hi.is_nan() || !out_scale.is_finite() || out_scale == 0.0;
    let folded_here = match (req.folded, &kind) {
        (None, OutKind::U8 { scale, zero_point }) => fold_rows(req, DataType::Uint8, *scale, *zero_point as i32, m)?,
        (None, OutKind::I8 { scale, zero_point }) => fold_rows(req, DataType::Int8, *scale, *zero_point as i32, m)?,
        _ => None,
    };
    let folded = match kind {
        OutKind::F32 => None,
        _ => req.folded.or(folded_here.as_deref()),
    };
    if folded.is_some_and(|rows| rows.len() != m) {
        return bad("the folded requantization is not one per row");
    }
    let epilogue = Epilogue {
        b_zero_point: req.b_zero_point,
        row_sums: &a.row_sums,
        scale: req.scale,
        bias: req.bias,
        lo: req.lo,
        hi: req.hi,
        kind,
        out: driver::OutPtr(ptr),
        rs,
        cs,
        may_be_nan,
        folded,
    };
    driver::run(isa, blocking, split, a, b, &epilogue)
}

/// The m rows' folded requantization (`requantize`) of `req` for an `out_type` (uint8 or
/// int8) output with `out_scale` and `zero_point`, or `None` for parameters that do not fold
/// (then the epilogue divides, as the spec does).
pub fn fold_rows(
    req: &Requant<'_>,
    out_type: DataType,
    out_scale: f32,
    zero_point: i32,
    m: usize,
) -> Result<Option<Vec<Requantizer>>, Error> {
    let mut rows = Vec::new();
    rows.try_reserve_exact(m).map_err(|_| Error::unknown(format!("int8 gemm: cannot allocate {m} rows' constants")))?;
    for i in 0..m {
        let scale = if req.scale.len() == 1 { req.scale[0] } else { req.scale[i] };
        let bias = req.bias.map_or(0.0, |b| b[i]);
        match Requantizer::fold(scale, bias, (req.lo, req.hi), out_scale, zero_point, out_type) {
            Some(r) => rows.push(r),
            None => return Ok(None),
        }
    }
    Ok(Some(rows))
}
