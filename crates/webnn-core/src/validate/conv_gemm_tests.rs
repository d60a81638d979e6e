//! Table tests of gemm and matmul.

use crate::graph::Attrs;
use crate::limits::member_limits;
use crate::testing::*;
use crate::validate::test_support::{
    assert_types_follow_limits, built_builder, for_rows, graph_of, run_checked, setters,
};
use crate::{DataType::*, ErrorKind};

// ---------------------------------------------------------------------------------------------
// gemm
// ---------------------------------------------------------------------------------------------

struct Gemm {
    a: &'static [u32],
    b: &'static [u32],
    c: Option<&'static [u32]>,
    a_transpose: bool,
    b_transpose: bool,
    expect: std::result::Result<[u32; 2], &'static str>,
}

fn g(a: &'static [u32], b: &'static [u32]) -> Gemm {
    Gemm { a, b, c: None, a_transpose: false, b_transpose: false, expect: Err("unset") }
}

impl Gemm {
    fn at(mut self) -> Self {
        self.a_transpose = true;
        self
    }
    fn bt(mut self) -> Self {
        self.b_transpose = true;
        self
    }
    fn c(mut self, c: &'static [u32]) -> Self {
        self.c = Some(c);
        self
    }
    setters!(expect [u32; 2]);
}

fn gemm_rows() -> Vec<Gemm> {
    vec![
        g(&[2, 3], &[3, 4]).ok([2, 4]),
        g(&[3, 2], &[3, 4]).at().ok([2, 4]),
        g(&[2, 3], &[4, 3]).bt().ok([2, 4]),
        g(&[3, 2], &[4, 3]).at().bt().ok([2, 4]),
        g(&[2, 3], &[3, 4]).c(&[2, 4]).ok([2, 4]),
        g(&[2, 3], &[3, 4]).c(&[4]).ok([2, 4]),
        g(&[2, 3], &[3, 4]).c(&[1, 4]).ok([2, 4]),
        g(&[2, 3], &[3, 4]).c(&[2, 1]).ok([2, 4]),
        g(&[2, 3], &[3, 4]).c(&[1, 1]).ok([2, 4]),
        g(&[2, 3], &[3, 4]).c(&[1]).ok([2, 4]),
        g(&[2, 3], &[3, 4]).c(&[]).ok([2, 4]),
        g(&[1, 1], &[1, 1]).ok([1, 1]),
        g(&[5, 1], &[1, 7]).ok([5, 7]),
        g(&[1, 5], &[5, 1]).ok([1, 1]),
        g(&[3, 3], &[3, 3]).at().ok([3, 3]),
        g(&[3, 3], &[3, 3]).at().bt().c(&[3, 3]).ok([3, 3]),
        g(&[1, 5], &[7, 1]).at().bt().ok([5, 7]),
        g(&[4, 2], &[6, 4]).at().bt().c(&[6]).ok([2, 6]),
        g(&[2, 3], &[4, 3]).bt().c(&[2, 4]).ok([2, 4]),
        g(&[2, 3], &[3, 4]).c(&[1, 1]).ok([2, 4]),
        // ---- errors ----
        g(&[2, 3], &[4, 4]).err("columns of a (3) must equal rows of b (4)"),
        g(&[2, 3], &[3, 4]).at().err("columns of a (2) must equal rows of b (3)"),
        g(&[2, 3], &[3, 4]).bt().err("columns of a (3) must equal rows of b (4)"),
        g(&[3, 2], &[4, 3]).at().err("columns of a (3) must equal rows of b (4)"),
        g(&[3, 2], &[4, 3]).bt().err("columns of a (2) must equal rows of b (3)"),
        g(&[2, 3], &[3, 4]).c(&[3, 4]).err("c shape [3, 4] is not unidirectionally broadcastable to [2, 4]"),
        g(&[2, 3], &[3, 4]).c(&[2]).err("c shape [2] is not unidirectionally broadcastable"),
        g(&[2, 3], &[3, 4]).c(&[4, 1]).err("c shape [4, 1]"),
        g(&[2, 3], &[3, 4]).c(&[5]).err("c shape [5]"),
        g(&[2, 3], &[3, 4]).c(&[2, 5]).err("c shape [2, 5]"),
        g(&[2, 3], &[3, 4]).c(&[4, 2]).err("c shape [4, 2]"),
        g(&[2, 3], &[3, 4]).at().c(&[2, 4]).err("columns of a"),
        g(&[2, 3], &[3, 4]).c(&[1, 2, 4]).err("c rank 3"),
        g(&[3], &[3, 4]).err("a rank 1"),
        g(&[1, 2, 3], &[3, 4]).err("a rank 3"),
        g(&[2, 3], &[3]).err("b rank 1"),
        g(&[2, 3], &[1, 3, 4]).err("b rank 3"),
        g(&[], &[3, 4]).err("a rank 0"),
    ]
}

#[test]
fn gemm_table() {
    for_rows(&gemm_rows(), 35, &[Float32, Float16], |row, t, ctx| {
        run_checked("gemm", row.expect.map(|out| desc(t, &out)), ctx, |b| {
            let a = b.input("a", &desc(t, row.a)).unwrap();
            let bb = b.input("b", &desc(t, row.b)).unwrap();
            let c = row.c.map(|s| b.input("c", &desc(t, s)).unwrap());
            let (a_transpose, b_transpose) = (row.a_transpose, row.b_transpose);
            b.gemm(&a, &bb, &GemmOptions { c, a_transpose, b_transpose, ..Default::default() })
        });
    });
}

#[test]
fn gemm_types_builders_attrs() {
    assert_types_follow_limits(OpKind::Gemm, "a", &[2, 4], |b, t| {
        let a = b.input("a", &desc(t, &[2, 3])).unwrap();
        let bb = b.input("b", &desc(t, &[3, 4])).unwrap();
        b.gemm(&a, &bb, &GemmOptions::default())
    });
    let mut b = builder();
    let a = b.input("a", &desc(Float32, &[2, 3])).unwrap();
    let b16 = b.input("b16", &desc(Float16, &[3, 4])).unwrap();
    let bb = b.input("b", &desc(Float32, &[3, 4])).unwrap();
    let c16 = b.input("c16", &desc(Float16, &[4])).unwrap();
    let ci = b.input("ci", &desc(Int32, &[4])).unwrap();
    assert_type_error(b.gemm(&a, &b16, &GemmOptions::default()), "b data type float16 must equal a data type float32");
    assert_type_error(
        b.gemm(&a, &bb, &GemmOptions { c: Some(c16), ..Default::default() }),
        "c data type float16 must equal a data type float32",
    );
    assert_type_error(
        b.gemm(&a, &bb, &GemmOptions { c: Some(ci), ..Default::default() }),
        "c data type int32 is not supported",
    );
    // decisions.md D12: c from another builder is a TypeError.
    let mut other = builder();
    let oc = other.input("c", &desc(Float32, &[4])).unwrap();
    let ob = other.input("b", &desc(Float32, &[3, 4])).unwrap();
    assert_type_error(
        b.gemm(&a, &bb, &GemmOptions { c: Some(oc), ..Default::default() }),
        "c was created by another MLGraphBuilder",
    );
    assert_type_error(b.gemm(&a, &ob, &GemmOptions::default()), "b was created by another MLGraphBuilder");
    assert_type_error(
        b.gemm(&a, &a, &GemmOptions { label: "fc".into(), ..Default::default() }),
        "[fc] gemm: columns of a",
    );
    assert_eq!(b.operation_count(), 0);
    let (mut built, x) = built_builder();
    assert_kind(built.gemm(&x, &x, &GemmOptions::default()), ErrorKind::InvalidState);

    // alpha / beta are cast to a's type.
    for (t, alpha, beta, want_alpha, want_beta) in [
        (Float32, 1.0, 1.0, 1.0, 1.0),
        (Float32, 0.1, 1e40, 0.1f32 as f64, f64::INFINITY),
        (Float16, 0.1, 70000.0, half::f16::from_f64(0.1).to_f64(), f64::INFINITY),
        (Float16, -2.5, 0.0, -2.5, 0.0),
    ] {
        let mut b = builder();
        let a = b.input("a", &desc(t, &[3, 2])).unwrap();
        let bb = b.input("b", &desc(t, &[4, 3])).unwrap();
        let c = b.input("c", &desc(t, &[1])).unwrap();
        let options =
            GemmOptions { c: Some(c), alpha, beta, a_transpose: true, b_transpose: true, ..Default::default() };
        let out = b.gemm(&a, &bb, &options).unwrap();
        let g = graph_of(&mut b, &out);
        assert_eq!(
            g.operations[0].attrs,
            Attrs::Gemm { alpha: want_alpha, beta: want_beta, a_transpose: true, b_transpose: true },
            "{t} {alpha} {beta}"
        );
        assert!(g.operations[0].inputs.iter().all(|i| i.is_some()));
    }
    let mut b = builder();
    let a = b.input("a", &desc(Float32, &[2, 3])).unwrap();
    let bb = b.input("b", &desc(Float32, &[3, 4])).unwrap();
    let out = b.gemm(&a, &bb, &GemmOptions::default()).unwrap();
    let g = graph_of(&mut b, &out);
    assert_eq!(g.operations[0].inputs.len(), 3);
    assert_eq!(g.operations[0].inputs[2], None);
}

// ---------------------------------------------------------------------------------------------
// matmul
// ---------------------------------------------------------------------------------------------

/// (a shape, b shape, output shape or error needle)
type MatmulRow = (&'static [u32], &'static [u32], std::result::Result<&'static [u32], &'static str>);

fn matmul_rows() -> Vec<MatmulRow> {
    vec![
        (&[2, 3], &[3, 4], Ok(&[2, 4])),
        (&[5, 2, 3], &[3, 4], Ok(&[5, 2, 4])),
        (&[2, 3], &[5, 3, 4], Ok(&[5, 2, 4])),
        (&[5, 2, 3], &[5, 3, 4], Ok(&[5, 2, 4])),
        (&[5, 2, 3], &[1, 3, 4], Ok(&[5, 2, 4])),
        (&[1, 2, 3], &[5, 3, 4], Ok(&[5, 2, 4])),
        (&[2, 1, 2, 3], &[5, 3, 4], Ok(&[2, 5, 2, 4])),
        (&[6, 1, 2, 3], &[1, 7, 3, 4], Ok(&[6, 7, 2, 4])),
        (&[1, 1], &[1, 1], Ok(&[1, 1])),
        (&[1, 5], &[5, 1], Ok(&[1, 1])),
        (&[5, 1], &[1, 5], Ok(&[5, 5])),
        (&[2, 2, 2, 2, 2, 2, 2, 3], &[3, 1], Ok(&[2, 2, 2, 2, 2, 2, 2, 1])),
        (&[3, 1, 4, 2, 3], &[4, 1, 3, 5], Ok(&[3, 4, 4, 2, 5])),
        (&[1, 1, 2, 3], &[3, 4], Ok(&[1, 1, 2, 4])),
        (&[2, 3], &[1, 1, 1, 3, 4], Ok(&[1, 1, 1, 2, 4])),
        (&[4, 1, 6], &[1, 6, 1], Ok(&[4, 1, 1])),
        (&[3, 4, 2, 3], &[3, 4, 3, 2], Ok(&[3, 4, 2, 2])),
        (&[1, 3, 1, 2, 2], &[2, 1, 4, 2, 2], Ok(&[2, 3, 4, 2, 2])),
        (&[2, 3], &[4, 4], Err("columns of a (3) must equal rows of b (4)")),
        (&[5, 2, 3], &[4, 3, 4], Err("batch dimensions [5] and [4] are not broadcastable")),
        (&[2, 3, 4], &[3, 4, 4], Err("batch dimensions [2] and [3]")),
        (&[2, 2, 3], &[3, 3, 4], Err("batch dimensions")),
        (&[2, 3, 2, 3], &[3, 2, 3, 4], Err("batch dimensions [2, 3] and [3, 2]")),
        (&[3, 2], &[3, 2], Err("columns of a (2) must equal rows of b (3)")),
        (&[3], &[3, 4], Err("a rank 1")),
        (&[2, 3], &[3], Err("b rank 1")),
        (&[], &[1, 1], Err("a rank 0")),
        (&[1, 1], &[], Err("b rank 0")),
        (&[2, 4, 3], &[2, 4, 3], Err("columns of a (3) must equal rows of b (4)")),
    ]
}

#[test]
fn matmul_table() {
    for (i, (a_shape, b_shape, expect)) in matmul_rows().into_iter().enumerate() {
        for t in [Float32, Float16] {
            run_checked("matmul", expect.map(|out| desc(t, out)), &format!("row {i} {t}"), |b| {
                let a = b.input("a", &desc(t, a_shape)).unwrap();
                let bb = b.input("b", &desc(t, b_shape)).unwrap();
                b.matmul(&a, &bb, &OperatorOptions::default())
            });
        }
    }
}

#[test]
fn matmul_types_builders_attrs() {
    let allowed = member_limits(OpKind::Matmul, "a").unwrap().data_types;
    for t in DataType::ALL {
        for u in DataType::ALL {
            let mut b = builder();
            let a = b.input("a", &desc(t, &[2, 3])).unwrap();
            let bb = b.input("b", &desc(u, &[3, 4])).unwrap();
            let r = b.matmul(&a, &bb, &OperatorOptions::default());
            if allowed.contains(&t) && t == u {
                assert_eq!(r.unwrap().descriptor(), &desc(t, &[2, 4]), "{t}");
            } else {
                assert_kind(r, ErrorKind::Type);
            }
        }
    }
    let mut b = builder();
    let a = b.input("a", &desc(Float32, &[2, 3])).unwrap();
    let b16 = b.input("b16", &desc(Float16, &[3, 4])).unwrap();
    assert_type_error(
        b.matmul(&a, &b16, &OperatorOptions::default()),
        "b data type float16 must equal a data type float32",
    );
    assert_type_error(b.matmul(&a, &a, &labeled("mm")), "[mm] matmul: columns of a (3)");
    let mut other = builder();
    let ob = other.input("b", &desc(Float32, &[3, 4])).unwrap();
    assert_type_error(b.matmul(&a, &ob, &OperatorOptions::default()), "b was created by another MLGraphBuilder");
    assert_eq!(b.operation_count(), 0);
    let (mut built, x) = built_builder();
    assert_kind(built.matmul(&x, &x, &OperatorOptions::default()), ErrorKind::InvalidState);
    let bb = b.input("b", &desc(Float32, &[3, 4])).unwrap();
    let out = b.matmul(&a, &bb, &labeled("mm")).unwrap();
    let g = graph_of(&mut b, &out);
    assert_eq!(g.operations[0].attrs, Attrs::None);
    assert_eq!(g.operations[0].label, "mm");
    assert_eq!(g.operations[0].inputs.len(), 2);
}
