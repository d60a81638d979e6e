//! Timing of the primitives below the kernels, on one thread: the fast f32 transcendental
//! functions (`kernels::fast_math`) against libm, scalar and in the vectorized loops, and the
//! dot-product grid of the recurrent kernels (`kernels::recurrent::linalg`), its best
//! instruction set against the portable one.
//!
//! `cargo bench -p webnn-cpu --bench primitives` (all), or with name filters:
//! `cargo bench -p webnn-cpu --bench primitives -- erf dots`.

use std::time::Instant;
use webnn_cpu::kernels::fast_math::{erf_f32, exp_f32, expm1_f32, gelu_f32, sigmoid_f32, tanh_f32};
use webnn_cpu::kernels::recurrent::linalg::{grid, grid_best, Portable};

/// Prints the time per element of `f` over `x` (mean of 20 passes after a warm-up).
fn time(x: &[f32], y: &mut [f32], name: &str, f: &dyn Fn(&[f32], &mut [f32])) {
    f(x, y);
    let t = Instant::now();
    for _ in 0..20 {
        f(x, y);
    }
    println!("{name:<20} {:.3} ns/elem", t.elapsed().as_nanos() as f64 / 20.0 / x.len() as f64);
}

/// The fast functions against libm, twice (the second pass is the one to read).
fn fast_math() {
    let x: Vec<f32> = (0..1 << 20).map(|i| ((i % 2000) as f32 - 1000.0) / 100.0).collect();
    let mut y = vec![0.0f32; x.len()];
    for _ in 0..2 {
        let mut time = |name: &str, f: &dyn Fn(&[f32], &mut [f32])| time(&x, &mut y, name, f);
        time("libm exp", &|x, y| y.iter_mut().zip(x).for_each(|(o, &v)| *o = v.exp()));
        time("exp_f32", &|x, y| y.iter_mut().zip(x).for_each(|(o, &v)| *o = exp_f32(v)));
        time("libm tanh", &|x, y| y.iter_mut().zip(x).for_each(|(o, &v)| *o = v.tanh()));
        time("tanh_f32", &|x, y| y.iter_mut().zip(x).for_each(|(o, &v)| *o = tanh_f32(v)));
        time("libm expm1", &|x, y| y.iter_mut().zip(x).for_each(|(o, &v)| *o = v.exp_m1()));
        time("expm1_f32", &|x, y| y.iter_mut().zip(x).for_each(|(o, &v)| *o = expm1_f32(v)));
        time("sigmoid_f32", &|x, y| y.iter_mut().zip(x).for_each(|(o, &v)| *o = sigmoid_f32(v)));
        time("libm erf", &|x, y| y.iter_mut().zip(x).for_each(|(o, &v)| *o = libm::erff(v)));
        time("erf_f32", &|x, y| y.iter_mut().zip(x).for_each(|(o, &v)| *o = erf_f32(v)));
        time("gelu_f32", &|x, y| y.iter_mut().zip(x).for_each(|(o, &v)| *o = gelu_f32(v)));
        // Not vectorized (what happens when LLVM's cost model declines, e.g. for gelu in some
        // contexts).
        time("gelu_f32 scalar", &|x, y| {
            y.iter_mut().zip(x).for_each(|(o, &v)| *o = std::hint::black_box(gelu_f32(std::hint::black_box(v))))
        });
        #[cfg(target_arch = "x86_64")]
        if webnn_cpu::kernels::unary::has_avx2() {
            use webnn_cpu::kernels::unary::map_avx2;
            // SAFETY: the CPU has AVX2 and FMA (checked just above).
            time("avx2 erf_f32", &|x, y| unsafe { map_avx2(x, y, &erf_f32) });
            // SAFETY: as above.
            time("avx2 gelu_f32", &|x, y| unsafe { map_avx2(x, y, &gelu_f32) });
            // SAFETY: as above.
            time("avx2 exp_f32", &|x, y| unsafe { map_avx2(x, y, &exp_f32) });
        }
        time("copy", &|x, y| y.copy_from_slice(x));
    }
}

/// The recurrent kernels' dot-product grid (64 weight rows × 16 rows of 512), best against
/// portable.
fn dots() {
    let (k, n, m) = (512, 64, 16);
    let w: Vec<f32> = (0..n * k).map(|i| (i % 13) as f32 * 1e-3).collect();
    let xs: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32 * 1e-3).collect();
    let mut out = vec![0.0f32; n * m];
    for name in ["fast", "portable"] {
        let t = Instant::now();
        let reps = 1000;
        for _ in 0..reps {
            if name == "fast" {
                grid_best(std::hint::black_box(&w), n, &xs, m, k, |j, r, v| out[j * m + r] = v);
            } else {
                grid(&Portable, std::hint::black_box(&w), n, &xs, m, k, |j, r, v| out[j * m + r] = v);
            }
        }
        let s = t.elapsed().as_secs_f64();
        println!("dots {name:<15} {:.2} GFLOP/s {}", 2.0 * (reps * n * m * k) as f64 / s / 1e9, out[3]);
    }
}

fn main() {
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let wanted = |group: &str| filters.is_empty() || filters.iter().any(|f| group.contains(f.as_str()));
    if wanted("fast_math exp tanh expm1 sigmoid erf gelu") {
        fast_math();
    }
    if wanted("dots") {
        dots();
    }
}
