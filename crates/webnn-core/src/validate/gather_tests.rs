//! Table tests of gather, gatherElements, gatherND, scatterElements and scatterND: exact
//! output descriptors and attributes for valid rows, the TypeError of every throwing step.

#![allow(clippy::type_complexity)] // table rows are tuples of slices

use crate::graph::Attrs;
use crate::testing::*;
use crate::validate::test_support::run_row;
use crate::DataType::*;

type Expect<'a> = Result<&'a [u32], &'a str>;

/// Runs the (input shape, indices shape, axis, expect) `rows` of `kind` (gather or
/// gatherElements) under each (data type, indices data type) pair of `types`.
fn axis_gather_table(
    rows: &[(&[u32], &[u32], u32, Expect)],
    types: &[(DataType, DataType)],
    kind: OpKind,
    call: fn(&mut GraphBuilder, &Operand, &Operand, u32) -> Result<Operand>,
) {
    for (i, (shape, ishape, axis, expect)) in rows.iter().enumerate() {
        for &(t, it) in types {
            let r = run_row(t, *expect, (i, kind, shape, ishape, axis), |b| {
                let x = b.input("x", &desc(t, shape)).unwrap();
                let idx = b.input("i", &desc(it, ishape)).unwrap();
                call(b, &x, &idx, *axis)
            });
            if let Some(op) = r {
                assert_eq!((op.kind, op.attrs), (kind, Attrs::Axis { axis: *axis }));
                assert_eq!(op.inputs.len(), 2);
            }
        }
    }
}

#[test]
fn gather_table() {
    let rows: &[(&[u32], &[u32], u32, Expect)] = &[
        (&[4, 3], &[2], 0, Ok(&[2, 3])),
        (&[4, 3], &[3], 1, Ok(&[4, 3])),
        (&[4, 3], &[2, 2], 1, Ok(&[4, 2, 2])),
        (&[4, 3], &[2, 2], 0, Ok(&[2, 2, 3])),
        (&[4, 3], &[], 0, Ok(&[3])),
        (&[4, 3], &[], 1, Ok(&[4])),
        (&[5], &[], 0, Ok(&[])),
        (&[5], &[3], 0, Ok(&[3])),
        (&[5], &[2, 3], 0, Ok(&[2, 3])),
        (&[2, 3, 4], &[5], 1, Ok(&[2, 5, 4])),
        (&[2, 3, 4], &[5, 6], 2, Ok(&[2, 3, 5, 6])),
        (&[2, 3, 4], &[5, 6], 0, Ok(&[5, 6, 3, 4])),
        (&[2, 3, 4], &[], 1, Ok(&[2, 4])),
        (&[2, 3, 4, 5], &[1], 3, Ok(&[2, 3, 4, 1])),
        (&[1; 8], &[7], 3, Ok(&[1, 1, 1, 7, 1, 1, 1, 1])),
        (&[2, 2], &[1, 1, 1, 1, 1, 1, 1], 1, Ok(&[2, 1, 1, 1, 1, 1, 1, 1])),
        (&[4, 3], &[1, 1, 1], 0, Ok(&[1, 1, 1, 3])),
        (&[4, 3], &[5], 0, Ok(&[5, 3])),
        (&[3, 4, 5], &[2], 2, Ok(&[3, 4, 2])),
        (&[7], &[7, 7], 0, Ok(&[7, 7])),
        (&[2, 3], &[], 2, Err("axis 2 must be less than the input rank 2")),
        // axis >= input rank
        (&[4, 3], &[2], 2, Err("axis 2 must be less than the input rank 2")),
        (&[5], &[2], 1, Err("axis 1 must be less than the input rank 1")),
        (&[5], &[2], u32::MAX, Err("axis 4294967295")),
        (&[2, 3, 4], &[], 3, Err("input shape [2, 3, 4]")),
        // input rank outside the limits table
        (&[], &[2], 0, Err("input rank 0")),
        // output rank above the supported maximum
        (&[1; 8], &[1, 1], 0, Err("output rank 9")),
        (&[2, 2, 2, 2, 2], &[1, 1, 1, 1, 1], 4, Err("output rank 9")),
        // output element count
        (&[65536, 2], &[65536], 1, Err("elements")),
    ];
    axis_gather_table(rows, &[(Float32, Int32), (Int8, Uint32), (Uint64, Int64)], OpKind::Gather, |b, x, idx, axis| {
        b.gather(x, idx, &GatherOptions { axis, ..Default::default() })
    });
}

#[test]
fn gather_elements_table() {
    let rows: &[(&[u32], &[u32], u32, Expect)] = &[
        (&[4, 3], &[2, 3], 0, Ok(&[2, 3])),
        (&[4, 3], &[4, 1], 1, Ok(&[4, 1])),
        (&[4, 3], &[4, 3], 0, Ok(&[4, 3])),
        (&[4, 3], &[4, 3], 1, Ok(&[4, 3])),
        (&[4, 3], &[7, 3], 0, Ok(&[7, 3])),
        (&[4, 3], &[4, 9], 1, Ok(&[4, 9])),
        (&[5], &[2], 0, Ok(&[2])),
        (&[5], &[11], 0, Ok(&[11])),
        (&[4, 2, 2], &[1, 2, 2], 0, Ok(&[1, 2, 2])),
        (&[4, 2, 2], &[4, 5, 2], 1, Ok(&[4, 5, 2])),
        (&[4, 2, 2], &[4, 2, 9], 2, Ok(&[4, 2, 9])),
        (&[1; 8], &[1, 1, 1, 1, 1, 1, 1, 3], 7, Ok(&[1, 1, 1, 1, 1, 1, 1, 3])),
        (&[3, 3], &[3, 1], 1, Ok(&[3, 1])),
        (&[2, 3, 4], &[2, 3, 4], 2, Ok(&[2, 3, 4])),
        (&[3, 3], &[1, 3], 1, Err("indices shape [1, 3] must equal the input shape [3, 3] except along axis 1")),
        (&[2, 3, 4], &[2, 3, 4], 3, Err("axis 3 must be less than the input rank 3")),
        (&[2, 3, 4], &[1, 3, 5], 0, Err("expected [1, 3, 4]")),
        // indices rank differs from the input rank
        (&[4, 3], &[2], 0, Err("indices rank 1 (shape [2]) must equal the input rank 2")),
        (&[4, 3], &[2, 3, 1], 0, Err("indices rank 3")),
        (&[5], &[5, 1], 0, Err("indices rank 2")),
        // axis >= input rank (after the rank step)
        (&[4, 3], &[2, 3], 2, Err("axis 2 must be less than the input rank 2")),
        (&[5], &[5], 1, Err("axis 1")),
        // indices shape differs from the input shape off the axis
        (&[4, 3], &[2, 2], 0, Err("indices shape [2, 2] must equal the input shape [4, 3] except along axis 0")),
        (&[4, 3], &[2, 3], 1, Err("expected [4, 3]")),
        (&[4, 2, 2], &[1, 2, 3], 0, Err("expected [1, 2, 2]")),
        (&[4, 2, 2], &[4, 5, 3], 1, Err("except along axis 1")),
        // limits table: ranks
        (&[], &[], 0, Err("input rank 0")),
        (&[5], &[], 0, Err("indices rank 0")),
    ];
    axis_gather_table(
        rows,
        &[(Float16, Int32), (Uint8, Int64), (Int32, Uint32)],
        OpKind::GatherElements,
        |b, x, idx, axis| b.gather_elements(x, idx, &GatherOptions { axis, ..Default::default() }),
    );
}

#[test]
fn gather_nd_table() {
    let rows: &[(&[u32], &[u32], Expect)] = &[
        (&[2, 2], &[3, 2], Ok(&[3])),
        (&[2, 2], &[2, 1], Ok(&[2, 2])),
        (&[2, 2], &[2], Ok(&[])),
        (&[2, 2], &[1], Ok(&[2])),
        (&[2, 2, 2], &[2, 2], Ok(&[2, 2])),
        (&[2, 2, 2], &[3, 1], Ok(&[3, 2, 2])),
        (&[2, 2, 2], &[5, 3], Ok(&[5])),
        (&[2, 2, 2], &[3], Ok(&[])),
        (&[2, 2, 2], &[1], Ok(&[2, 2])),
        (&[5], &[1], Ok(&[])),
        (&[5], &[7, 1], Ok(&[7])),
        (&[4, 5, 6], &[2, 3, 2], Ok(&[2, 3, 6])),
        (&[4, 5, 6], &[2, 3, 1], Ok(&[2, 3, 5, 6])),
        (&[4, 5, 6], &[2, 3, 3], Ok(&[2, 3])),
        (&[1; 8], &[8], Ok(&[])),
        (&[1; 8], &[1, 8], Ok(&[1])),
        (&[2, 2], &[1, 1, 1, 1, 1, 1, 1, 1], Ok(&[1, 1, 1, 1, 1, 1, 1, 2])),
        (&[3, 4], &[5, 1], Ok(&[5, 4])),
        (&[3, 4], &[5, 2], Ok(&[5])),
        (&[3, 4, 5, 6], &[2, 2], Ok(&[2, 5, 6])),
        (&[3, 4], &[1, 1, 3], Err("coordinate size 3 (last dimension) is greater than the input rank 2")),
        // coordinate size greater than the input rank
        (&[2, 2], &[3], Err("coordinate size 3 (last dimension) is greater than the input rank 2")),
        (&[5], &[4, 2], Err("coordinate size 2")),
        (&[4, 5, 6], &[2, 3, 4], Err("indices shape [2, 3, 4]")),
        // limits table: ranks
        (&[2, 2], &[], Err("indices rank 0")),
        (&[], &[1], Err("input rank 0")),
        // output rank above the supported maximum
        (&[1; 8], &[1, 1, 1, 1, 1, 1, 1, 1], Err("output rank 14")),
        (&[2, 2, 2], &[1; 8], Err("output rank 9")),
    ];
    for (i, (shape, ishape, expect)) in rows.iter().enumerate() {
        for (t, it) in [(Float32, Int64), (Uint32, Int32), (Int64, Uint32)] {
            let r = run_row(t, *expect, (i, shape, ishape), |b| {
                let x = b.input("x", &desc(t, shape)).unwrap();
                let idx = b.input("i", &desc(it, ishape)).unwrap();
                b.gather_nd(&x, &idx, &OperatorOptions::default())
            });
            if let Some(op) = r {
                assert_eq!((op.kind, op.attrs), (OpKind::GatherNd, Attrs::None));
            }
        }
    }
}

#[test]
fn scatter_elements_table() {
    let rows: &[(&[u32], &[u32], &[u32], u32, Option<&str>)] = &[
        (&[4, 3], &[2, 3], &[2, 3], 0, None),
        (&[4, 3], &[4, 1], &[4, 1], 1, None),
        (&[4, 3], &[4, 3], &[4, 3], 1, None),
        (&[4, 3], &[9, 3], &[9, 3], 0, None),
        (&[4, 2, 2], &[1, 2, 2], &[1, 2, 2], 0, None),
        (&[4, 2, 2], &[4, 7, 2], &[4, 7, 2], 1, None),
        (&[4, 2, 2], &[4, 2, 1], &[4, 2, 1], 2, None),
        (&[5], &[7], &[7], 0, None),
        (&[5], &[1], &[1], 0, None),
        (&[1; 8], &[1; 8], &[1; 8], 7, None),
        (&[3, 3], &[3, 5], &[3, 5], 1, None),
        (&[2, 3, 4], &[2, 3, 4], &[2, 3, 4], 2, None),
        (&[2, 3, 4], &[2, 3, 4], &[2, 3, 4], 3, Some("axis 3 must be less than the input rank 3")),
        (&[3, 3], &[3, 5], &[3, 4], 1, Some("updates shape [3, 4] must equal the indices shape [3, 5]")),
        (
            &[3, 3],
            &[2, 2],
            &[2, 2],
            1,
            Some("indices shape [2, 2] must equal the input shape [3, 3] except along axis 1"),
        ),
        // ranks of indices / updates differ from the input's
        (&[4, 3], &[2], &[2], 0, Some("indices rank 1 (shape [2]) must equal the input rank 2")),
        (&[4, 3], &[2, 3, 1], &[2, 3, 1], 0, Some("indices rank 3")),
        (&[4, 3], &[2, 3], &[2], 0, Some("updates rank 1 (shape [2]) must equal the input rank 2")),
        (&[4, 3], &[2, 3], &[1, 2, 3], 0, Some("updates rank 3")),
        // axis >= input rank
        (&[4, 3], &[2, 3], &[2, 3], 2, Some("axis 2 must be less than the input rank 2")),
        (&[5], &[5], &[5], u32::MAX, Some("axis 4294967295")),
        // indices shape differs from the input off the axis
        (
            &[4, 3],
            &[2, 2],
            &[2, 2],
            0,
            Some("indices shape [2, 2] must equal the input shape [4, 3] except along axis 0"),
        ),
        (&[4, 3], &[2, 3], &[2, 3], 1, Some("expected [4, 3]")),
        (&[4, 2, 2], &[1, 2, 3], &[1, 2, 3], 0, Some("expected [1, 2, 2]")),
        // updates shape differs from the indices shape
        (&[4, 3], &[2, 3], &[3, 3], 0, Some("updates shape [3, 3] must equal the indices shape [2, 3]")),
        (&[4, 3], &[2, 3], &[2, 2], 0, Some("updates shape [2, 2]")),
        (&[4, 3], &[4, 1], &[4, 3], 1, Some("indices shape [4, 1]")),
        // limits table: ranks
        (&[], &[], &[], 0, Some("input rank 0")),
        (&[5], &[], &[5], 0, Some("indices rank 0")),
        (&[5], &[5], &[], 0, Some("updates rank 0")),
    ];
    for (i, (shape, ishape, ushape, axis, err)) in rows.iter().enumerate() {
        for (t, it) in [(Float32, Int32), (Int8, Int64), (Uint64, Uint32)] {
            let expect = err.map_or(Ok(*shape), Err);
            let r = run_row(t, expect, (i, shape, ishape, ushape, axis), |b| {
                let x = b.input("x", &desc(t, shape)).unwrap();
                let idx = b.input("i", &desc(it, ishape)).unwrap();
                let upd = b.input("u", &desc(t, ushape)).unwrap();
                b.scatter_elements(&x, &idx, &upd, &ScatterOptions { axis: *axis, ..Default::default() })
            });
            if let Some(op) = r {
                assert_eq!((op.kind, op.attrs), (OpKind::ScatterElements, Attrs::Axis { axis: *axis }));
                assert_eq!(op.inputs.len(), 3);
            }
        }
    }
}

#[test]
fn scatter_nd_table() {
    let rows: &[(&[u32], &[u32], &[u32], Option<&str>)] = &[
        (&[8], &[4, 1], &[4], None),
        (&[2, 2], &[2, 2], &[2], None),
        (&[3, 2], &[2, 1], &[2, 2], None),
        (&[2, 2, 2], &[2, 2], &[2, 2], None),
        (&[2, 2, 2], &[3], &[], None),
        (&[2, 2, 2], &[1], &[2, 2], None),
        (&[2, 2, 2], &[5, 3], &[5], None),
        (&[4, 5, 6], &[2, 3, 1], &[2, 3, 5, 6], None),
        (&[4, 5, 6], &[2, 3, 2], &[2, 3, 6], None),
        (&[5], &[1], &[], None),
        (&[1; 8], &[1, 8], &[1], None),
        (&[3, 4], &[5, 1], &[5, 4], None),
        (&[3, 4], &[5, 2], &[5], None),
        (&[3, 4, 5, 6], &[2, 2], &[2, 5, 6], None),
        (&[3, 4], &[5, 1], &[5], Some("= [5, 4]")),
        (&[3, 4], &[1, 1, 3], &[1, 1], Some("coordinate size 3")),
        // coordinate size greater than the input rank
        (&[2, 2], &[2, 3], &[2], Some("coordinate size 3 (last dimension) is greater than the input rank 2")),
        (&[8], &[4, 2], &[4], Some("coordinate size 2")),
        // updates shape differs from indices.shape[0:-1] ++ input.shape[coordinateSize:]
        (&[8], &[4, 1], &[4, 1], Some("updates shape [4, 1] must equal indices.shape[0:-1] ++ input.shape[1:] = [4]")),
        (&[8], &[4, 1], &[], Some("updates shape [] must equal")),
        (&[2, 2], &[2, 1], &[2], Some("= [2, 2]")),
        (&[2, 2, 2], &[3], &[2], Some("= []")),
        (&[4, 5, 6], &[2, 3, 1], &[2, 3, 6, 5], Some("= [2, 3, 5, 6]")),
        (&[2, 2, 2], &[1; 8], &[1; 8], Some("updates shape")),
        // limits table: ranks
        (&[8], &[], &[], Some("indices rank 0")),
        (&[], &[1], &[], Some("input rank 0")),
    ];
    for (i, (shape, ishape, ushape, err)) in rows.iter().enumerate() {
        for (t, it) in [(Float16, Int64), (Uint8, Int32), (Int32, Uint32)] {
            let expect = err.map_or(Ok(*shape), Err);
            let r = run_row(t, expect, (i, shape, ishape, ushape), |b| {
                let x = b.input("x", &desc(t, shape)).unwrap();
                let idx = b.input("i", &desc(it, ishape)).unwrap();
                let upd = b.input("u", &desc(t, ushape)).unwrap();
                b.scatter_nd(&x, &idx, &upd, &OperatorOptions::default())
            });
            if let Some(op) = r {
                assert_eq!((op.kind, op.attrs), (OpKind::ScatterNd, Attrs::None));
            }
        }
    }
}

/// Indices must be int32, uint32 or int64; updates must have the input's type; input and
/// updates accept every type.
#[test]
fn gather_scatter_data_types() {
    let allowed_indices = [Int32, Uint32, Int64];
    for t in DataType::ALL {
        for it in DataType::ALL {
            let ok = allowed_indices.contains(&it);
            let mut b = builder();
            let x = b.input("x", &desc(t, &[4, 3])).unwrap();
            let i2 = b.input("i2", &desc(it, &[2, 3])).unwrap();
            let i1 = b.input("i1", &desc(it, &[2, 1])).unwrap();
            let u = b.input("u", &desc(t, &[2, 3])).unwrap();
            let results = [
                b.gather(&x, &i2, &GatherOptions::default()).map(|o| o.descriptor().clone()),
                b.gather_elements(&x, &i2, &GatherOptions::default()).map(|o| o.descriptor().clone()),
                b.gather_nd(&x, &i1, &OperatorOptions::default()).map(|o| o.descriptor().clone()),
                b.scatter_elements(&x, &i2, &u, &ScatterOptions::default()).map(|o| o.descriptor().clone()),
                b.scatter_nd(&x, &i1, &u.clone(), &OperatorOptions::default()).map(|o| o.descriptor().clone()),
            ];
            let want = [desc(t, &[2, 3, 3]), desc(t, &[2, 3]), desc(t, &[2, 3]), desc(t, &[4, 3]), desc(t, &[4, 3])];
            for (k, (r, w)) in results.into_iter().zip(want).enumerate() {
                if ok {
                    assert_eq!(r.unwrap(), w, "op {k} {t} {it}");
                } else {
                    assert_type_error(r, &format!("indices data type {it} is not supported"));
                }
            }
        }
        // updates of another type
        for ut in DataType::ALL {
            let mut b = builder();
            let x = b.input("x", &desc(t, &[4, 3])).unwrap();
            let i2 = b.input("i2", &desc(Int32, &[2, 3])).unwrap();
            let i1 = b.input("i1", &desc(Int32, &[2, 1])).unwrap();
            let u = b.input("u", &desc(ut, &[2, 3])).unwrap();
            let re = b.scatter_elements(&x, &i2, &u, &ScatterOptions::default());
            let rn = b.scatter_nd(&x, &i1, &u, &OperatorOptions::default());
            if ut == t {
                assert_eq!(re.unwrap().descriptor(), &desc(t, &[4, 3]));
                assert_eq!(rn.unwrap().descriptor(), &desc(t, &[4, 3]));
            } else {
                let needle = format!("updates data type {ut} must equal input data type {t}");
                assert_type_error(re, &needle);
                assert_type_error(rn, &needle);
            }
        }
    }
}
