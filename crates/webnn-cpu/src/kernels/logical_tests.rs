//! Tests of the comparison / logical / where kernels against naive broadcasting loops written
//! here (multi-index arithmetic, no strides), for every data type.

use super::*;
use crate::testing::{bytes_of, from_bytes, run_op};
use crate::testing::{decode, encode};
use webnn_core::graph::Attrs;
use webnn_core::testing::Rng;
use webnn_core::OperandDescriptor;

/// Every data type.
const ALL: [DataType; 8] = DataType::ALL;

/// numpy broadcast of `shapes` (right-aligned).
fn broadcast_shape(shapes: &[&[u32]]) -> Vec<u32> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap();
    (0..rank)
        .map(|i| shapes.iter().map(|s| if i + s.len() >= rank { s[i + s.len() - rank] } else { 1 }).max().unwrap())
        .collect()
}

/// Flat index in an operand of shape `shape` of the output multi-index `idx` (broadcast).
fn source_index(shape: &[u32], idx: &[usize]) -> usize {
    let pad = idx.len() - shape.len();
    let mut flat = 0;
    for (d, &n) in shape.iter().enumerate() {
        let i = if n == 1 { 0 } else { idx[pad + d] };
        flat = flat * n as usize + i;
    }
    flat
}

/// The multi-index of flat index `i` in `shape`.
fn multi_index(shape: &[u32], mut i: usize) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        idx[d] = i % shape[d] as usize;
        i /= shape[d] as usize;
    }
    idx
}

fn count(shape: &[u32]) -> usize {
    shape.iter().map(|&d| d as usize).product()
}

/// Broadcast shape pairs: equal, scalar, size-1 dims, rank extension, odd sizes.
const PAIRS: &[(&[u32], &[u32])] = &[
    (&[7], &[7]),
    (&[], &[]),
    (&[3, 5], &[]),
    (&[], &[2, 3]),
    (&[2, 1, 5], &[3, 1]),
    (&[1, 4], &[3, 1]),
    (&[2, 3, 1, 5], &[1, 3, 4, 1]),
    (&[1], &[2, 2, 3]),
    (&[5, 1, 1, 1, 3], &[2, 7, 1, 3]),
];

/// Values exercising ordering: duplicates across the operands, zero, extremes of small types.
fn values(dt: DataType, n: usize, rng: &mut Rng) -> Vec<f64> {
    let (lo, hi) = match dt {
        DataType::Uint8 | DataType::Uint32 | DataType::Uint64 => (0.0, 6.0),
        _ => (-3.0, 3.0),
    };
    (0..n).map(|_| rng.uniform(lo, hi).floor()).collect()
}

#[test]
fn comparisons_broadcast_for_every_type() {
    let mut rng = Rng::new(7);
    #[allow(clippy::type_complexity)]
    let ops: [(OpKind, fn(f64, f64) -> bool); 6] = [
        (OpKind::Equal, |a, b| a == b),
        (OpKind::NotEqual, |a, b| a != b),
        (OpKind::Greater, |a, b| a > b),
        (OpKind::GreaterOrEqual, |a, b| a >= b),
        (OpKind::Lesser, |a, b| a < b),
        (OpKind::LesserOrEqual, |a, b| a <= b),
    ];
    for dt in ALL {
        for &(sa, sb) in PAIRS {
            let a = values(dt, count(sa), &mut rng);
            let b = values(dt, count(sb), &mut rng);
            let out_shape = broadcast_shape(&[sa, sb]);
            for (kind, f) in ops {
                let out = run_op(
                    kind,
                    &[
                        Some((OperandDescriptor::new(dt, sa.to_vec()), encode(dt, &a))),
                        Some((OperandDescriptor::new(dt, sb.to_vec()), encode(dt, &b))),
                    ],
                    Attrs::None,
                    &[OperandDescriptor::new(DataType::Uint8, out_shape.clone())],
                );
                let want: Vec<u8> = (0..count(&out_shape))
                    .map(|i| {
                        let idx = multi_index(&out_shape, i);
                        f(a[source_index(sa, &idx)], b[source_index(sb, &idx)]) as u8
                    })
                    .collect();
                assert_eq!(out[0], want, "{kind} {dt:?} {sa:?} {sb:?}");
            }
        }
    }
}

#[test]
fn comparisons_with_nan_zero_and_extremes() {
    let nan = f64::NAN;
    let a = [nan, 1.0, nan, 0.0, f64::INFINITY, -f64::INFINITY];
    let b = [1.0, nan, nan, -0.0, f64::INFINITY, 5.0];
    for dt in [DataType::Float32, DataType::Float16] {
        let run = |k| {
            run_op(
                k,
                &[
                    Some((OperandDescriptor::new(dt, vec![6]), encode(dt, &a))),
                    Some((OperandDescriptor::new(dt, vec![6]), encode(dt, &b))),
                ],
                Attrs::None,
                &[OperandDescriptor::new(DataType::Uint8, vec![6])],
            )[0]
            .clone()
        };
        assert_eq!(run(OpKind::Equal), [0, 0, 0, 1, 1, 0], "{dt:?}");
        assert_eq!(run(OpKind::NotEqual), [1, 1, 1, 0, 0, 1], "{dt:?}");
        assert_eq!(run(OpKind::Greater), [0, 0, 0, 0, 0, 0], "{dt:?}");
        assert_eq!(run(OpKind::GreaterOrEqual), [0, 0, 0, 1, 1, 0], "{dt:?}");
        assert_eq!(run(OpKind::Lesser), [0, 0, 0, 0, 0, 1], "{dt:?}");
        assert_eq!(run(OpKind::LesserOrEqual), [0, 0, 0, 1, 1, 1], "{dt:?}");
    }
    // 64-bit integers compare exactly (beyond f64 precision).
    fn compare<T: bytemuck::Pod>(kind: OpKind, dt: DataType, a: &[T], b: &[T]) -> Vec<u8> {
        let d = OperandDescriptor::new(dt, vec![a.len() as u32]);
        let out = OperandDescriptor::new(DataType::Uint8, vec![a.len() as u32]);
        run_op(kind, &[Some((d.clone(), bytes_of(a))), Some((d, bytes_of(b)))], Attrs::None, &[out]).remove(0)
    }
    let greater =
        compare(OpKind::Greater, DataType::Uint64, &[u64::MAX, u64::MAX - 1, 0], &[u64::MAX - 1, u64::MAX, 0]);
    assert_eq!(greater, [1, 0, 0]);
    let lesser = compare(OpKind::Lesser, DataType::Int64, &[i64::MIN, i64::MAX], &[i64::MIN + 1, i64::MAX - 1]);
    assert_eq!(lesser, [1, 0]);
}

#[test]
fn logical_ops_treat_non_zero_as_true() {
    let u8d = |s: &[u32]| OperandDescriptor::new(DataType::Uint8, s.to_vec());
    let a: Vec<u8> = vec![0, 1, 2, 255, 0, 7];
    let b: Vec<u8> = vec![0, 0, 9, 1, 128, 0];
    let run = |k, sa: &[u32], sb: &[u32], a: &[u8], b: &[u8], so: &[u32]| {
        run_op(k, &[Some((u8d(sa), a.to_vec())), Some((u8d(sb), b.to_vec()))], Attrs::None, &[u8d(so)])[0].clone()
    };
    assert_eq!(run(OpKind::LogicalAnd, &[6], &[6], &a, &b, &[6]), [0, 0, 1, 1, 0, 0]);
    assert_eq!(run(OpKind::LogicalOr, &[6], &[6], &a, &b, &[6]), [0, 1, 1, 1, 1, 1]);
    assert_eq!(run(OpKind::LogicalXor, &[6], &[6], &a, &b, &[6]), [0, 1, 0, 0, 1, 1]);
    // Broadcasting [2,3] with [3,1,1]... [3] against [2,1].
    let out = run(OpKind::LogicalAnd, &[3], &[2, 1], &[5, 0, 1], &[0, 200], &[2, 3]);
    assert_eq!(out, [0, 0, 0, 1, 0, 1]);
    let out = run(OpKind::LogicalXor, &[], &[2, 2], &[3], &[0, 1, 2, 0], &[2, 2]);
    assert_eq!(out, [1, 0, 0, 1]);
    let not = run_op(OpKind::LogicalNot, &[Some((u8d(&[2, 3]), a.clone()))], Attrs::None, &[u8d(&[2, 3])]);
    assert_eq!(not[0], [1, 0, 0, 0, 1, 0]);
    let not = run_op(OpKind::LogicalNot, &[Some((u8d(&[]), vec![0]))], Attrs::None, &[u8d(&[])]);
    assert_eq!(not[0], [1]);
}

#[test]
fn is_nan_and_is_infinite() {
    let x = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 65504.0, 1e-7, -3.5];
    for dt in [DataType::Float32, DataType::Float16] {
        let run = |k| {
            run_op(
                k,
                &[Some((OperandDescriptor::new(dt, vec![2, 4]), encode(dt, &x)))],
                Attrs::None,
                &[OperandDescriptor::new(DataType::Uint8, vec![2, 4])],
            )[0]
            .clone()
        };
        assert_eq!(run(OpKind::IsNaN), [1, 0, 0, 0, 0, 0, 0, 0], "{dt:?}");
        assert_eq!(run(OpKind::IsInfinite), [0, 1, 1, 0, 0, 0, 0, 0], "{dt:?}");
    }
    // float16 overflow to infinity and a float16 NaN bit pattern with payload.
    let bits: [u16; 3] = [0x7c00, 0x7e01, 0xfc00];
    let d = OperandDescriptor::new(DataType::Float16, vec![3]);
    let u = OperandDescriptor::new(DataType::Uint8, vec![3]);
    let r = |k| run_op(k, &[Some((d.clone(), bytes_of(&bits)))], Attrs::None, std::slice::from_ref(&u))[0].clone();
    assert_eq!(r(OpKind::IsNaN), [0, 1, 0]);
    assert_eq!(r(OpKind::IsInfinite), [1, 0, 1]);
}

const TRIPLES: &[(&[u32], &[u32], &[u32])] = &[
    (&[6], &[6], &[6]),
    (&[], &[], &[]),
    (&[2, 3], &[], &[3]),
    (&[3, 1], &[1, 4], &[]),
    (&[1, 1, 5], &[2, 1, 1], &[3, 1]),
    (&[2, 1, 3, 1], &[4, 1, 1], &[1, 2, 1, 1, 1]),
];

#[test]
fn where_selects_with_three_way_broadcast_for_every_type() {
    let mut rng = Rng::new(11);
    for dt in ALL {
        for &(sc, st, sf) in TRIPLES {
            let cond: Vec<u8> = (0..count(sc)).map(|_| [0u8, 1, 2, 255][(rng.next_u64() % 4) as usize]).collect();
            let t = values(dt, count(st), &mut rng);
            let f: Vec<f64> = values(dt, count(sf), &mut rng).iter().map(|v| v + 10.0).collect();
            let out_shape = broadcast_shape(&[sc, st, sf]);
            let out = run_op(
                OpKind::Where,
                &[
                    Some((OperandDescriptor::new(DataType::Uint8, sc.to_vec()), cond.clone())),
                    Some((OperandDescriptor::new(dt, st.to_vec()), encode(dt, &t))),
                    Some((OperandDescriptor::new(dt, sf.to_vec()), encode(dt, &f))),
                ],
                Attrs::None,
                &[OperandDescriptor::new(dt, out_shape.clone())],
            );
            let want: Vec<f64> = (0..count(&out_shape))
                .map(|i| {
                    let idx = multi_index(&out_shape, i);
                    if cond[source_index(sc, &idx)] != 0 {
                        t[source_index(st, &idx)]
                    } else {
                        f[source_index(sf, &idx)]
                    }
                })
                .collect();
            assert_eq!(decode(dt, &out[0]), want, "{dt:?} {sc:?} {st:?} {sf:?}");
        }
    }
}

#[test]
fn where_does_not_leak_nan_or_infinity_from_the_other_branch() {
    let d = OperandDescriptor::new(DataType::Float32, vec![4]);
    let out = run_op(
        OpKind::Where,
        &[
            Some((OperandDescriptor::new(DataType::Uint8, vec![4]), vec![1, 0, 1, 0])),
            Some((d.clone(), bytes_of(&[1.0f32, f32::NAN, 3.0, f32::INFINITY]))),
            Some((d.clone(), bytes_of(&[f32::NAN, 2.0, f32::NEG_INFINITY, 4.0]))),
        ],
        Attrs::None,
        &[d],
    );
    assert_eq!(from_bytes::<f32>(&out[0]), [1.0, 2.0, 3.0, 4.0]);
}

#[test]
fn large_broadcasts_match_naive_in_parallel_chunks() {
    // Output big enough for several parallel chunks, with broadcasting in every operand.
    let sa: &[u32] = &[3, 1, 257];
    let sb: &[u32] = &[129, 1];
    let out_shape = broadcast_shape(&[sa, sb]);
    assert!(count(&out_shape) > 2 * crate::kernels::unary::CHEAP_CHUNK);
    let mut rng = Rng::new(3);
    let a = values(DataType::Int32, count(sa), &mut rng);
    let b = values(DataType::Int32, count(sb), &mut rng);
    let out = run_op(
        OpKind::GreaterOrEqual,
        &[
            Some((OperandDescriptor::new(DataType::Int32, sa.to_vec()), encode(DataType::Int32, &a))),
            Some((OperandDescriptor::new(DataType::Int32, sb.to_vec()), encode(DataType::Int32, &b))),
        ],
        Attrs::None,
        &[OperandDescriptor::new(DataType::Uint8, out_shape.clone())],
    );
    for (i, &o) in out[0].iter().enumerate() {
        let idx = multi_index(&out_shape, i);
        assert_eq!(o, (a[source_index(sa, &idx)] >= b[source_index(sb, &idx)]) as u8, "at {idx:?}");
    }
    // where with all three broadcast, large.
    let sc: &[u32] = &[1, 129, 1];
    let cond: Vec<u8> = (0..129).map(|i| (i % 3) as u8).collect();
    let out_shape3 = broadcast_shape(&[sc, sa, sb]);
    let out = run_op(
        OpKind::Where,
        &[
            Some((OperandDescriptor::new(DataType::Uint8, sc.to_vec()), cond.clone())),
            Some((OperandDescriptor::new(DataType::Int32, sa.to_vec()), encode(DataType::Int32, &a))),
            Some((OperandDescriptor::new(DataType::Int32, sb.to_vec()), encode(DataType::Int32, &b))),
        ],
        Attrs::None,
        &[OperandDescriptor::new(DataType::Int32, out_shape3.clone())],
    );
    let got = decode(DataType::Int32, &out[0]);
    for (i, g) in got.iter().enumerate() {
        let idx = multi_index(&out_shape3, i);
        let want =
            if cond[source_index(sc, &idx)] != 0 { a[source_index(sa, &idx)] } else { b[source_index(sb, &idx)] };
        assert_eq!(*g, want, "at {idx:?}");
    }
}

#[test]
fn broadcast_walk_from_any_start_matches_naive() {
    let shapes: [&[u32]; 2] = [&[2, 1, 3], &[4, 1]];
    let out_shape = [2u32, 4, 3];
    let g = Broadcast::new(shapes, &out_shape);
    for start in 0..24 {
        for len in 1..=(24 - start) {
            let mut out = vec![[0usize; 2]; len];
            g.walk(&mut out, start, &|o| o);
            for (j, o) in out.iter().enumerate() {
                let idx = multi_index(&out_shape, start + j);
                assert_eq!(*o, [source_index(shapes[0], &idx), source_index(shapes[1], &idx)]);
            }
        }
    }
}
