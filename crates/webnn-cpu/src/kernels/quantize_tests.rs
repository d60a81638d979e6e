//! quantizeLinear / dequantizeLinear against a naive reference: per-tensor, per-axis, blockwise
//! and per-element scales, every float and quantized type, ties, saturation, NaN and ±∞.

use super::{round_half_even, Blockwise};
use crate::testing::element_maps::{numel, random_bytes, u32s, unravel};
use crate::testing::{bytes_of, from_bytes, run_op};
use half::f16;
use webnn_core::graph::Attrs;
use webnn_core::{DataType, OpKind, OperandDescriptor};

/// Naive round half to even.
fn round_even(v: f64) -> f64 {
    let f = v.floor();
    let d = v - f;
    if d > 0.5 || (d == 0.5 && f % 2.0 != 0.0) {
        f + 1.0
    } else {
        f
    }
}

fn range(dt: DataType) -> (f64, f64) {
    match dt {
        DataType::Uint8 => (0.0, 255.0),
        DataType::Int8 => (-128.0, 127.0),
        DataType::Uint32 => (0.0, u32::MAX as f64),
        _ => (i32::MIN as f64, i32::MAX as f64),
    }
}

/// Flat scale index of input element `f` (blockwise: coordinate / block size per dim).
fn scale_index(f: usize, x: &[usize], s: &[usize]) -> usize {
    let i = unravel(f, x);
    (0..x.len()).fold(0, |acc, d| acc * s[d] + i[d] / (x[d] / s[d]))
}

fn floats(dt: DataType, v: &[f32]) -> Vec<u8> {
    if dt == DataType::Float16 {
        bytes_of(&v.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>())
    } else {
        bytes_of(v)
    }
}

fn ints(dt: DataType, v: &[i64]) -> Vec<u8> {
    match dt {
        DataType::Uint8 => v.iter().map(|&x| x as u8).collect(),
        DataType::Int8 => v.iter().map(|&x| x as i8 as u8).collect(),
        DataType::Uint32 => bytes_of(&v.iter().map(|&x| x as u32).collect::<Vec<_>>()),
        _ => bytes_of(&v.iter().map(|&x| x as i32).collect::<Vec<_>>()),
    }
}

fn read_ints(dt: DataType, b: &[u8]) -> Vec<i64> {
    match dt {
        DataType::Uint8 => b.iter().map(|&x| x as i64).collect(),
        DataType::Int8 => b.iter().map(|&x| x as i8 as i64).collect(),
        DataType::Uint32 => from_bytes::<u32>(b).into_iter().map(|x| x as i64).collect(),
        _ => from_bytes::<i32>(b).into_iter().map(|x| x as i64).collect(),
    }
}

/// The value a float type stores for `v`.
fn stored(dt: DataType, v: f32) -> f32 {
    if dt == DataType::Float16 {
        f16::from_f32(v).to_f32()
    } else {
        v
    }
}

fn zero_points(qt: DataType, n: usize, seed: u64) -> Vec<i64> {
    let (lo, hi) = range(qt);
    let r = random_bytes(n, seed);
    (0..n)
        .map(|i| {
            if hi > 300.0 {
                r[i] as i64 * 1000 + lo.max(-5000.0) as i64
            } else {
                lo as i64 + r[i] as i64 % (hi - lo + 1.0) as i64
            }
        })
        .collect()
}

const CASES: &[(&[usize], &[usize])] = &[
    (&[], &[]),
    (&[7], &[1]),
    (&[7], &[7]),
    (&[6], &[3]),
    (&[4, 6], &[1, 1]),
    (&[4, 6], &[4, 1]),
    (&[4, 6], &[1, 6]),
    (&[4, 6], &[2, 3]),
    (&[4, 6], &[4, 6]),
    (&[2, 3, 4, 5], &[1, 3, 1, 1]),
    (&[2, 3, 4, 5], &[2, 1, 2, 5]),
    (&[1, 3, 1, 4], &[1, 3, 1, 2]),
    (&[3, 100, 120], &[1, 100, 1]),
    (&[3, 100, 120], &[1, 1, 1]),
    (&[3, 100, 120], &[3, 10, 40]),
];

#[test]
fn quantize_matches_naive() {
    let specials =
        [0.5f32, 1.5, 2.5, -0.5, -1.5, -2.5, 0.25, 1e9, -1e9, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 127.5, 128.5];
    for (case, &(x, s)) in CASES.iter().enumerate() {
        let n = numel(x);
        let r = random_bytes(n, case as u64);
        // Inputs: random multiples of 1/4 (many exact ties with scales 0.5/1/2) plus specials.
        let input: Vec<f32> = (0..n)
            .map(|i| if i % 5 == 4 { specials[i % specials.len()] } else { (r[i] as i32 - 128) as f32 * 0.25 * 3.0 })
            .collect();
        let sn = numel(s);
        let scales: Vec<f32> = (0..sn).map(|i| [0.5f32, 1.0, 2.0, 0.1, 3.0][i % 5]).collect();
        for ft in [DataType::Float32, DataType::Float16] {
            for qt in [DataType::Uint8, DataType::Int8, DataType::Uint32, DataType::Int32] {
                let zps = zero_points(qt, sn, case as u64 + 7);
                let (lo, hi) = range(qt);
                let want: Vec<i64> = (0..n)
                    .map(|f| {
                        let k = scale_index(f, x, s);
                        let q = stored(ft, input[f]) / stored(ft, scales[k]);
                        if q.is_nan() {
                            return 0;
                        }
                        (round_even(q as f64) + zps[k] as f64).clamp(lo, hi) as i64
                    })
                    .collect();
                let slots = [
                    Some((OperandDescriptor::new(ft, u32s(x)), floats(ft, &input))),
                    Some((OperandDescriptor::new(ft, u32s(s)), floats(ft, &scales))),
                    Some((OperandDescriptor::new(qt, u32s(s)), ints(qt, &zps))),
                ];
                let out = run_op(OpKind::QuantizeLinear, &slots, Attrs::None, &[OperandDescriptor::new(qt, u32s(x))]);
                assert_eq!(read_ints(qt, &out[0]), want, "quantize {ft:?}->{qt:?} {x:?}/{s:?}");
            }
        }
    }
}

#[test]
fn dequantize_matches_naive() {
    for (case, &(x, s)) in CASES.iter().enumerate() {
        let n = numel(x);
        let sn = numel(s);
        let scales: Vec<f32> = (0..sn).map(|i| [0.5f32, 1.25, 2.0, 0.1, 3.0][i % 5]).collect();
        for qt in [DataType::Uint8, DataType::Int8, DataType::Uint32, DataType::Int32] {
            let input = zero_points(qt, n, case as u64 + 50);
            let zps = zero_points(qt, sn, case as u64 + 9);
            for ft in [DataType::Float32, DataType::Float16] {
                let slots = [
                    Some((OperandDescriptor::new(qt, u32s(x)), ints(qt, &input))),
                    Some((OperandDescriptor::new(ft, u32s(s)), floats(ft, &scales))),
                    Some((OperandDescriptor::new(qt, u32s(s)), ints(qt, &zps))),
                ];
                let out = run_op(OpKind::DequantizeLinear, &slots, Attrs::None, &[OperandDescriptor::new(ft, u32s(x))]);
                let got_all: Vec<f64> = if ft == DataType::Float16 {
                    from_bytes::<f16>(&out[0]).into_iter().map(f16::to_f64).collect()
                } else {
                    from_bytes::<f32>(&out[0]).into_iter().map(|v| v as f64).collect()
                };
                for f in 0..n {
                    let k = scale_index(f, x, s);
                    // The difference is exact and small here, so the f32 product is exact-ish;
                    // compare with one rounding of the exact f64 product.
                    let exact = (input[f] - zps[k]) as f64 * stored(ft, scales[k]) as f64;
                    let got = got_all[f];
                    let want =
                        if ft == DataType::Float16 { f16::from_f64(exact).to_f64() } else { exact as f32 as f64 };
                    let ulp = if ft == DataType::Float16 {
                        f16::from_f64(want).to_bits().abs_diff(f16::from_f64(got).to_bits()) as u32
                    } else {
                        (want as f32).to_bits().abs_diff((got as f32).to_bits())
                    };
                    assert!(ulp <= 1, "dequantize {qt:?}->{ft:?} {x:?}/{s:?} element {f}: {got} vs {want}");
                }
            }
        }
    }
}

#[test]
fn blockwise_merging_keeps_the_scale_map() {
    for &(x, s) in CASES {
        let b = Blockwise::new(&u32s(x), &u32s(s));
        let n = numel(x);
        let mut seen = vec![usize::MAX; n];
        for start in [0, n / 3] {
            b.for_each_run(start, n - start, |r, k, per_element| {
                for (i, e) in r.enumerate() {
                    seen[e] = if per_element { k + i } else { k };
                }
            });
        }
        for (f, &k) in seen.iter().enumerate() {
            assert_eq!(k, scale_index(f, x, s), "{x:?}/{s:?} element {f}");
        }
    }
    // Per-channel NCHW merges to [N, C·HW] with blocks of HW.
    let b = Blockwise::new(&[2, 3, 4, 5], &[1, 3, 1, 1]);
    assert_eq!((b.x, b.b), (vec![2, 60], vec![2, 20]));
    let b = Blockwise::new(&[4, 6], &[4, 6]);
    assert_eq!((b.x, b.b), (vec![24], vec![1]));
}

#[test]
fn round_half_even_matches_std() {
    let mut v: Vec<f32> = vec![
        0.0,
        -0.0,
        0.5,
        1.5,
        2.5,
        -0.5,
        -1.5,
        -2.5,
        0.49999997,
        8388607.5,
        8388608.0,
        8388609.0,
        -8388607.5,
        1e30,
        -1e30,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MIN_POSITIVE,
        4194303.5,
        4194304.5,
    ];
    v.extend((0..100_000).map(|i| (i as f32 - 50_000.0) * 0.25 + 0.125 * (i % 3) as f32));
    for x in v {
        assert_eq!(round_half_even(x).to_bits(), x.round_ties_even().to_bits(), "{x}");
    }
    assert!(round_half_even(f32::NAN).is_nan());
}
