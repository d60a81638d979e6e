//! Shared support of the GEMM-based and float kernels (matmul, gemm, conv, pooling,
//! resample, normalization): a safe wrapper over the `gemm` crate (runtime CPU feature
//! detection: AVX2/FMA, AVX-512 with the `x86-v4` feature, NEON), f32/f16 element
//! conversion, reusable scratch buffers and constant-operand access for lowering.
//!
//! float16 is always computed in f32 and rounded once when written (`FloatElem`).

use half::f16;
use std::sync::{Mutex, MutexGuard};
use webnn_core::graph::OperandSource;
use webnn_core::{DataType, Graph, OperandId};

/// A read-only strided f32 matrix: element (i, j) is `data[i * rs + j * cs]`.
#[derive(Clone, Copy)]
pub struct Mat<'a> {
    /// The elements (the first element is (0, 0)).
    pub data: &'a [f32],
    /// Row stride, in elements.
    pub rs: usize,
    /// Column stride, in elements.
    pub cs: usize,
}

impl<'a> Mat<'a> {
    /// A row-major matrix with `cols` columns.
    pub fn rows(data: &'a [f32], cols: usize) -> Self {
        Mat { data, rs: cols, cs: 1 }
    }
}

/// One past the largest offset of a `rows` × `cols` view with strides `rs`, `cs`.
fn extent(rows: usize, cols: usize, rs: usize, cs: usize) -> usize {
    if rows == 0 || cols == 0 {
        return 0;
    }
    (rows - 1)
        .checked_mul(rs)
        .and_then(|a| (cols - 1).checked_mul(cs).and_then(|b| a.checked_add(b)))
        .and_then(|e| e.checked_add(1))
        .expect("matrix extent overflows")
}

/// `c = acc·c + alpha·(a × b)` with `a` m×k, `b` k×n and `c` m×n (row stride `c_rs`, column
/// stride `c_cs`); `acc = None` overwrites `c` (its old contents are never read, NaN
/// included). `parallel` lets the `gemm` crate split the work on the current rayon pool (it
/// only does so above its own size threshold); pass false inside an outer parallel loop.
///
/// Panics (an internal bug, never a data-dependent condition) if a view runs past its slice
/// or if the output view has overlapping elements.
#[allow(clippy::too_many_arguments)]
pub fn sgemm(m: usize, n: usize, k: usize, a: Mat<'_>, b: Mat<'_>, c: &mut [f32], c_rs: usize, c_cs: usize, alpha: f32, acc: Option<f32>, parallel: bool) {
    if m == 0 || n == 0 {
        return;
    }
    assert!(extent(m, n, c_rs, c_cs) <= c.len(), "gemm output view out of bounds");
    // Distinct (i, j) must address distinct elements: one stride must be 1 and the other
    // at least the extent of the first dimension.
    assert!(
        (c_cs == 1 && (m == 1 || c_rs >= n)) || (c_rs == 1 && (n == 1 || c_cs >= m)),
        "gemm output view overlaps itself"
    );
    if k == 0 {
        for i in 0..m {
            for j in 0..n {
                let e = &mut c[i * c_rs + j * c_cs];
                *e = match acc {
                    Some(s) => s * *e,
                    None => 0.0,
                };
            }
        }
        return;
    }
    assert!(extent(m, k, a.rs, a.cs) <= a.data.len(), "gemm lhs view out of bounds");
    assert!(extent(k, n, b.rs, b.cs) <= b.data.len(), "gemm rhs view out of bounds");
    // Below 2^18 multiply-adds a split costs more than it saves (the packed GEMM's rule).
    let macs = m * n * k;
    let threads = if parallel && macs >= 1 << 18 { crate::par::threads_for_macs(macs) } else { 1 };
    let parallelism = if threads > 1 { gemm::Parallelism::Rayon(threads) } else { gemm::Parallelism::None };
    // SAFETY: the asserts above check that every element addressed through the three views
    // lies inside its slice (strides fit in isize because the extents fit in slice lengths)
    // and that the destination view addresses each element once. `c` is borrowed mutably, so
    // it cannot alias `a` or `b`. `gemm` reads `c` only when `read_dst` is true.
    let mut run = move || unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            c_cs as isize,
            c_rs as isize,
            acc.is_some(),
            a.data.as_ptr(),
            a.cs as isize,
            a.rs as isize,
            b.data.as_ptr(),
            b.cs as isize,
            b.rs as isize,
            acc.unwrap_or(0.0),
            alpha,
            false,
            false,
            false,
            parallelism,
        )
    };
    // The gemm crate splits with rayon itself: its loops must run in the dispatch's pool.
    if threads > 1 {
        crate::par::in_pool(run)
    } else {
        run()
    }
}

/// The portable reference of [`sgemm`] (naive triple loop, f64 accumulation), for tests.
#[cfg(test)]
#[allow(clippy::too_many_arguments)]
pub fn sgemm_reference(m: usize, n: usize, k: usize, a: Mat<'_>, b: Mat<'_>, c: &mut [f32], c_rs: usize, c_cs: usize, alpha: f32, acc: Option<f32>) {
    for i in 0..m {
        for j in 0..n {
            let mut s = 0f64;
            for p in 0..k {
                s += a.data[i * a.rs + p * a.cs] as f64 * b.data[p * b.rs + j * b.cs] as f64;
            }
            let e = &mut c[i * c_rs + j * c_cs];
            *e = match acc {
                Some(t) => (t as f64 * *e as f64 + alpha as f64 * s) as f32,
                None => (alpha as f64 * s) as f32,
            };
        }
    }
}

/// Runs `f` compiled for AVX2+FMA when the CPU has them (detected at run time; the
/// baseline otherwise): `f` is inlined into a `#[target_feature]` function, so its loops
/// auto-vectorize with 256-bit vectors. Pass a closure marked `#[inline(always)]` whose body
/// calls `#[inline(always)]` functions, and call `simd` inside each parallel task (rayon
/// closures are separate functions that do not inherit the features).
#[inline(always)]
pub fn simd<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        if super::unary::has_avx512() {
            #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
            #[inline]
            unsafe fn avx512<R>(f: impl FnOnce() -> R) -> R {
                f()
            }
            // SAFETY: `avx512` only requires AVX-512F/VL, AVX2 and FMA, which the CPU was just
            // detected to support; the code is the same safe Rust as the fallback.
            return unsafe { avx512(f) };
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            #[target_feature(enable = "avx2,fma")]
            #[inline]
            unsafe fn avx2<R>(f: impl FnOnce() -> R) -> R {
                f()
            }
            // SAFETY: `avx2` only requires the AVX2 and FMA target features, which the CPU
            // was just detected to support. The code run is the same safe Rust as the
            // fallback below (tests run it on both paths via `simd_paths_agree`).
            return unsafe { avx2(f) };
        }
    }
    f()
}

/// A float element type computed in f32 (f32 itself, or f16 rounded once on store).
pub trait FloatElem: bytemuck::Pod + Send + Sync + 'static {
    /// Widens to f32.
    fn to_f32(self) -> f32;
    /// Rounds from f32 (round to nearest even).
    fn from_f32(v: f32) -> Self;
    /// Converts a slice to f32 (`dst.len() == src.len()`).
    fn slice_to_f32(src: &[Self], dst: &mut [f32]);
    /// Rounds a slice from f32 (`dst.len() == src.len()`).
    fn slice_from_f32(src: &[f32], dst: &mut [Self]);
}

impl FloatElem for f32 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self
    }
    #[inline(always)]
    fn from_f32(v: f32) -> f32 {
        v
    }
    fn slice_to_f32(src: &[f32], dst: &mut [f32]) {
        dst.copy_from_slice(src);
    }
    fn slice_from_f32(src: &[f32], dst: &mut [f32]) {
        dst.copy_from_slice(src);
    }
}

impl FloatElem for f16 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        f16::to_f32(self)
    }
    #[inline(always)]
    fn from_f32(v: f32) -> f16 {
        f16::from_f32(v)
    }
    fn slice_to_f32(src: &[f16], dst: &mut [f32]) {
        use half::slice::HalfFloatSliceExt;
        src.convert_to_f32_slice(dst);
    }
    fn slice_from_f32(src: &[f32], dst: &mut [f16]) {
        use half::slice::HalfFloatSliceExt;
        dst.convert_from_f32_slice(src);
    }
}

/// A reusable f32 buffer owned by a kernel: grown on first use, then reused by every
/// dispatch (a plan runs its steps one at a time, so the lock is never contended).
#[derive(Default)]
pub struct Scratch(Mutex<Vec<f32>>);

/// Makes `buf` at least `len` elements long, fallibly: scratch sized by tensor shapes must not
/// abort the process when memory runs out (an UnknownError instead).
pub fn grow<T: Clone + Default>(buf: &mut Vec<T>, len: usize) -> webnn_core::Result<()> {
    if buf.len() < len {
        buf.try_reserve_exact(len - buf.len()).map_err(|_| {
            webnn_core::Error::unknown(format!("dispatch: cannot allocate {} bytes of scratch", len * std::mem::size_of::<T>()))
        })?;
        buf.resize(len, T::default());
    }
    Ok(())
}

/// A locked scratch buffer of the requested length.
pub struct ScratchGuard<'a> {
    guard: MutexGuard<'a, Vec<f32>>,
    len: usize,
}

impl Scratch {
    /// Locks the buffer and makes it at least `len` elements long (contents unspecified); an
    /// UnknownError if it cannot grow (the dispatch fails and the context is lost).
    pub fn get(&self, len: usize) -> webnn_core::Result<ScratchGuard<'_>> {
        let mut guard = self.0.lock().unwrap_or_else(|e| e.into_inner());
        grow(&mut guard, len)?;
        Ok(ScratchGuard { guard, len })
    }
}

impl std::ops::Deref for ScratchGuard<'_> {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        &self.guard[..self.len]
    }
}

impl std::ops::DerefMut for ScratchGuard<'_> {
    fn deref_mut(&mut self) -> &mut [f32] {
        &mut self.guard[..self.len]
    }
}

/// The bytes of `id` if it is a constant of the graph.
pub fn constant_bytes(graph: &Graph, id: OperandId) -> Option<&[u8]> {
    match graph.operands.get(id.index())?.source {
        OperandSource::Constant(i) => graph.constants.get(i).map(|c| &c.bytes[..]),
        _ => None,
    }
}

/// A zero-filled vector of `n` elements, or None if it cannot be allocated. Kernels use it
/// for what they precompute at build time from constants: when it fails they fall back to
/// their path for non-constant operands (which works from fallible scratch), so a graph never
/// aborts the process for want of memory.
pub fn try_zeroed<T: Clone + Default>(n: usize) -> Option<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).ok()?;
    v.resize(n, T::default());
    Some(v)
}

/// Little-endian float32/float16 bytes widened to f32 (None for other types, or if the memory
/// cannot be allocated).
pub fn bytes_to_f32(data_type: DataType, bytes: &[u8]) -> Option<Vec<f32>> {
    match data_type {
        DataType::Float32 => {
            let mut out = try_zeroed::<f32>(bytes.len() / 4)?;
            bytemuck::cast_slice_mut::<f32, u8>(&mut out).copy_from_slice(&bytes[..bytes.len() / 4 * 4]);
            Some(out)
        }
        DataType::Float16 => {
            let mut out = try_zeroed::<f32>(bytes.len() / 2)?;
            for (o, c) in out.iter_mut().zip(bytes.chunks_exact(2)) {
                *o = f16::from_le_bytes([c[0], c[1]]).to_f32();
            }
            Some(out)
        }
        _ => None,
    }
}

/// The f32 values of a constant operand, if `id` is a float constant.
pub fn constant_f32(graph: &Graph, id: OperandId) -> Option<Vec<f32>> {
    let bytes = constant_bytes(graph, id)?;
    bytes_to_f32(graph.descriptor(id).data_type, bytes)
}

/// Widens a float32/float16 operand to f32: borrows float32 data, converts float16 into
/// `scratch`.
pub fn widen<'a>(data_type: DataType, bytes: &'a [u8], scratch: &'a mut [f32]) -> &'a [f32] {
    match data_type {
        DataType::Float16 => {
            let h: &[f16] = bytemuck::cast_slice(bytes);
            f16::slice_to_f32(h, &mut scratch[..h.len()]);
            &scratch[..h.len()]
        }
        _ => bytemuck::cast_slice(bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pseudo(n: usize, seed: u32) -> Vec<f32> {
        let mut rng = webnn_core::testing::Rng::new(seed as u64);
        (0..n).map(|_| rng.below(2000) as f32 / 1000.0 - 1.0).collect()
    }

    #[test]
    fn sgemm_matches_reference_for_strides_and_accumulation() {
        for &(m, n, k) in &[(1, 1, 1), (3, 5, 7), (17, 1, 9), (1, 33, 4), (65, 70, 130), (8, 8, 0)] {
            for &(ta, tb, tc) in &[(false, false, false), (true, false, false), (false, true, true), (true, true, true)] {
                let a = pseudo(m * k, 1);
                let b = pseudo(k * n, 2);
                let am = if ta { Mat { data: &a, rs: 1, cs: m } } else { Mat::rows(&a, k) };
                let bm = if tb { Mat { data: &b, rs: 1, cs: k } } else { Mat::rows(&b, n) };
                let (c_rs, c_cs) = if tc { (1, m) } else { (n, 1) };
                for acc in [None, Some(0.5f32)] {
                    let init = pseudo(m * n, 3);
                    let mut c1 = init.clone();
                    let mut c2 = init.clone();
                    sgemm(m, n, k, am, bm, &mut c1, c_rs, c_cs, 1.5, acc, true);
                    sgemm_reference(m, n, k, am, bm, &mut c2, c_rs, c_cs, 1.5, acc);
                    for (x, y) in c1.iter().zip(&c2) {
                        assert!((x - y).abs() <= 1e-4 * (1.0 + y.abs()), "{m}x{n}x{k}: {x} vs {y}");
                    }
                }
            }
        }
    }

    #[test]
    fn overwrite_ignores_nan_in_destination() {
        let a = [1.0f32, 2.0];
        let b = [3.0f32, 4.0];
        let mut c = [f32::NAN];
        sgemm(1, 1, 2, Mat::rows(&a, 2), Mat::rows(&b, 1), &mut c, 1, 1, 1.0, None, false);
        assert_eq!(c, [11.0]);
    }

    #[test]
    fn simd_paths_agree() {
        let x = pseudo(1003, 4);
        let body = |v: &[f32]| -> Vec<f32> { v.iter().map(|a| a * 1.5 + 0.25).collect() };
        let dispatched = simd(#[inline(always)] || body(&x));
        assert_eq!(dispatched, body(&x));
    }

    #[test]
    fn f16_slices_round_once() {
        let src = [1.0f32, 0.1, 65504.0, -2.5e-8];
        let mut h = [f16::ZERO; 4];
        f16::slice_from_f32(&src, &mut h);
        for (x, y) in src.iter().zip(&h) {
            assert_eq!(*y, f16::from_f32(*x));
        }
        let mut back = [0f32; 4];
        f16::slice_to_f32(&h, &mut back);
        assert_eq!(back[0], 1.0);
    }
}
