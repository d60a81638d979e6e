//! Fused epilogues: what a conv2d, matmul or gemm applies to its output while the tile it just
//! computed is still in cache, instead of separate steps that would read and write the whole
//! tensor again. The compile pass `compile::epilogue` decides what is absorbed; this file only
//! applies it.
//!
//! Every step performs the same f32 operation as the unfused step it replaces (the same
//! activation formula, one f32 add or multiply), in the same order, so a fused float32 result
//! equals the unfused one bit for bit (tested in `compile::epilogue`'s tests).

use super::activation::Activation;
use super::packed_gemm::{StoreOperand, StoreOps, TileEpilogue, TileOut};
use super::vector_activation::VectorActivation;
use super::In;
use smallvec::SmallVec;

/// An element-wise binary op absorbed into an epilogue (both orders are the same: f32 `+` and
/// `×` are commutative, NaN payloads aside).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EpilogueBinary {
    /// `y + other`
    Add,
    /// `y × other`
    Mul,
}

/// One step of an epilogue, applied to the running value `y` of each output element.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EpilogueStep {
    /// `y = act(y)`
    Activation(Activation),
    /// `y = y ∘ other[(i / inner) % len]` for output element `i` (flat index): `other` is the
    /// step's input `input` (an index into the fused step's inputs), broadcast along one
    /// contiguous group of output axes: a residual (`inner` 1, `len` = the output's size),
    /// a bias along the last axis (`inner` 1, `len` = its size), a per-channel bias of an
    /// nchw tensor (`inner` = h·w, `len` = c), a scalar (`len` 1).
    Binary {
        /// The op.
        op: EpilogueBinary,
        /// Which input of the fused step is `other`.
        input: usize,
        /// Output elements per step of `other`'s index.
        inner: usize,
        /// Elements of `other`.
        len: usize,
    },
}

/// The steps a fused conv2d / matmul / gemm applies to each output element, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Epilogue {
    /// In order of application.
    pub steps: SmallVec<[EpilogueStep; 2]>,
}

impl Epilogue {
    /// True when there is nothing to apply.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Binds the binary steps' operands for one dispatch (`inputs` are the fused step's
    /// inputs, all float32).
    pub fn bind<'a>(&'a self, inputs: &[Option<In<'a>>]) -> BoundEpilogue<'a> {
        let others = self
            .steps
            .iter()
            .map(|s| match *s {
                EpilogueStep::Binary { input, .. } => {
                    inputs.get(input).copied().flatten().map_or(&[][..], |i| i.slice::<f32>())
                }
                EpilogueStep::Activation(_) => &[][..],
            })
            .collect();
        BoundEpilogue { epilogue: self, others }
    }
}

/// The bias a conv adds to a GEMM tile before its epilogue: one value per tile row (nchw:
/// rows are output channels) or per tile column (nhwc: columns are channels), each slice
/// starting at the tile's first row or column.
#[derive(Clone, Copy, Debug)]
pub enum TileBias<'a> {
    /// No bias.
    None,
    /// `bias[r]` for row r.
    Rows(&'a [f32]),
    /// `bias[j]` for column j.
    Cols(&'a [f32]),
}

/// An [`Epilogue`] with its operands for one dispatch.
pub struct BoundEpilogue<'a> {
    epilogue: &'a Epilogue,
    /// Per step: the binary step's operand (empty for activations).
    others: SmallVec<[&'a [f32]; 2]>,
}

impl BoundEpilogue<'_> {
    /// True when there is nothing to apply.
    pub fn is_empty(&self) -> bool {
        self.epilogue.is_empty()
    }

    /// Adds `bias` to a finished GEMM tile, then applies the steps; the tile's row r holds the
    /// output elements `first(r)..`. Bias plus at most one activation (the common case: conv,
    /// bias and relu / clamp / SiLU), and bias plus an element-wise operand (a residual) plus
    /// at most one activation, are one pass and one SIMD dispatch for the whole tile; the
    /// result is the same f32 operations in the same order as bias, then each step.
    pub fn apply_tile(&self, tile: &mut TileOut<'_>, bias: TileBias<'_>, first: impl Fn(usize) -> usize) {
        match self.epilogue.steps.as_slice() {
            [] => super::activation::bias_tile(None, tile, bias),
            [EpilogueStep::Activation(act)] => super::activation::bias_tile(Some(*act), tile, bias),
            &[EpilogueStep::Binary { op, inner: 1, len, .. }, ref rest @ ..]
                if matches!(rest, [] | [EpilogueStep::Activation(_)]) && self.others[0].len() >= len =>
            {
                // A residual (or an operand along the rows): one pass over the tile, if every
                // row's run of the operand is contiguous.
                let (other, cols) = (&self.others[0][..len], tile.cols());
                let mut runs = SmallVec::<[&[f32]; 16]>::new();
                for r in 0..tile.rows() {
                    let at = run_start(first(r), len);
                    match other.get(at..at + cols) {
                        Some(run) => runs.push(run),
                        None => return self.apply_steps_by_row(tile, bias, first),
                    }
                }
                let act = match rest {
                    [EpilogueStep::Activation(act)] => Some(*act),
                    _ => None,
                };
                super::activation::bias_binary_tile(act, tile, bias, op, &runs);
            }
            _ => self.apply_steps_by_row(tile, bias, first),
        }
    }

    /// The steps as one activation that a kernel applies in registers as it stores its sums
    /// (the same bits as the step: [`StoreActivation`]): `Some(None)` when there are no
    /// steps, None when they are anything else.
    pub fn as_store_activation(&self) -> Option<Option<StoreActivation>> {
        match self.epilogue.steps.as_slice() {
            [] => Some(None),
            [EpilogueStep::Activation(act)] => store_activation(*act).map(Some),
            _ => None,
        }
    }

    /// [`BoundEpilogue::apply_tile`] step by step, row by row.
    fn apply_steps_by_row(&self, tile: &mut TileOut<'_>, bias: TileBias<'_>, first: impl Fn(usize) -> usize) {
        super::activation::bias_tile(None, tile, bias);
        for r in 0..tile.rows() {
            self.apply(first(r), tile.row(r));
        }
    }

    /// Starts fetching the operands [`BoundEpilogue::apply_tile`] will read for a tile of
    /// `rows` runs of `cols` output elements (run r starting at element `first(r)`): the
    /// operand of an element-wise step (a residual), read once per dispatch and usually not in
    /// cache; called before the GEMM computes the tile, it arrives while the sums run.
    #[inline]
    pub fn prefetch_tile(&self, rows: usize, cols: usize, first: impl Fn(usize) -> usize) {
        for (step, other) in self.epilogue.steps.iter().zip(&self.others) {
            if let EpilogueStep::Binary { inner: 1, len, .. } = *step {
                if len < cols || other.len() < len {
                    continue; // a short operand (a bias along the last axis) stays in cache
                }
                for r in 0..rows {
                    let at = run_start(first(r), len);
                    prefetch_run(&other[at..(at + cols).min(len)]);
                }
            }
        }
    }

    /// Applies the steps to `values`, the output elements `first..first + values.len()`.
    pub fn apply(&self, first: usize, values: &mut [f32]) {
        for (step, other) in self.epilogue.steps.iter().zip(&self.others) {
            match *step {
                EpilogueStep::Activation(act) => act.apply_in_place(values),
                EpilogueStep::Binary { op, inner, len, .. } => binary(op, first, values, other, inner, len),
            }
        }
    }

    /// Applies the steps to `rows` runs of `cols` elements of the output `out`, the first at
    /// element `first` and each `stride` after the previous one (a GEMM tile of an nchw conv:
    /// rows are channels; of an nhwc conv or a matmul: rows are pixels or matrix rows).
    pub fn apply_rows(&self, out: &mut [f32], first: usize, rows: usize, stride: usize, cols: usize) {
        if self.is_empty() || rows == 0 || cols == 0 {
            return;
        }
        if cols == stride {
            // Contiguous: one run.
            return self.apply_all_at(first, &mut out[first..first + rows * cols]);
        }
        let tile = &mut out[first..first + (rows - 1) * stride + cols];
        if rows * cols >= 1 << 15 {
            crate::par::chunks(tile, stride, |r, row| self.apply(first + r * stride, &mut row[..cols]));
        } else {
            for (r, row) in tile.chunks_mut(stride).enumerate() {
                self.apply(first + r * stride, &mut row[..cols]);
            }
        }
    }

    /// Applies the steps to a whole output (element 0 first), in parallel chunks.
    pub fn apply_all(&self, out: &mut [f32]) {
        if self.is_empty() {
            return;
        }
        self.apply_all_at(0, out);
    }

    /// Applies the steps to `values`, the output elements `first..`, in parallel chunks.
    fn apply_all_at(&self, first: usize, values: &mut [f32]) {
        const CHUNK: usize = 1 << 14;
        if values.len() <= CHUNK {
            return self.apply(first, values);
        }
        crate::par::chunks(values, CHUNK, |c, v| self.apply(first + c * CHUNK, v));
    }
}

/// A [`BoundEpilogue`] as a GEMM's [`TileEpilogue`]: C[i, j] is output element
/// `base + i · rs + j`; the tile at C[i, j0] gets its part of `bias` and then the steps;
/// before the tile's last depth block, the rows of its element-wise operands are prefetched.
///
/// The common epilogues are applied by the microkernel before it stores the tile
/// ([`TileEpilogue::store_ops`]), the same f32 operations without a pass over the stored
/// tile: the bias, then an operand along the last axis (a matmul's bias, when there is no
/// conv bias), then one laid out like the output (a residual), then a relu or a clamp; each
/// optional, in that order.
pub struct GemmEpilogue<'e, 'a, 'b> {
    /// The steps and their operands.
    pub ep: &'e BoundEpilogue<'a>,
    /// The bias of the whole GEMM: `Rows` one value per row of C, `Cols` per column.
    pub bias: TileBias<'b>,
    /// The output element of C[0, 0].
    pub base: usize,
    /// Output elements from one row of C to the next.
    pub rs: usize,
}

impl GemmEpilogue<'_, '_, '_> {
    /// The output element of row r of the tile at C[i, j0].
    #[inline(always)]
    fn first(&self, i: usize, j0: usize, r: usize) -> usize {
        self.base + (i + r) * self.rs + j0
    }
}

impl TileEpilogue for GemmEpilogue<'_, '_, '_> {
    #[inline(always)]
    fn tile(&self, i: usize, j0: usize, tile: &mut TileOut<'_>) {
        let bias = match self.bias {
            TileBias::None => TileBias::None,
            TileBias::Rows(b) => TileBias::Rows(&b[i..]),
            TileBias::Cols(b) => TileBias::Cols(&b[j0..]),
        };
        self.ep.apply_tile(tile, bias, |r| self.first(i, j0, r));
    }

    #[inline(always)]
    fn prefetch(&self, i: usize, j0: usize, rows: usize, cols: usize) {
        self.ep.prefetch_tile(rows, cols, |r| self.first(i, j0, r));
    }

    fn store_ops(&self, m: usize, n: usize) -> Option<StoreOps<'_>> {
        if m == 0 || n == 0 {
            return None;
        }
        // The last output element C covers: an operand at least one longer holds every
        // element's value at its own index, no wrapping.
        let end = self.base + (m - 1) * self.rs + n;
        let mut ops = StoreOps { bias: self.bias, other: None, act: None };
        let mut steps = self.ep.epilogue.steps.iter().zip(&self.ep.others).peekable();
        // An operand along the last axis (len n, every row starting at a multiple of n) adds
        // other[j]: a column bias, if there is no bias yet.
        if let Some((&EpilogueStep::Binary { op: EpilogueBinary::Add, inner: 1, len, .. }, other)) = steps.peek() {
            if len == n && self.base.is_multiple_of(n) && self.rs.is_multiple_of(n) && other.len() >= n {
                if let TileBias::None = ops.bias {
                    ops.bias = TileBias::Cols(&other[..n]);
                    steps.next();
                }
            }
        }
        if let Some((&EpilogueStep::Binary { op, inner: 1, len, .. }, other)) = steps.peek() {
            if len >= end && other.len() >= end {
                ops.other = Some(StoreOperand { op, data: &other[self.base..end], rs: self.rs });
                steps.next();
            }
        }
        match steps.next() {
            None => {}
            Some((EpilogueStep::Activation(act), _)) => ops.act = Some(store_activation(*act)?),
            Some(_) => return None,
        }
        steps.next().is_none().then_some(ops)
    }
}

/// An activation a kernel applies to its sums in registers as it stores them
/// ([`BoundEpilogue::as_store_activation`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StoreActivation {
    /// `clamp(y, lo, hi)` with `Activation::Clamp`'s two selects (a relu: `[0, ∞]`).
    Clamp(f32, f32),
    /// SiLU in the vector form the unfused activation runs on this CPU
    /// (`vector_activation::swish_avx512`, else `swish_avx2`; only offered where one runs).
    Swish,
}

#[cfg(target_arch = "x86_64")]
impl StoreActivation {
    /// The activation of 16 lanes.
    ///
    /// # Safety
    /// The CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    #[inline]
    pub(crate) unsafe fn apply_avx512(self, y: std::arch::x86_64::__m512) -> std::arch::x86_64::__m512 {
        use std::arch::x86_64::_mm512_set1_ps;
        match self {
            // SAFETY (caller): AVX-512F.
            StoreActivation::Clamp(lo, hi) => unsafe {
                super::simd::clamp_avx512(y, _mm512_set1_ps(lo), _mm512_set1_ps(hi))
            },
            StoreActivation::Swish => super::vector_activation::swish_avx512(y),
        }
    }

    /// The activation of 8 lanes, on a CPU without AVX-512 (where the SiLU offered is the
    /// AVX2 form the unfused activation runs).
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    pub(crate) unsafe fn apply_avx2(self, y: std::arch::x86_64::__m256) -> std::arch::x86_64::__m256 {
        use std::arch::x86_64::{_mm256_max_ps, _mm256_min_ps, _mm256_set1_ps};
        match self {
            // `vmaxps`/`vminps` return their second operand when one is NaN: y.
            StoreActivation::Clamp(lo, hi) => _mm256_min_ps(_mm256_set1_ps(hi), _mm256_max_ps(_mm256_set1_ps(lo), y)),
            StoreActivation::Swish => super::vector_activation::swish_avx2(y),
        }
    }
}

/// `act` as an activation a kernel applies in registers, if it has such a form: a clamp
/// ([`clamp_bounds`]), or SiLU where the activation kernels run a vector form (the same
/// bits).
fn store_activation(act: Activation) -> Option<StoreActivation> {
    match act {
        Activation::Swish if VectorActivation::of(Activation::Swish).is_some() => Some(StoreActivation::Swish),
        _ => clamp_bounds(act).map(|(lo, hi)| StoreActivation::Clamp(lo, hi)),
    }
}

/// The bounds of `act` as a clamp (`Activation::Clamp`'s two selects), if it is one: relu is
/// the clamp to `[0, ∞]` (`x < 0 ? 0 : x`, then nothing is above ∞; NaN passes through).
fn clamp_bounds(act: Activation) -> Option<(f32, f32)> {
    match act {
        Activation::Relu => Some((0.0, f32::INFINITY)),
        Activation::Clamp(lo, hi) => Some((lo, hi)),
        _ => None,
    }
}

/// Where the run of an `inner` = 1 operand of `len` elements for the output elements from
/// `first` on starts: `first % len`, without the division for a residual (as large as the
/// output), which a tile's epilogue computes for each of its rows.
#[inline(always)]
fn run_start(first: usize, len: usize) -> usize {
    if first < len {
        first
    } else {
        first % len
    }
}

/// Fetches the cache lines of `run` into L1 (a hint: no effect on results).
#[inline(always)]
fn prefetch_run(run: &[f32]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let Some(last) = run.len().checked_sub(1) else { return };
        let (start, end) = (run.as_ptr() as usize & !63, run[last..].as_ptr() as usize);
        let mut line = start;
        while line <= end {
            // SAFETY: prefetching never faults; the lines hold elements of `run`.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(line as *const i8) };
            line += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = run;
}

/// `values[k] = values[k] ∘ other[((first + k) / inner) % len]`, in runs where the index of
/// `other` is contiguous (`inner` = 1) or constant.
fn binary(op: EpilogueBinary, first: usize, values: &mut [f32], other: &[f32], inner: usize, len: usize) {
    if other.len() < len || len == 0 || inner == 0 {
        return; // unreachable for a validated graph: the pass computed len and inner from the shapes
    }
    // A scalar is one constant run over the whole slice (not runs of one element).
    let inner = if len == 1 { usize::MAX } else { inner };
    let mut k = 0;
    while k < values.len() {
        let i = first + k;
        let at = (i / inner) % len;
        if inner == 1 {
            let run = (len - at).min(values.len() - k);
            let (v, o) = (&mut values[k..k + run], &other[at..at + run]);
            super::simd::simd(
                #[inline(always)]
                || match op {
                    EpilogueBinary::Add => v.iter_mut().zip(o).for_each(|(y, &b)| *y += b),
                    EpilogueBinary::Mul => v.iter_mut().zip(o).for_each(|(y, &b)| *y *= b),
                },
            );
            k += run;
        } else {
            let run = (inner - i % inner).min(values.len() - k);
            let (v, b) = (&mut values[k..k + run], other[at]);
            super::simd::simd(
                #[inline(always)]
                || match op {
                    EpilogueBinary::Add => v.iter_mut().for_each(|y| *y += b),
                    EpilogueBinary::Mul => v.iter_mut().for_each(|y| *y *= b),
                },
            );
            k += run;
        }
    }
}
