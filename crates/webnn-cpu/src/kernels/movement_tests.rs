//! Tests of the data-movement kernels against naive multi-index references, for every data
//! type, odd shapes, size-1 dimensions, every option; big cases exercise the thread pool.

use crate::testing::element_maps::*;
use webnn_core::graph::Attrs;
use webnn_core::types::{MLNumber, PaddingMode};
use webnn_core::{DataType, OpKind};

fn transpose_ref(in_shape: &[usize], perm: &[usize]) -> (Vec<usize>, Vec<Src>) {
    let out: Vec<usize> = perm.iter().map(|&p| in_shape[p]).collect();
    let map = (0..numel(&out))
        .map(|f| {
            let i = unravel(f, &out);
            let mut j = vec![0; in_shape.len()];
            for k in 0..perm.len() {
                j[perm[k]] = i[k];
            }
            Src::In(0, ravel(&j, in_shape))
        })
        .collect();
    (out, map)
}

fn all_perms(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut res = Vec::new();
    for p in all_perms(n - 1) {
        for pos in 0..=p.len() {
            let mut q = p.clone();
            q.insert(pos, n - 1);
            res.push(q);
        }
    }
    res
}

fn check_transpose(shape: &[usize], perm: &[usize], all: bool) {
    let (out, map) = transpose_ref(shape, perm);
    let attrs = Attrs::Transpose { permutation: perm.iter().map(|&p| p as u32).collect() };
    if all {
        check_all_types(OpKind::Transpose, &[shape.to_vec()], attrs, &[out], &[map]);
    } else {
        check_maps(OpKind::Transpose, DataType::Float32, &[shape.to_vec()], &[], attrs, &[out], &[map]);
    }
}

#[test]
fn transpose_every_permutation_up_to_rank_4() {
    check_transpose(&[], &[], true);
    check_transpose(&[5], &[0], true);
    for shape in [vec![3, 5], vec![1, 7], vec![6, 1]] {
        for p in all_perms(2) {
            check_transpose(&shape, &p, true);
        }
    }
    for shape in [vec![2, 3, 4], vec![1, 5, 3], vec![4, 1, 1]] {
        for p in all_perms(3) {
            check_transpose(&shape, &p, true);
        }
    }
    for shape in [vec![2, 3, 5, 7], vec![1, 3, 1, 6]] {
        for p in all_perms(4) {
            check_transpose(&shape, &p, false);
        }
    }
    check_transpose(&[2, 3, 1, 4, 5], &[4, 0, 3, 1, 2], true);
    check_transpose(&[2, 1, 2, 1, 2, 1, 2, 3], &[7, 6, 5, 4, 3, 2, 1, 0], true);
}

#[test]
fn transpose_big_blocked_and_parallel() {
    // 2-D with sizes that are not multiples of the block, NCHW <-> NHWC, 3-D rotation.
    check_transpose(&[300, 257], &[1, 0], false);
    check_transpose(&[67, 1029], &[1, 0], false);
    for dt in [DataType::Uint8, DataType::Float16, DataType::Int64] {
        for (shape, perm) in [([2, 33, 41, 37], [0usize, 2, 3, 1]), ([2, 41, 37, 33], [0, 3, 1, 2])] {
            let (out, map) = transpose_ref(&shape, &perm);
            check_maps(
                OpKind::Transpose,
                dt,
                &[shape.to_vec()],
                &[],
                Attrs::Transpose { permutation: perm.map(|p| p as u32).to_vec() },
                &[out],
                &[map],
            );
        }
    }
    check_transpose(&[64, 70, 90], &[2, 0, 1], false);
    check_transpose(&[1, 3, 224, 224], &[0, 2, 3, 1], false);
}

fn check_slice(shape: &[usize], starts: &[usize], sizes: &[usize], strides: &[usize]) {
    let out: Vec<usize> = sizes.iter().zip(strides).map(|(&s, &t)| s.div_ceil(t)).collect();
    let map = (0..numel(&out))
        .map(|f| {
            let i = unravel(f, &out);
            let j: Vec<usize> = (0..shape.len()).map(|d| starts[d] + i[d] * strides[d]).collect();
            Src::In(0, ravel(&j, shape))
        })
        .collect::<Vec<_>>();
    let attrs = Attrs::Slice { starts: u32s(starts), sizes: u32s(sizes), strides: u32s(strides) };
    check_all_types(OpKind::Slice, &[shape.to_vec()], attrs, &[out], &[map]);
}

#[test]
fn slice_with_starts_sizes_and_strides() {
    check_slice(&[], &[], &[], &[]);
    check_slice(&[7], &[2], &[4], &[1]);
    check_slice(&[7], &[0], &[7], &[3]);
    check_slice(&[7], &[6], &[1], &[5]);
    check_slice(&[4, 5], &[1, 0], &[3, 5], &[1, 1]);
    check_slice(&[4, 5], &[1, 2], &[2, 3], &[1, 2]);
    check_slice(&[4, 5], &[0, 1], &[4, 4], &[3, 4]);
    check_slice(&[3, 1, 6, 2], &[1, 0, 1, 1], &[2, 1, 5, 1], &[2, 1, 2, 1]);
    check_slice(&[2, 3, 4, 5, 6], &[1, 0, 1, 2, 0], &[1, 3, 3, 3, 6], &[1, 2, 1, 1, 4]);
    check_slice(&[300, 400], &[3, 5], &[290, 390], &[1, 1]);
    check_slice(&[300, 400], &[3, 5], &[290, 390], &[3, 2]);
}

fn check_reverse(shape: &[usize], axes: &[usize]) {
    let map = (0..numel(shape))
        .map(|f| {
            let mut i = unravel(f, shape);
            for &a in axes {
                i[a] = shape[a] - 1 - i[a];
            }
            Src::In(0, ravel(&i, shape))
        })
        .collect::<Vec<_>>();
    let attrs = Attrs::Reverse { axes: axes.iter().map(|&a| a as u32).collect() };
    check_all_types(OpKind::Reverse, &[shape.to_vec()], attrs, &[shape.to_vec()], &[map]);
}

#[test]
fn reverse_every_axis_subset() {
    check_reverse(&[], &[]);
    check_reverse(&[5], &[]);
    check_reverse(&[5], &[0]);
    for shape in [vec![2, 3, 4], vec![1, 5, 1], vec![3, 1, 2]] {
        for mask in 0..8usize {
            let axes: Vec<usize> = (0..3).filter(|a| mask >> a & 1 == 1).collect();
            check_reverse(&shape, &axes);
        }
    }
    check_reverse(&[2, 3, 4, 5], &[3, 1]);
    check_reverse(&[250, 301], &[1]);
    check_reverse(&[250, 301], &[0]);
    check_reverse(&[250, 301], &[0, 1]);
}

fn check_expand(in_shape: &[usize], out: &[usize]) {
    let pad = out.len() - in_shape.len();
    let map = (0..numel(out))
        .map(|f| {
            let i = unravel(f, out);
            let j: Vec<usize> = (0..in_shape.len()).map(|d| if in_shape[d] == 1 { 0 } else { i[d + pad] }).collect();
            Src::In(0, ravel(&j, in_shape))
        })
        .collect::<Vec<_>>();
    check_all_types(OpKind::Expand, &[in_shape.to_vec()], Attrs::None, &[out.to_vec()], &[map]);
}

#[test]
fn expand_broadcasts_like_numpy() {
    check_expand(&[], &[]);
    check_expand(&[], &[4, 3]);
    check_expand(&[1], &[5]);
    check_expand(&[3], &[2, 3]);
    check_expand(&[3, 1], &[3, 4]);
    check_expand(&[1, 4], &[3, 4]);
    check_expand(&[2, 1, 3], &[4, 2, 5, 3]);
    check_expand(&[1, 1, 1], &[2, 3, 4]);
    check_expand(&[2, 3], &[2, 3]);
    check_expand(&[1, 300], &[200, 300]);
    check_expand(&[300, 1], &[300, 200]);
}

#[test]
fn tile_repeats_whole_blocks() {
    for (shape, reps) in [
        (vec![], vec![]),
        (vec![3], vec![1]),
        (vec![3], vec![4]),
        (vec![2, 3], vec![2, 1]),
        (vec![2, 3], vec![1, 3]),
        (vec![2, 3], vec![3, 2]),
        (vec![1, 2, 1], vec![2, 1, 5]),
        (vec![2, 3, 4, 1], vec![1, 2, 1, 3]),
        (vec![100, 70], vec![3, 5]),
    ] {
        let out: Vec<usize> = shape.iter().zip(&reps).map(|(a, b)| a * b).collect();
        let map = (0..numel(&out))
            .map(|f| {
                let i = unravel(f, &out);
                let j: Vec<usize> = (0..shape.len()).map(|d| i[d] % shape[d]).collect();
                Src::In(0, ravel(&j, &shape))
            })
            .collect::<Vec<_>>();
        check_all_types(
            OpKind::Tile,
            std::slice::from_ref(&shape),
            Attrs::Tile { repetitions: u32s(&reps) },
            &[out],
            &[map],
        );
    }
}

#[test]
fn reshape_copies_in_order() {
    for (a, b) in
        [(vec![], vec![1, 1]), (vec![2, 3], vec![6]), (vec![4, 1, 5], vec![2, 10]), (vec![500, 40], vec![20_000])]
    {
        let map = (0..numel(&a)).map(|i| Src::In(0, i)).collect::<Vec<_>>();
        check_all_types(OpKind::Reshape, &[a], Attrs::None, &[b], &[map]);
    }
}

#[test]
fn concat_any_number_of_inputs_along_every_axis() {
    let cases: Vec<(Vec<Vec<usize>>, usize)> = vec![
        (vec![vec![3]], 0),
        (vec![vec![3], vec![1], vec![4]], 0),
        (vec![vec![2, 3], vec![4, 3]], 0),
        (vec![vec![2, 3], vec![2, 1], vec![2, 5]], 1),
        (vec![vec![2, 1, 3], vec![2, 2, 3], vec![2, 1, 3], vec![2, 3, 3]], 1),
        (vec![vec![1, 2, 2], vec![1, 2, 1], vec![1, 2, 3]], 2),
        ((0..12).map(|k| vec![2, k % 3 + 1, 2]).collect(), 1),
        (vec![vec![300, 100], vec![300, 50]], 1),
        (vec![vec![300, 100], vec![200, 100]], 0),
    ];
    for (shapes, axis) in cases {
        let mut out = shapes[0].clone();
        out[axis] = shapes.iter().map(|s| s[axis]).sum();
        let map = (0..numel(&out))
            .map(|f| {
                let mut i = unravel(f, &out);
                let mut k = 0;
                while i[axis] >= shapes[k][axis] {
                    i[axis] -= shapes[k][axis];
                    k += 1;
                }
                Src::In(k, ravel(&i, &shapes[k]))
            })
            .collect::<Vec<_>>();
        check_all_types(OpKind::Concat, &shapes, Attrs::Axis { axis: axis as u32 }, &[out], &[map]);
    }
}

#[test]
fn split_into_pieces_along_every_axis() {
    let cases: Vec<(Vec<usize>, usize, Vec<usize>)> = vec![
        (vec![6], 0, vec![6]),
        (vec![6], 0, vec![2, 2, 2]),
        (vec![6], 0, vec![1, 5]),
        (vec![4, 5], 1, vec![2, 3]),
        (vec![4, 5], 0, vec![1, 1, 2]),
        (vec![2, 7, 3], 1, vec![3, 1, 3]),
        (vec![2, 1, 3, 4], 3, vec![1, 1, 1, 1]),
        (vec![300, 200], 1, vec![50, 150]),
        (vec![300, 200], 0, vec![100, 200]),
    ];
    for (shape, axis, sizes) in cases {
        let outs: Vec<Vec<usize>> = sizes
            .iter()
            .map(|&s| {
                let mut o = shape.clone();
                o[axis] = s;
                o
            })
            .collect();
        let maps: Vec<Vec<Src>> = outs
            .iter()
            .enumerate()
            .map(|(k, o)| {
                let before: usize = sizes[..k].iter().sum();
                (0..numel(o))
                    .map(|f| {
                        let mut i = unravel(f, o);
                        i[axis] += before;
                        Src::In(0, ravel(&i, &shape))
                    })
                    .collect()
            })
            .collect();
        let attrs = Attrs::Split { axis: axis as u32, sizes: u32s(&sizes) };
        check_all_types(OpKind::Split, &[shape], attrs, &outs, &maps);
    }
}

#[test]
fn triangular_upper_and_lower_with_diagonals() {
    for shape in [vec![3, 3], vec![1, 1], vec![2, 5], vec![5, 2], vec![2, 3, 4], vec![2, 1, 3, 3], vec![300, 257]] {
        for upper in [true, false] {
            for diagonal in [-6, -2, -1, 0, 1, 2, 6] {
                let n = shape.len();
                let map = (0..numel(&shape))
                    .map(|f| {
                        let i = unravel(f, &shape);
                        let d = i[n - 1] as i64 - i[n - 2] as i64;
                        let keep = if upper { d >= diagonal as i64 } else { d <= diagonal as i64 };
                        if keep {
                            Src::In(0, f)
                        } else {
                            Src::Bytes([0; 8])
                        }
                    })
                    .collect::<Vec<_>>();
                let attrs = Attrs::Triangular { upper, diagonal };
                if shape[0] == 300 {
                    check_maps(
                        OpKind::Triangular,
                        DataType::Float32,
                        std::slice::from_ref(&shape),
                        &[],
                        attrs,
                        std::slice::from_ref(&shape),
                        &[map],
                    );
                } else {
                    check_all_types(
                        OpKind::Triangular,
                        std::slice::from_ref(&shape),
                        attrs,
                        std::slice::from_ref(&shape),
                        &[map],
                    );
                }
            }
        }
    }
}

/// Naive pad: input coordinate of one output coordinate, or None for the constant.
fn pad_coord(o: usize, begin: usize, n: usize, mode: PaddingMode) -> Option<usize> {
    let i = o as i64 - begin as i64;
    let n = n as i64;
    let j = if i < 0 {
        match mode {
            PaddingMode::Constant => return None,
            PaddingMode::Edge => 0,
            PaddingMode::Reflection => -i,
        }
    } else if i >= n {
        match mode {
            PaddingMode::Constant => return None,
            PaddingMode::Edge => n - 1,
            PaddingMode::Reflection => (n - 1) - (i - (n - 1)),
        }
    } else {
        i
    };
    Some(j as usize)
}

fn check_pad(shape: &[usize], begin: &[usize], end: &[usize], mode: PaddingMode, value: f64) {
    let out: Vec<usize> = (0..shape.len()).map(|d| begin[d] + shape[d] + end[d]).collect();
    for dt in ALL_TYPES {
        let v = MLNumber::Double(value).cast(dt);
        let mut vb = [0u8; 8];
        let b = v.to_le_bytes();
        vb[..b.len()].copy_from_slice(&b);
        let map = (0..numel(&out))
            .map(|f| {
                let i = unravel(f, &out);
                let j: Option<Vec<usize>> =
                    (0..shape.len()).map(|d| pad_coord(i[d], begin[d], shape[d], mode)).collect();
                j.map_or(Src::Bytes(vb), |j| Src::In(0, ravel(&j, shape)))
            })
            .collect::<Vec<_>>();
        let attrs = Attrs::Pad { beginning: u32s(begin), ending: u32s(end), mode, value: v };
        check_maps(OpKind::Pad, dt, &[shape.to_vec()], &[], attrs, std::slice::from_ref(&out), &[map]);
    }
}

#[test]
fn pad_every_mode() {
    for mode in [PaddingMode::Constant, PaddingMode::Edge, PaddingMode::Reflection] {
        check_pad(&[], &[], &[], mode, 3.0);
        check_pad(&[4], &[0], &[0], mode, 3.0);
        check_pad(&[4], &[2], &[3], mode, -2.5);
        check_pad(&[2, 3], &[1, 2], &[1, 2], mode, 7.0);
        check_pad(&[3, 4], &[0, 3], &[2, 0], mode, 1.0);
        check_pad(&[1, 1], &[0, 0], &[0, 0], mode, 1.0);
        check_pad(&[2, 3, 4], &[1, 0, 2], &[1, 2, 3], mode, 9.0);
        check_pad(&[2, 1, 3, 3], &[0, 0, 1, 1], &[0, 0, 2, 2], mode, -1.0);
        check_pad(&[200, 150], &[5, 7], &[3, 9], mode, 0.5);
    }
    // Edge on size-1 dims, constant beyond the type's range saturates in the cast.
    check_pad(&[1, 3], &[2, 0], &[3, 4], PaddingMode::Edge, 0.0);
    check_pad(&[2, 2], &[3, 1], &[1, 3], PaddingMode::Constant, 1e10);
    check_pad(&[2, 2], &[1, 1], &[1, 1], PaddingMode::Constant, f64::NAN);
}
