//! Element maps, the references of the data-movement, gather/scatter and quantize tests:
//! written as maps "output element ← input element (or a fixed value)" computed by naive
//! multi-index loops, then applied to random bytes of every data type, so one reference
//! checks all element sizes.

use crate::testing::run_op;
use webnn_core::graph::Attrs;
use webnn_core::{DataType, OpKind, OperandDescriptor};

/// Where an output element comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Src {
    /// Element `flat` of input slot `slot`.
    In(usize, usize),
    /// These little-endian bytes (the pad constant, a zero...).
    Bytes([u8; 8]),
}

/// Row-major multi-index of `flat`.
pub fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        idx[d] = flat % shape[d];
        flat /= shape[d];
    }
    idx
}

/// Flat index of a multi-index.
pub fn ravel(idx: &[usize], shape: &[usize]) -> usize {
    idx.iter().zip(shape).fold(0, |acc, (&i, &d)| acc * d + i)
}

/// Element count.
pub fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// Deterministic pseudo-random bytes.
pub fn random_bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut rng = webnn_core::testing::Rng::new(seed);
    (0..n).map(|_| (rng.next_u64() >> 56) as u8).collect()
}

/// Every data type.
pub const ALL_TYPES: [DataType; 8] = DataType::ALL;

/// Shape as u32.
pub fn u32s(s: &[usize]) -> Vec<u32> {
    s.iter().map(|&d| d as u32).collect()
}

/// Runs `kind` on random data of type `dt` for inputs of `in_shapes` (every slot the data
/// type `dt`, except those in `fixed`, given as (descriptor, bytes)), and checks every output
/// against the element maps `want` (one per output, shapes `out_shapes`).
pub fn check_maps(
    kind: OpKind,
    dt: DataType,
    in_shapes: &[Vec<usize>],
    fixed: &[(usize, OperandDescriptor, Vec<u8>)],
    attrs: Attrs,
    out_shapes: &[Vec<usize>],
    want: &[Vec<Src>],
) {
    let es = dt.byte_size();
    let mut slots: Vec<Option<(OperandDescriptor, Vec<u8>)>> = Vec::new();
    for (k, s) in in_shapes.iter().enumerate() {
        if let Some((_, d, b)) = fixed.iter().find(|f| f.0 == k) {
            slots.push(Some((d.clone(), b.clone())));
        } else {
            let d = OperandDescriptor::new(dt, u32s(s));
            slots.push(Some((d, random_bytes(numel(s) * es, 31 * k as u64 + numel(s) as u64))));
        }
    }
    let outs: Vec<OperandDescriptor> = out_shapes.iter().map(|s| OperandDescriptor::new(dt, u32s(s))).collect();
    let got = run_op(kind, &slots, attrs.clone(), &outs);
    for (o, map) in want.iter().enumerate() {
        assert_eq!(map.len(), numel(&out_shapes[o]));
        let mut exp = Vec::with_capacity(map.len() * es);
        for src in map {
            match *src {
                Src::In(k, i) => exp.extend_from_slice(&slots[k].as_ref().unwrap().1[i * es..(i + 1) * es]),
                Src::Bytes(b) => exp.extend_from_slice(&b[..es]),
            }
        }
        if got[o] != exp {
            let first = (0..map.len()).find(|&i| got[o][i * es..(i + 1) * es] != exp[i * es..(i + 1) * es]).unwrap();
            panic!(
                "{kind:?} {dt:?} {attrs:?} in {in_shapes:?}: output {o} differs first at element {first} (want {:?})",
                map[first]
            );
        }
    }
}

/// [`check_maps`] for every data type.
pub fn check_all_types(
    kind: OpKind,
    in_shapes: &[Vec<usize>],
    attrs: Attrs,
    out_shapes: &[Vec<usize>],
    want: &[Vec<Src>],
) {
    for dt in ALL_TYPES {
        check_maps(kind, dt, in_shapes, &[], attrs.clone(), out_shapes, want);
    }
}

/// Lowers one operation (inputs as graph inputs) and returns whether the CPU plan accepts it.
pub fn lowers(kind: OpKind, inputs: &[OperandDescriptor], attrs: Attrs, outputs: &[OperandDescriptor]) -> bool {
    let inputs: Vec<Option<OperandDescriptor>> = inputs.iter().cloned().map(Some).collect();
    super::constant_operands::compile_op(kind, &inputs, attrs, outputs).is_ok()
}
