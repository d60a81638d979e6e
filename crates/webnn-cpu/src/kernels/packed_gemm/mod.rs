//! Single-precision GEMM with operands packed once: `C = epilogue(A × B)`.
//!
//! BLIS-style: the output is computed in MR × NR register tiles by a microkernel (AVX-512F
//! 8 × 48, AVX2 + FMA 6 × 16, or portable 4 × 8, chosen at run time) from A packed into
//! MR-high row panels and B into NR-wide column panels, zero-padded so the microkernel has no
//! edge cases but its stores. Either operand can be packed once when the graph is built
//! ([`PackedLhs`] for the filter of an NCHW conv, [`PackedRhs`] for the weights of a MatMul)
//! or passed as a strided view: a row-major B is read in place (its full panels), and so is
//! any A by the AVX-512 kernel; other views are packed block by block into thread-local
//! scratch at run time. The epilogue sees each row segment of a tile right after its full sum
//! is stored, while it is still in cache (bias, activation, residual add), or, when it is a
//! [`StoreOps`] (a bias, a residual, a relu or clamp, a SiLU on AVX-512), the microkernel
//! applies it to the sums in its registers before the store.
//!
//! Files: `kernel.rs` (the microkernel interface and cache blocking), `avx512.rs`, `avx2.rs`,
//! `portable.rs` (the microkernels), `pack.rs` (panel layouts, aligned storage), `driver.rs`
//! (the blocked loops of one thread), `split.rs` (dividing the output among threads).

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod driver;
mod kernel;
mod pack;
mod portable;
mod split;
#[cfg(test)]
mod tests;

pub use super::sgemm::Mat;
pub use kernel::Isa;

use super::epilogue::{EpilogueBinary, StoreActivation, TileBias};

use driver::{Job, OutPtr};
use kernel::{Blocking, Kernel};
use pack::{packed_len, AlignedBuf};
use split::Split;
use webnn_core::Error;

/// The left operand A (m × k) packed once, e.g. the filter of an NCHW conv
/// (`[cout][cin/groups · kh · kw]`): ceil(m / MR) panels of MR rows, each k steps deep.
pub struct PackedLhs {
    buf: AlignedBuf,
    m: usize,
    k: usize,
    isa: Isa,
}

/// The right operand B (k × n) packed once, e.g. the weights of a MatMul/Gemm or the filter
/// of an NHWC conv: ceil(n / NR) panels of NR columns, each k steps deep.
pub struct PackedRhs {
    buf: AlignedBuf,
    k: usize,
    n: usize,
    /// Step of the last panel: NR, or its width when it is narrow enough for the kernel to
    /// read only its valid columns (then it is packed without padding).
    tail_step: usize,
    isa: Isa,
}

/// The left operand of [`gemm()`].
#[derive(Clone, Copy)]
pub enum Lhs<'a> {
    /// Packed at build time.
    Packed(&'a PackedLhs),
    /// An m × k view: read in place by the AVX-512 kernel, else packed at run time.
    Strided(Mat<'a>),
}

/// The right operand of [`gemm()`].
#[derive(Clone, Copy)]
pub enum Rhs<'a> {
    /// Packed at build time.
    Packed(&'a PackedRhs),
    /// A k × n view: read in place if row-major (`cs == 1`, but for a partial last panel),
    /// else packed at run time.
    Strided(Mat<'a>),
}

/// True if the `rows × cols` view `v` lies inside its slice.
fn fits(rows: usize, cols: usize, v: &Mat<'_>) -> bool {
    if rows == 0 || cols == 0 {
        return true;
    }
    (rows - 1)
        .checked_mul(v.rs)
        .zip((cols - 1).checked_mul(v.cs))
        .and_then(|(a, b)| a.checked_add(b))
        .is_some_and(|last| last < v.data.len())
}

/// The kernel of `isa` and a buffer of `len(kernel)` floats to pack the `rows × cols` view `v`
/// into: None if this CPU lacks the ISA, `v` does not hold the view, or the memory cannot be
/// allocated.
fn pack_target(
    isa: Isa,
    rows: usize,
    cols: usize,
    v: &Mat<'_>,
    len: impl FnOnce(&Kernel) -> Option<usize>,
) -> Option<(&'static Kernel, AlignedBuf, usize)> {
    let kernel = isa.kernel()?;
    if !fits(rows, cols, v) {
        return None;
    }
    let mut buf = AlignedBuf::default();
    let len = len(kernel)?;
    if !buf.grow(len) {
        return None;
    }
    Some((kernel, buf, len))
}

impl PackedLhs {
    /// Packs the m × k matrix `a` for this CPU's kernel; None if the memory cannot be
    /// allocated (or `a` does not hold an m × k view).
    pub fn new(m: usize, k: usize, a: Mat<'_>) -> Option<Self> {
        Self::with_isa(Isa::best(), m, k, a)
    }

    /// Packs `a` for the kernel of `isa`; None if this CPU lacks it, or as [`PackedLhs::new`].
    pub fn with_isa(isa: Isa, m: usize, k: usize, a: Mat<'_>) -> Option<Self> {
        let (kernel, mut buf, len) = pack_target(isa, m, k, &a, |kernel| packed_len(m, k, kernel.mr))?;
        if len > 0 {
            // SAFETY: `isa.kernel()` returned the kernel only because the CPU has its ISA; the
            // view covers m × k and the buffer holds ceil(m / MR)·MR·k floats.
            unsafe { (kernel.pack_lhs)(a, 0, m, 0, k, buf.as_mut_slice()) };
        }
        Some(PackedLhs { buf, m, k, isa })
    }

    /// Rows (m).
    pub fn rows(&self) -> usize {
        self.m
    }

    /// Depth (k).
    pub fn depth(&self) -> usize {
        self.k
    }

    /// The instruction set it is packed for.
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.buf.bytes()
    }
}

impl PackedRhs {
    /// Packs the k × n matrix `b` for this CPU's kernel; None if the memory cannot be
    /// allocated (or `b` does not hold a k × n view).
    pub fn new(k: usize, n: usize, b: Mat<'_>) -> Option<Self> {
        Self::with_isa(Isa::best(), k, n, b)
    }

    /// Packs `b` for the kernel of `isa`; None if this CPU lacks it, or as [`PackedRhs::new`].
    pub fn with_isa(isa: Isa, k: usize, n: usize, b: Mat<'_>) -> Option<Self> {
        let (kernel, mut buf, len) = pack_target(isa, k, n, &b, |kernel| packed_len(n, k, kernel.nr))?;
        let (full, tail) = (n / kernel.nr * kernel.nr, n % kernel.nr);
        let tail_step = if tail > 0 && tail <= kernel.narrow { tail } else { kernel.nr };
        if len > 0 {
            let dst = buf.as_mut_slice();
            if tail_step < kernel.nr {
                let (head, rest) = dst.split_at_mut(full * k);
                pack::pack_rhs_narrow(b, 0, k, full, tail, rest);
                // SAFETY: as in `PackedLhs::with_isa`, for the full panels (NR·k floats each).
                unsafe { (kernel.pack_rhs)(b, 0, k, 0, full, head) };
            } else {
                // SAFETY: as in `PackedLhs::with_isa`, for ceil(n / NR)·NR·k floats.
                unsafe { (kernel.pack_rhs)(b, 0, k, 0, n, dst) };
            }
        }
        Some(PackedRhs { buf, k, n, tail_step, isa })
    }

    /// Depth (k).
    pub fn depth(&self) -> usize {
        self.k
    }

    /// Columns (n).
    pub fn cols(&self) -> usize {
        self.n
    }

    /// The instruction set it is packed for.
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.buf.bytes()
    }
}

/// The epilogue that leaves the products as they are.
pub fn no_epilogue(_row: usize, _col: usize, _out: &mut [f32]) {}

/// A finished tile of C, handed to the epilogue while it is in cache: `rows()` rows of
/// `cols()` elements (row `r` is [`TileOut::row`]).
pub struct TileOut<'a> {
    ptr: *mut f32,
    rs: usize,
    rows: usize,
    cols: usize,
    _c: std::marker::PhantomData<&'a mut [f32]>,
}

impl<'a> TileOut<'a> {
    /// The tile of `rows` × `cols` elements at the start of `c`, rows `rs` apart.
    pub fn new(c: &'a mut [f32], rs: usize, rows: usize, cols: usize) -> Option<Self> {
        let fits = rows == 0
            || cols == 0
            || (rows - 1).checked_mul(rs).and_then(|x| x.checked_add(cols)).is_some_and(|end| end <= c.len());
        (fits && (rows <= 1 || rs >= cols)).then_some(TileOut {
            ptr: c.as_mut_ptr(),
            rs,
            rows,
            cols,
            _c: std::marker::PhantomData,
        })
    }

    /// Rows of the tile.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Columns of the tile.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Row `r` (< `rows()`) of the tile.
    #[inline(always)]
    pub fn row(&mut self, r: usize) -> &mut [f32] {
        assert!(r < self.rows, "tile row {r} of {}", self.rows);
        // SAFETY: the constructor (or the driver, for a tile it just computed) checked that
        // `rows` rows of `cols` elements, `rs >= cols` apart, lie inside the borrowed C;
        // `&mut self` makes the row the only live view.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(r * self.rs), self.cols) }
    }
}

/// What [`gemm()`] applies to each tile it finishes: any `Fn(i, j0, &mut row_segment)`
/// closure (called once per row of the tile, `i` and `j0` the segment's position in C), or
/// a type that takes the whole tile at once (one call, one SIMD dispatch: the conv and
/// matmul epilogues, `kernels::epilogue::GemmEpilogue`).
pub trait TileEpilogue: Sync {
    /// The tile whose first element is C[i, j].
    fn tile(&self, i: usize, j: usize, tile: &mut TileOut<'_>);

    /// Called just before the last depth block of the `rows × cols` tile at C[i, j] is
    /// computed: a chance to start fetching what [`TileEpilogue::tile`] will read (a residual
    /// as large as the output, usually out of cache), so it arrives while the sums run.
    #[inline(always)]
    fn prefetch(&self, _i: usize, _j: usize, _rows: usize, _cols: usize) {}

    /// The whole epilogue of an `m × n` GEMM as [`StoreOps`] (a bias, an element-wise
    /// operand, a clamp) that the microkernel applies to the sums itself before storing them,
    /// when it can be put so; then [`TileEpilogue::tile`] is not called for the tiles the
    /// microkernels compute. None (the default): every tile goes through
    /// [`TileEpilogue::tile`].
    #[inline(always)]
    fn store_ops(&self, _m: usize, _n: usize) -> Option<StoreOps<'_>> {
        None
    }
}

/// An epilogue a microkernel applies in its registers, on a tile's last depth block, instead
/// of a pass over the stored tile: `y = sum + bias`, then `y = y ∘ other`, then an
/// activation (`y = clamp(y, lo, hi)` with `Activation::Clamp`'s two selects — NaN passes
/// through, −0 stays −0 — or the AVX-512 SiLU), each when present: the same f32 operations in
/// the same order as the unfused steps, so the results are the same bits. The common conv
/// epilogues (bias, a residual, a relu, relu6 or SiLU) and matmul ones (a bias along the last
/// axis, a residual).
#[derive(Clone, Copy, Debug)]
pub struct StoreOps<'a> {
    /// Added first: `Rows(b)` adds `b[i]` to row i of C (m values), `Cols(b)` `b[j]` to column
    /// j (n values).
    pub bias: TileBias<'a>,
    /// Then an operand laid out like C, if any.
    pub other: Option<StoreOperand<'a>>,
    /// Then the activation, if any: a clamp (a relu: `[0, ∞]`), or the AVX-512 SiLU, which
    /// only the AVX-512 kernel applies (a GEMM that runs on another kernel ignores such ops
    /// and calls [`TileEpilogue::tile`]).
    pub act: Option<StoreActivation>,
}

/// An element-wise operand of [`StoreOps`]: C[i, j] becomes `C[i, j] ∘ data[i · rs + j]`.
#[derive(Clone, Copy, Debug)]
pub struct StoreOperand<'a> {
    /// The op.
    pub op: EpilogueBinary,
    /// Its values, from C[0, 0]'s on.
    pub data: &'a [f32],
    /// Elements from one row of C to the next.
    pub rs: usize,
}

impl<F: Fn(usize, usize, &mut [f32]) + Sync> TileEpilogue for F {
    #[inline(always)]
    fn tile(&self, i: usize, j: usize, tile: &mut TileOut<'_>) {
        for r in 0..tile.rows() {
            self(i + r, j, tile.row(r));
        }
    }
}

/// `c[i * c_rs + j] = A × B` (m × n, j contiguous), then the epilogue once for every output
/// element, on each tile just computed (still in cache) after its full sum is stored: a
/// closure `epilogue(i, j0, &mut c[i, j0..j0 + len])` per row segment of the tile, or a
/// whole-tile one ([`TileEpilogue`]). `c`'s old contents are never read (NaN included);
/// k = 0 gives zeros, then the epilogue. `parallel` lets the work split across the current
/// rayon pool (tiny problems stay on one thread). The ISA is the packed operands', else this
/// CPU's best.
///
/// Errors (UnknownError): the packing scratch cannot be allocated, or (a caller bug) a view
/// or packed operand does not match m, n, k, or packed operands of different ISAs.
#[allow(clippy::too_many_arguments)]
pub fn gemm<E>(
    m: usize,
    n: usize,
    k: usize,
    a: Lhs<'_>,
    b: Rhs<'_>,
    c: &mut [f32],
    c_rs: usize,
    parallel: bool,
    epilogue: &E,
) -> webnn_core::Result<()>
where
    E: TileEpilogue,
{
    let isa = match (a, b) {
        (Lhs::Packed(p), _) => p.isa,
        (_, Rhs::Packed(p)) => p.isa,
        _ => Isa::best(),
    };
    gemm_blocked(isa, None, m, n, k, a, b, c, c_rs, parallel, epilogue)
}

/// [`gemm()`] with the microkernel of `isa` (an error if this CPU lacks it, or if a packed
/// operand is packed for another) and the cache blocks given (tests use tiny ones to reach
/// every block edge with small matrices); None chooses them.
#[allow(clippy::too_many_arguments)]
fn gemm_blocked<E>(
    isa: Isa,
    blocking: Option<Blocking>,
    m: usize,
    n: usize,
    k: usize,
    a: Lhs<'_>,
    b: Rhs<'_>,
    c: &mut [f32],
    c_rs: usize,
    parallel: bool,
    epilogue: &E,
) -> webnn_core::Result<()>
where
    E: TileEpilogue,
{
    let bad = |what: &str| Err(Error::unknown(format!("gemm {m}x{n}x{k}: {what}")));
    let Some(kernel) = isa.kernel() else { return bad("the CPU lacks the instruction set") };
    match a {
        Lhs::Packed(p) if (p.m, p.k, p.isa) != (m, k, isa) => return bad("packed A does not match"),
        Lhs::Strided(v) if !fits(m, k, &v) => return bad("A view out of bounds"),
        _ => {}
    }
    match b {
        Rhs::Packed(p) if (p.k, p.n, p.isa) != (k, n, isa) => return bad("packed B does not match"),
        Rhs::Strided(v) if !fits(k, n, &v) => return bad("B view out of bounds"),
        _ => {}
    }
    if m == 0 || n == 0 {
        return Ok(());
    }
    let c_fits = (m - 1).checked_mul(c_rs).and_then(|x| x.checked_add(n)).is_some_and(|end| end <= c.len());
    if !c_fits || (m > 1 && c_rs < n) {
        return bad("C view out of bounds or overlapping");
    }
    if k == 0 {
        for i in 0..m {
            let row = &mut c[i * c_rs..i * c_rs + n];
            row.fill(0.0);
            if let Some(mut tile) = TileOut::new(row, n, 1, n) {
                epilogue.tile(i, 0, &mut tile);
            }
        }
        return Ok(());
    }
    let store = epilogue.store_ops(m, n).filter(|s| (kernel.swish)() || s.act != Some(StoreActivation::Swish));
    if let Some(s) = store {
        match s.bias {
            TileBias::Rows(bias) if bias.len() < m => return bad("the bias is shorter than the rows"),
            TileBias::Cols(bias) if bias.len() < n => return bad("the bias is shorter than the columns"),
            _ => {}
        }
        let covers = |o: &StoreOperand| {
            (m - 1)
                .checked_mul(o.rs)
                .and_then(|x| x.checked_add(n))
                .is_some_and(|end| end <= o.data.len() && (m == 1 || o.rs >= n))
        };
        if !s.other.as_ref().is_none_or(covers) {
            return bad("the element-wise operand does not cover C");
        }
    }
    let blocking = blocking.unwrap_or_else(|| kernel.blocking(m, n, k));
    let job = Job { kernel, k, a, b, c: OutPtr { ptr: c.as_mut_ptr(), rs: c_rs }, epilogue, store, blocking };
    let threads = if parallel { crate::par::threads_for_macs(m.saturating_mul(n).saturating_mul(k)) } else { 1 };
    let a_packs = matches!(a, Lhs::Strided(_)) && !kernel.a_in_place;
    let b_packs = matches!(b, Rhs::Strided(v) if v.cs != 1 || !blocking.b_in_place);
    let split = Split::choose(kernel, (m, n, k), (a_packs, b_packs), threads);
    if split.parts <= 1 {
        return job.run(0..m, 0..n);
    }
    crate::par::try_range(split.parts, |t| {
        let (rows, cols) = split.part(t, m, n);
        job.run(rows, cols)
    })
}
