//! The microkernel interface: one register tile of the output computed from an A micro-panel
//! and a B micro-panel, the instruction sets it comes in, and the cache blocking each uses.

use super::super::activation::clamp_value;
use super::super::epilogue::StoreActivation;
use super::super::sgemm::Mat;

/// One output tile for a microkernel: `rows × cols` (at most MR × NR) elements of C computed
/// as the sum over `kc` steps of an A micro-panel column times a B micro-panel row.
pub(super) struct Tile {
    /// Depth (number of rank-1 updates).
    pub kc: usize,
    /// A micro-panel: row i of step p at `a + i * a_rs + p * a_step` (packed: MR consecutive
    /// values per step, zero-padded; rows from `rows` on are not read when not packed).
    pub a: *const f32,
    /// Distance between the rows of the A micro-panel: 1 when packed, A's row stride when read
    /// in place (only for kernels with `Kernel::a_in_place`).
    pub a_rs: usize,
    /// Distance between the steps of the A micro-panel: MR when packed, A's column stride when
    /// read in place.
    pub a_step: usize,
    /// B micro-panel: for each step p, NR consecutive values (columns of B, zero-padded)
    /// at `b + p * b_rs`.
    pub b: *const f32,
    /// Distance between the steps of the B micro-panel: NR when packed, B's row stride when
    /// read in place.
    pub b_rs: usize,
    /// Start of cache lines (64 bytes each, `b_ahead_lines` of them) of a later B
    /// micro-panel to fetch into L2 while this tile runs, spread over its steps (by kernels
    /// with `Kernel::b_ahead`). Only a hint: the address need not be valid.
    pub b_ahead: *const f32,
    /// How many lines at `b_ahead`.
    pub b_ahead_lines: usize,
    /// Element (0, 0) of the tile in C; element (i, j) is `c[i * c_rs + j]`.
    pub c: *mut f32,
    /// Row stride of C, in elements.
    pub c_rs: usize,
    /// Valid rows, 1..=MR (the others are computed from padding and not stored).
    pub rows: usize,
    /// Valid columns, 1..=NR.
    pub cols: usize,
    /// Add to C's contents (a later depth block) instead of overwriting them (the first).
    pub accumulate: bool,
    /// What to apply to the sums before storing them ([`TileOps::NONE`] but on the last
    /// depth block of a GEMM whose epilogue has [`super::TileEpilogue::store_ops`]).
    pub ops: TileOps,
}

/// A [`super::StoreOps`] at one tile: `y = sum + bias`, `y = y ∘ other`, then the activation.
#[derive(Clone, Copy)]
pub(super) struct TileOps {
    /// The bias of the tile's first row (`bias_cols` false: one value per row) or first
    /// column (true: one per column); null for none.
    pub bias: *const f32,
    /// Whether `bias` runs along the columns.
    pub bias_cols: bool,
    /// The element-wise operand at the tile's first element (row i at `other + i · other_rs`);
    /// null for none.
    pub other: *const f32,
    /// Its row stride.
    pub other_rs: usize,
    /// Whether it multiplies (else adds).
    pub other_mul: bool,
    /// The activation, if any (the SiLU only for a kernel with [`Kernel::swish`]).
    pub act: Option<StoreActivation>,
}

impl TileOps {
    /// Nothing to apply.
    pub const NONE: TileOps = TileOps {
        bias: std::ptr::null(),
        bias_cols: false,
        other: std::ptr::null(),
        other_rs: 0,
        other_mul: false,
        act: None,
    };

    /// Whether there is anything to apply.
    #[inline(always)]
    pub fn any(&self) -> bool {
        !self.bias.is_null() || !self.other.is_null() || self.act.is_some()
    }

    /// Element (i, j)'s final value from `y` (the sum, plus C's old contents when
    /// accumulating): the scalar form of what the vector kernels do, with the backend's
    /// clamp (`activation::clamp_value`) and the CPU's vector SiLU on one lane.
    ///
    /// # Safety
    /// `bias` (if not null) is readable at offset i (rows) or j (columns), `other` (if not
    /// null) at `i · other_rs + j`.
    #[inline(always)]
    pub unsafe fn finish(&self, y: f32, i: usize, j: usize) -> f32 {
        // SAFETY: forwarded from the caller.
        let y = if self.bias.is_null() { y } else { y + unsafe { *self.bias.add(if self.bias_cols { j } else { i }) } };
        let y = if self.other.is_null() {
            y
        } else {
            // SAFETY: forwarded from the caller.
            let o = unsafe { *self.other.add(i * self.other_rs + j) };
            if self.other_mul {
                y * o
            } else {
                y + o
            }
        };
        match self.act {
            None => y,
            Some(StoreActivation::Clamp(lo, hi)) => clamp_value(y, lo, hi),
            // (Set only for a kernel whose SiLU is the CPU's vector form: this one.)
            Some(StoreActivation::Swish) => super::super::vector_activation::swish_one(y),
        }
    }
}

/// A microkernel: computes and stores one [`Tile`].
///
/// Safety contract: `a` is readable for MR (packed) or `rows` (in place) floats at each of the
/// kc steps, `b` for NR floats at each step (only `cols` if `cols <= Kernel::narrow`), the
/// `rows × cols` elements of C it addresses are writable (and readable if `accumulate`) and
/// not accessed by anyone else during the call, and the CPU has the kernel's instruction set.
pub(super) type TileFn = unsafe fn(&Tile);

/// Packs rows `i0..i0+mc`, depth `p0..p0+kc` of A into MR-high micro-panels (see
/// [`super::pack::pack_lhs`]). Safety contract: the CPU has the kernel's instruction set.
pub(super) type PackLhsFn = unsafe fn(Mat<'_>, usize, usize, usize, usize, &mut [f32]);

/// Packs depth `p0..p0+kc`, columns `j0..j0+nc` of B into NR-wide micro-panels (see
/// [`super::pack::pack_rhs`]). Safety contract: the CPU has the kernel's instruction set.
pub(super) type PackRhsFn = unsafe fn(Mat<'_>, usize, usize, usize, usize, &mut [f32]);

/// The instruction set a GEMM runs with (and packed operands are laid out for).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    /// Plain Rust, any target.
    Portable,
    /// x86-64 AVX2 + FMA.
    Avx2,
    /// x86-64 AVX-512F (with AVX2/FMA/VL, as `kernels::unary::has_avx512` detects).
    Avx512,
}

impl Isa {
    /// The fastest instruction set of this CPU (detected at run time; std caches it).
    pub fn best() -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            if super::super::unary::has_avx512() {
                return Isa::Avx512;
            }
            if super::super::unary::has_avx2() {
                return Isa::Avx2;
            }
        }
        Isa::Portable
    }

    /// Whether this CPU can run it.
    pub fn available(self) -> bool {
        match self {
            Isa::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => super::super::unary::has_avx2(),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => super::super::unary::has_avx512(),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// Its microkernel and packing routines; None if this CPU cannot run them.
    pub(super) fn kernel(self) -> Option<&'static Kernel> {
        if !self.available() {
            return None;
        }
        match self {
            Isa::Portable => Some(&super::portable::KERNEL),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => Some(&super::avx2::KERNEL),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => Some(&super::avx512::KERNEL),
            #[cfg(not(target_arch = "x86_64"))]
            _ => None,
        }
    }
}

/// A microkernel with its tile shape, packing routines and cache budgets.
pub(super) struct Kernel {
    /// Tile rows (height of an A micro-panel).
    pub mr: usize,
    /// Tile columns (width of a B micro-panel).
    pub nr: usize,
    /// Widest partial tile whose microkernel reads only its valid columns of B (such a last
    /// panel is packed without padding, so it stays in L1); 0 if none.
    pub narrow: usize,
    /// Whether the microkernel can read A in place (any strides) instead of packed.
    pub a_in_place: bool,
    /// Largest depth block.
    pub kc_max: usize,
    /// Floats of the B block (KC × NC) kept in the L2 cache.
    pub b_block: usize,
    /// Floats of the A block (MC × KC) kept in the L2 cache (and packed at a time).
    pub a_block: usize,
    /// Floats of an A read in place (by a kernel with `a_in_place`) up to which all the rows
    /// of a task are one block when B is packed, instead of blocks of `a_block`.
    pub a_in_place_block: usize,
    /// Whether the microkernel fetches `Tile::b_ahead` (else the driver prefetches it).
    pub b_ahead: bool,
    /// Whether the full panels of a row-major B may be read in place where the CPU prefers
    /// it ([`row_major_b_in_place`]); false: always packed per block.
    pub b_in_place: bool,
    /// Whether its tiles apply the SiLU of [`TileOps::act`] on this CPU: only where its
    /// SiLU is the form the activations run (`vector_activation`: AVX-512, else AVX2); a
    /// GEMM on another kernel applies a SiLU epilogue per tile instead.
    pub swish: fn() -> bool,
    /// Computes one tile.
    pub tile: TileFn,
    /// Packs A micro-panels.
    pub pack_lhs: PackLhsFn,
    /// Packs B micro-panels.
    pub pack_rhs: PackRhsFn,
}

/// The cache blocks of one GEMM: depth KC, and MC rows × NC columns (multiples of MR, NR);
/// whether the full panels of a row-major B are read in place (else packed per block,
/// like any strided B; see [`row_major_b_in_place`]); and up to how many floats (rows × KC)
/// the rows of a task are one block instead of MC when A is read in place and B packed
/// (`Kernel::a_in_place_block`; 0: never).
#[derive(Clone, Copy, Debug)]
pub(super) struct Blocking {
    pub kc: usize,
    pub mc: usize,
    pub nc: usize,
    pub b_in_place: bool,
    pub a_in_place_block: usize,
}

impl Kernel {
    /// The blocks for an m×n×k problem: the depth split into equal blocks of at most
    /// `kc_max` (so no thin last block), NC and MC sized so the B and A blocks fit their
    /// budgets (and no larger than the problem); a row-major B in place as this CPU prefers
    /// (always when m is one row of tiles).
    pub fn blocking(&self, m: usize, n: usize, k: usize) -> Blocking {
        let kc = k.div_ceil(k.div_ceil(self.kc_max).max(1)).max(1);
        let nc = ((self.b_block / kc) / self.nr).max(1) * self.nr;
        let mc = ((self.a_block / kc) / self.mr).max(1) * self.mr;
        let mc = mc.min(m.div_ceil(self.mr).max(1) * self.mr);
        let nc = nc.min(n.div_ceil(self.nr).max(1) * self.nr);
        // A single row of tiles reads each B panel once: packing it could only add a copy.
        Blocking {
            kc,
            mc,
            nc,
            b_in_place: m <= self.mr || (self.b_in_place && row_major_b_in_place()),
            a_in_place_block: if self.a_in_place { self.a_in_place_block } else { 0 },
        }
    }
}

/// Whether the full panels of a row-major B (an im2col matrix, a pointwise conv's input) are
/// read in place rather than packed block by block: true but on Intel CPUs. A kernel can
/// opt out (`Kernel::b_in_place`: the AVX2 one does); [`Kernel::blocking`] combines the two.
///
/// In place saves a copy, and measured best on AMD (Zen 5: 258 GFLOP/s on the 64×3136×576
/// conv GEMM, 97 % of peak). On Intel each depth step of an in-place panel reads a row of B a
/// whole row stride further (12.5 KB for a 56×56 plane): beyond the 2 KiB stride that Intel's
/// L1 stride prefetcher follows, and a new 4 KiB page at every step. Packed, the panel is
/// contiguous. Measured on an Ice Lake-SP Xeon (stop 31, kernel bench, 1 thread, medians of 5
/// alternating runs on a noisy host): 64×3136×576 56 → 80 GFLOP/s, 256×784×1152 76 → 109;
/// ResNet-50's fastest runs 82–84 → 75–81 ms (4 alternating runs each).
pub(super) fn row_major_b_in_place() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static IN_PLACE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *IN_PLACE.get_or_init(|| {
            // CPUID leaf 0: the vendor string in EBX, EDX, ECX ("Genu" "ineI" "ntel").
            let id = std::arch::x86_64::__cpuid(0);
            (id.ebx, id.edx, id.ecx) != (0x756e_6547, 0x4965_6e69, 0x6c65_746e)
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    true
}
