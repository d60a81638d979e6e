//! gather / gatherElements / gatherND / scatterElements / scatterND against naive references,
//! for every data type and index type, with negative and out-of-range indices
//! (decisions.md D10) and duplicate scatter indices (decisions.md D19).

use super::resolve;
use crate::testing::element_maps::*;
use crate::testing::{bytes_of, from_bytes, run_op};
use webnn_core::graph::Attrs;
use webnn_core::{DataType, OpKind, OperandDescriptor};

const INDEX_TYPES: [DataType; 3] = [DataType::Int32, DataType::Uint32, DataType::Int64];

/// Naive D10: wrap negatives once, clamp the rest.
fn fix(v: i64, n: usize) -> usize {
    let n = n as i64;
    let w = if v < 0 { v + n } else { v };
    if w < 0 {
        0
    } else if w >= n {
        (n - 1) as usize
    } else {
        w as usize
    }
}

/// Index values covering in-range, negative and out-of-range values for an axis of size `n`
/// (non-negative only for uint32).
fn index_values(count: usize, n: usize, dt: DataType, seed: u64) -> Vec<i64> {
    let r = random_bytes(count * 2, seed);
    (0..count)
        .map(|i| {
            let x = u16::from_le_bytes([r[2 * i], r[2 * i + 1]]) as i64;
            let span = 2 * n as i64 + 6;
            let v = x % span - n as i64 - 3;
            if dt == DataType::Uint32 {
                v.abs()
            } else {
                v
            }
        })
        .collect()
}

fn index_operand(values: &[i64], shape: &[usize], dt: DataType) -> (OperandDescriptor, Vec<u8>) {
    let d = OperandDescriptor::new(dt, u32s(shape));
    let b = match dt {
        DataType::Int32 => bytes_of(&values.iter().map(|&v| v as i32).collect::<Vec<_>>()),
        DataType::Uint32 => bytes_of(&values.iter().map(|&v| v as u32).collect::<Vec<_>>()),
        _ => bytes_of(values),
    };
    (d, b)
}

#[test]
fn resolve_wraps_and_clamps() {
    assert_eq!(resolve(-1i32, 4), 3);
    assert_eq!(resolve(-4i32, 4), 0);
    assert_eq!(resolve(-5i32, 4), 0);
    assert_eq!(resolve(4i32, 4), 3);
    assert_eq!(resolve(i32::MIN, 4), 0);
    assert_eq!(resolve(i64::MIN, 4), 0);
    assert_eq!(resolve(i64::MAX, 4), 3);
    assert_eq!(resolve(u32::MAX, 4), 3);
    assert_eq!(resolve(0u32, 1), 0);
}

/// Checks `kind` for every data type on operands of `shapes` whose slot 1 holds the index
/// `values` of type `it`: the one output, of `out_shape`, takes its elements from `map`.
fn check_indexed(
    kind: OpKind,
    shapes: &[Vec<usize>],
    (values, it): (&[i64], DataType),
    attrs: Attrs,
    out_shape: &[usize],
    map: &[Src],
) {
    let (d, b) = index_operand(values, &shapes[1], it);
    let (out_shape, map) = (out_shape.to_vec(), map.to_vec());
    for dt in ALL_TYPES {
        let fixed = [(1, d.clone(), b.clone())];
        check_maps(
            kind,
            dt,
            shapes,
            &fixed,
            attrs.clone(),
            std::slice::from_ref(&out_shape),
            std::slice::from_ref(&map),
        );
    }
}

#[test]
fn gather_along_every_axis() {
    let cases: Vec<(Vec<usize>, Vec<usize>, usize)> = vec![
        (vec![5], vec![], 0),
        (vec![5], vec![3], 0),
        (vec![4, 3], vec![2], 0),
        (vec![4, 3], vec![2, 2], 1),
        (vec![2, 3, 4], vec![5], 1),
        (vec![2, 3, 4], vec![1, 3], 2),
        (vec![2, 1, 4, 3], vec![2, 1, 2], 3),
        (vec![300, 200], vec![400], 0),
        (vec![300, 200], vec![500], 1),
    ];
    for (seed, (shape, ishape, axis)) in cases.into_iter().enumerate() {
        let out: Vec<usize> = [&shape[..axis], &ishape[..], &shape[axis + 1..]].concat();
        for it in INDEX_TYPES {
            let vals = index_values(numel(&ishape), shape[axis], it, seed as u64);
            let map = (0..numel(&out))
                .map(|f| {
                    let i = unravel(f, &out);
                    let k = ravel(&i[axis..axis + ishape.len()], &ishape);
                    let mut j: Vec<usize> = i[..axis].to_vec();
                    j.push(fix(vals[k], shape[axis]));
                    j.extend_from_slice(&i[axis + ishape.len()..]);
                    Src::In(0, ravel(&j, &shape))
                })
                .collect::<Vec<_>>();
            let attrs = Attrs::Axis { axis: axis as u32 };
            check_indexed(OpKind::Gather, &[shape.clone(), ishape.clone()], (&vals, it), attrs, &out, &map);
        }
    }
}

#[test]
fn gather_elements_along_every_axis() {
    let cases: Vec<(Vec<usize>, usize, usize)> = vec![
        (vec![5], 3, 0),
        (vec![4, 3], 2, 0),
        (vec![4, 3], 1, 1),
        (vec![4, 3], 5, 1),
        (vec![2, 3, 4], 6, 1),
        (vec![2, 1, 3, 2], 2, 3),
        (vec![300, 200], 250, 1),
    ];
    for (seed, (shape, ni, axis)) in cases.into_iter().enumerate() {
        let mut ishape = shape.clone();
        ishape[axis] = ni;
        for it in INDEX_TYPES {
            let vals = index_values(numel(&ishape), shape[axis], it, 100 + seed as u64);
            let map = (0..numel(&ishape))
                .map(|f| {
                    let mut i = unravel(f, &ishape);
                    i[axis] = fix(vals[f], shape[axis]);
                    Src::In(0, ravel(&i, &shape))
                })
                .collect::<Vec<_>>();
            let attrs = Attrs::Axis { axis: axis as u32 };
            check_indexed(OpKind::GatherElements, &[shape.clone(), ishape.clone()], (&vals, it), attrs, &ishape, &map);
        }
    }
}

#[test]
fn gather_nd_with_every_coordinate_size() {
    let cases: Vec<(Vec<usize>, Vec<usize>)> = vec![
        (vec![5], vec![1]),
        (vec![5], vec![3, 1]),
        (vec![2, 2], vec![3, 2]),
        (vec![2, 2], vec![2, 1]),
        (vec![2, 3, 4], vec![2, 2, 2]),
        (vec![2, 3, 4], vec![3]),
        (vec![2, 3, 4], vec![4, 1]),
        (vec![3, 1, 2, 5], vec![2, 3, 3]),
        (vec![300, 200], vec![400, 1]),
    ];
    for (seed, (shape, ishape)) in cases.into_iter().enumerate() {
        let c = *ishape.last().unwrap();
        let tuples = numel(&ishape[..ishape.len() - 1]);
        let out: Vec<usize> = [&ishape[..ishape.len() - 1], &shape[c..]].concat();
        let slice = numel(&shape[c..]);
        for it in INDEX_TYPES {
            let vals = index_values(numel(&ishape), *shape[..c].iter().max().unwrap(), it, 200 + seed as u64);
            let mut map = Vec::new();
            for t in 0..tuples {
                let coord: Vec<usize> = (0..c).map(|k| fix(vals[t * c + k], shape[k])).collect();
                for r in 0..slice {
                    let mut j = coord.clone();
                    j.extend(unravel(r, &shape[c..]));
                    map.push(Src::In(0, ravel(&j, &shape)));
                }
            }
            check_indexed(OpKind::GatherNd, &[shape.clone(), ishape.clone()], (&vals, it), Attrs::None, &out, &map);
        }
    }
}

#[test]
fn scatter_elements_last_write_wins() {
    let cases: Vec<(Vec<usize>, usize, usize)> = vec![
        (vec![5], 3, 0),
        (vec![5], 9, 0),
        (vec![4, 3], 2, 0),
        (vec![4, 3], 6, 1),
        (vec![2, 3, 4], 5, 1),
        (vec![2, 1, 3, 2], 2, 3),
        (vec![300, 200], 300, 1),
        (vec![300, 200], 100, 0),
    ];
    for (seed, (shape, ni, axis)) in cases.into_iter().enumerate() {
        let mut ishape = shape.clone();
        ishape[axis] = ni;
        for it in INDEX_TYPES {
            let vals = index_values(numel(&ishape), shape[axis], it, 300 + seed as u64);
            // Output element ← input, or the last update (row-major) that lands on it.
            let mut map: Vec<Src> = (0..numel(&shape)).map(|f| Src::In(0, f)).collect();
            for (f, &v) in vals.iter().enumerate() {
                let mut i = unravel(f, &ishape);
                i[axis] = fix(v, shape[axis]);
                map[ravel(&i, &shape)] = Src::In(2, f);
            }
            let shapes = [shape.clone(), ishape.clone(), ishape.clone()];
            let attrs = Attrs::Axis { axis: axis as u32 };
            check_indexed(OpKind::ScatterElements, &shapes, (&vals, it), attrs, &shape, &map);
        }
    }
}

#[test]
fn scatter_nd_last_write_wins() {
    let cases: Vec<(Vec<usize>, Vec<usize>)> = vec![
        (vec![8], vec![4, 1]),
        (vec![8], vec![20, 1]),
        (vec![2, 2], vec![2, 2]),
        (vec![3, 2], vec![2, 1]),
        (vec![2, 2, 2], vec![2, 2]),
        (vec![2, 3, 4], vec![2, 3, 3]),
        (vec![2, 3, 4], vec![1]),
        (vec![300, 200], vec![500, 1]),
    ];
    for (seed, (shape, ishape)) in cases.into_iter().enumerate() {
        let c = *ishape.last().unwrap();
        let tuples = numel(&ishape[..ishape.len() - 1]);
        let ushape: Vec<usize> = [&ishape[..ishape.len() - 1], &shape[c..]].concat();
        let slice = numel(&shape[c..]);
        for it in INDEX_TYPES {
            let vals = index_values(numel(&ishape), *shape[..c].iter().max().unwrap(), it, 400 + seed as u64);
            let mut map: Vec<Src> = (0..numel(&shape)).map(|f| Src::In(0, f)).collect();
            for t in 0..tuples {
                let coord: Vec<usize> = (0..c).map(|k| fix(vals[t * c + k], shape[k])).collect();
                for r in 0..slice {
                    let mut j = coord.clone();
                    j.extend(unravel(r, &shape[c..]));
                    map[ravel(&j, &shape)] = Src::In(2, t * slice + r);
                }
            }
            let shapes = [shape.clone(), ishape.clone(), ushape.clone()];
            check_indexed(OpKind::ScatterNd, &shapes, (&vals, it), Attrs::None, &shape, &map);
        }
    }
}

#[test]
fn spec_examples() {
    let input: Vec<f32> = vec![0., 1., 2., 10., 11., 12., 20., 21., 22., 30., 31., 32.];
    let in_desc = OperandDescriptor::new(DataType::Float32, vec![4, 3]);
    let run = |kind, idx: &[i32], ishape: Vec<u32>, upd: Option<Vec<f32>>, axis, out: Vec<u32>| {
        let mut slots = vec![
            Some((in_desc.clone(), bytes_of(&input))),
            Some((OperandDescriptor::new(DataType::Int32, ishape.clone()), bytes_of(idx))),
        ];
        if let Some(u) = upd {
            slots.push(Some((OperandDescriptor::new(DataType::Float32, ishape), bytes_of(&u))));
        }
        let o = run_op(kind, &slots, Attrs::Axis { axis }, &[OperandDescriptor::new(DataType::Float32, out)]);
        from_bytes::<f32>(&o[0])
    };
    assert_eq!(run(OpKind::Gather, &[3, 1], vec![2], None, 0, vec![2, 3]), [30., 31., 32., 10., 11., 12.]);
    assert_eq!(
        run(OpKind::Gather, &[2, 1, 1], vec![3], None, 1, vec![4, 3]),
        [2., 1., 1., 12., 11., 11., 22., 21., 21., 32., 31., 31.]
    );
    assert_eq!(
        run(OpKind::GatherElements, &[3, 1, 1, 2, 0, 3], vec![2, 3], None, 0, vec![2, 3]),
        [30., 11., 12., 20., 1., 32.]
    );
    assert_eq!(
        run(
            OpKind::ScatterElements,
            &[3, 1, 1, 2, 0, 3],
            vec![2, 3],
            Some(vec![-1., -2., -3., -4., -5., -6.]),
            0,
            vec![4, 3]
        ),
        [0., -5., 2., 10., -2., -3., -4., 21., 22., -1., 31., -6.]
    );
    assert_eq!(
        run(OpKind::ScatterElements, &[2, 1, 0, 2], vec![4, 1], Some(vec![-1., -2., -3., -4.]), 1, vec![4, 3]),
        [0., 1., -1., 10., -2., 12., -3., 21., 22., 30., 31., -4.]
    );
    // Negative indices count from the end (D10).
    assert_eq!(run(OpKind::Gather, &[-1, -4], vec![2], None, 0, vec![2, 3]), [30., 31., 32., 0., 1., 2.]);
}

#[test]
fn lowering_rejects_inconsistent_operations_instead_of_panicking() {
    use crate::testing::element_maps::lowers;
    let f = |s: &[u32]| OperandDescriptor::new(DataType::Float32, s.to_vec());
    let i = |s: &[u32]| OperandDescriptor::new(DataType::Int32, s.to_vec());
    let t = |p: Vec<u32>| Attrs::Transpose { permutation: p };
    assert!(lowers(OpKind::Transpose, &[f(&[2, 3])], t(vec![1, 0]), &[f(&[3, 2])]));
    assert!(!lowers(OpKind::Transpose, &[f(&[2, 3])], t(vec![2, 0]), &[f(&[3, 2])]));
    assert!(!lowers(OpKind::Transpose, &[f(&[2, 3])], t(vec![1, 0]), &[f(&[3, 3])]));
    let sl = |st: u32| Attrs::Slice { starts: vec![st], sizes: vec![3], strides: vec![1] };
    assert!(lowers(OpKind::Slice, &[f(&[5])], sl(2), &[f(&[3])]));
    assert!(!lowers(OpKind::Slice, &[f(&[5])], sl(3), &[f(&[3])]));
    assert!(!lowers(OpKind::Expand, &[f(&[2, 3])], Attrs::None, &[f(&[3])]));
    assert!(!lowers(OpKind::Tile, &[f(&[2])], Attrs::Tile { repetitions: vec![2] }, &[f(&[5])]));
    assert!(!lowers(OpKind::Concat, &[f(&[2]), f(&[3])], Attrs::Axis { axis: 0 }, &[f(&[6])]));
    assert!(!lowers(OpKind::Split, &[f(&[6])], Attrs::Split { axis: 0, sizes: vec![2, 3] }, &[f(&[2]), f(&[3])]));
    let pad = |e: u32| Attrs::Pad {
        beginning: vec![1],
        ending: vec![e],
        mode: webnn_core::types::PaddingMode::Edge,
        value: webnn_core::Scalar::F32(0.0),
    };
    assert!(lowers(OpKind::Pad, &[f(&[3])], pad(1), &[f(&[5])]));
    assert!(!lowers(OpKind::Pad, &[f(&[3])], pad(2), &[f(&[5])]));
    assert!(!lowers(OpKind::Gather, &[f(&[4, 3]), i(&[2])], Attrs::Axis { axis: 2 }, &[f(&[4, 2])]));
    assert!(!lowers(OpKind::Gather, &[f(&[4, 3]), i(&[2])], Attrs::Axis { axis: 0 }, &[f(&[4, 3])]));
    assert!(!lowers(OpKind::GatherElements, &[f(&[4, 3]), i(&[2, 2])], Attrs::Axis { axis: 0 }, &[f(&[2, 2])]));
    assert!(!lowers(OpKind::GatherNd, &[f(&[4, 3]), i(&[2, 3])], Attrs::None, &[f(&[2])]));
    assert!(!lowers(OpKind::ScatterNd, &[f(&[4, 3]), i(&[2, 1]), f(&[2, 2])], Attrs::None, &[f(&[4, 3])]));
    assert!(lowers(OpKind::ScatterNd, &[f(&[4, 3]), i(&[2, 1]), f(&[2, 3])], Attrs::None, &[f(&[4, 3])]));
    assert!(!lowers(
        OpKind::ScatterElements,
        &[f(&[4, 3]), i(&[2, 3]), f(&[2, 2])],
        Attrs::Axis { axis: 0 },
        &[f(&[4, 3])]
    ));
    let u8d = |s: &[u32]| OperandDescriptor::new(DataType::Uint8, s.to_vec());
    assert!(!lowers(OpKind::QuantizeLinear, &[f(&[4, 6]), f(&[1, 4]), u8d(&[1, 4])], Attrs::None, &[u8d(&[4, 6])]));
    assert!(lowers(OpKind::QuantizeLinear, &[f(&[4, 6]), f(&[1, 3]), u8d(&[1, 3])], Attrs::None, &[u8d(&[4, 6])]));
}
