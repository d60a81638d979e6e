//! Helpers shared by the validator table tests (`*_tests.rs` in this folder): the builder
//! states they start from and the one check of a row's result.

use crate::graph::{Graph, Operation};
use crate::testing::*;
use crate::DataType::Float32;

/// Builds a graph with `out` as its only output and returns it.
pub(super) fn graph_of(b: &mut GraphBuilder, out: &Operand) -> Graph {
    b.build(&[("out", out)]).unwrap()
}

/// A builder that has already built (for InvalidStateError), and its input.
pub(super) fn built_builder() -> (GraphBuilder, Operand) {
    let mut b = builder();
    let x = b.input("x", &desc(Float32, &[1, 1, 4, 4])).unwrap();
    let y = b.identity(&x, &OperatorOptions::default()).unwrap();
    b.build(&[("y", &y)]).unwrap();
    (b, x)
}

/// (shape, axis, whether the axis is in range) rows of the ops taking one axis of an input of
/// rank 1 to 8 (softmax, cumulativeSum).
pub(super) const AXIS_ROWS: [(&[u32], u32, bool); 16] = [
    (&[5], 0, true),
    (&[5], 1, false),
    (&[2, 3], 0, true),
    (&[2, 3], 1, true),
    (&[2, 3], 2, false),
    (&[2, 3, 4], 2, true),
    (&[2, 3, 4], 3, false),
    (&[2, 3, 4], u32::MAX, false),
    (&[1, 2, 3, 4], 0, true),
    (&[1, 2, 3, 4], 3, true),
    (&[1, 2, 3, 4], 4, false),
    (&[1, 2, 3, 4], u32::MAX, false),
    (&[1, 2, 3, 4, 5, 6, 7, 8], 0, true),
    (&[1, 2, 3, 4, 5, 6, 7, 8], 7, true),
    (&[1, 2, 3, 4, 5, 6, 7, 8], 8, false),
    (&[7, 1], 1, true),
];

/// Calls `check(row, t, ctx)` for every row of `rows` (at least `min_rows` of them) under every
/// data type `t` of `types`; `ctx` names the row and the type in failures.
pub(super) fn for_rows<R>(rows: &[R], min_rows: usize, types: &[DataType], mut check: impl FnMut(&R, DataType, &str)) {
    assert!(rows.len() >= min_rows, "{} rows", rows.len());
    for (i, row) in rows.iter().enumerate() {
        for &t in types {
            check(row, t, &format!("row {i} {t}"));
        }
    }
}

/// Runs one table row on a fresh builder: `call` adds the inputs and the op, whose result is
/// checked by [`check_row`] (nothing added before the op but its inputs). Returns the builder
/// and the output, if any, for further checks.
#[track_caller]
pub(super) fn run_checked(
    op: &str,
    expect: std::result::Result<OperandDescriptor, &str>,
    ctx: &str,
    call: impl FnOnce(&mut GraphBuilder) -> Result<Operand>,
) -> (GraphBuilder, Option<Operand>) {
    let mut b = builder();
    let r = call(&mut b);
    check_row(r.clone(), expect, op, 0, &b, ctx);
    (b, r.ok())
}

/// Checks one table row's result `r`: the output descriptor `expect`, or a TypeError whose
/// message contains both the needle and `op`, after which the builder still holds
/// `ops_before` operations (a throwing call adds nothing). `ctx` names the row in failures.
#[track_caller]
fn check_row(
    r: Result<Operand>,
    expect: std::result::Result<OperandDescriptor, &str>,
    op: &str,
    ops_before: usize,
    b: &GraphBuilder,
    ctx: &str,
) {
    match expect {
        Ok(d) => assert_eq!(r.expect(ctx).descriptor(), &d, "{ctx}"),
        Err(needle) => {
            let e = r.expect_err(ctx);
            assert_eq!(e.kind, ErrorKind::Type, "{ctx}: {e}");
            assert!(e.message.contains(needle), "{ctx}: {:?} should contain {needle:?}", e.message);
            assert!(e.message.contains(op), "{ctx}: {:?}", e.message);
            assert_eq!(b.operation_count(), ops_before, "{ctx}: a throwing call adds nothing");
        }
    }
}

/// Runs one table row on a fresh builder: `call` adds the inputs and the op. The result is
/// checked against `expect` (the output shape, of data type `t`, or a needle of the TypeError),
/// a failing call must add nothing, and a valid one is built and its operation returned.
/// `row` names the row in failures.
#[track_caller]
pub(super) fn run_row<R: std::fmt::Debug>(
    t: DataType,
    expect: std::result::Result<&[u32], &str>,
    row: R,
    call: impl FnOnce(&mut GraphBuilder) -> Result<Operand>,
) -> Option<Operation> {
    let mut b = builder();
    let r = call(&mut b);
    assert_nothing_added(&b, 0, &r);
    check(r, t, expect, row).map(|o| built_attrs(&mut b, &[&o]))
}

/// For every data type `t`, calls `call(b, t)` on a fresh builder (`call` adds inputs of type
/// `t` and the op): when `op`'s `member` allows `t` the output is of type `t` and shape `out`,
/// otherwise a TypeError "`op`: `member` data type `t` is not supported".
#[track_caller]
pub(super) fn assert_types_follow_limits(
    op: OpKind,
    member: &str,
    out: &[u32],
    call: impl Fn(&mut GraphBuilder, DataType) -> Result<Operand>,
) {
    let allowed = crate::limits::member_limits(op, member).unwrap().data_types;
    for t in DataType::ALL {
        let r = call(&mut builder(), t);
        if allowed.contains(&t) {
            assert_eq!(r.unwrap().descriptor(), &desc(t, out), "{op} {t}");
        } else {
            assert_type_error(r, &format!("{op}: {member} data type {t} is not supported"));
        }
    }
}

/// Asserts that `member` of `op` allows exactly the data types `want`, in any order.
#[track_caller]
pub(super) fn assert_allowed_types(op: OpKind, member: &str, want: &[DataType]) {
    let mut got = crate::limits::member_limits(op, member).unwrap().data_types.to_vec();
    let mut want = want.to_vec();
    got.sort();
    want.sort();
    assert_eq!(got, want, "{op} {member}");
}

/// Builder methods of a table row (`self` by value, returned changed). Each arm declares
/// methods `name => field`, the field a path below `self`:
/// - `vec T; ...`: `fn name(self, v: &[T])` sets the field to `Some(v.to_vec())`;
/// - `some T; ...`: `fn name(self, v: T)` sets it to `Some(v)`;
/// - `set T; ...`: `fn name(self, v: T)` sets it to `v`;
/// - `flag; name => field = value, ...`: `fn name(self)` sets it to `value`;
/// - `expect Out`: `ok(out: Out)` and `err(needle)` set the `expect` field, a
///   `Result<Out, &'static str>`.
macro_rules! setters {
    (vec $t:ty; $($name:ident => $($field:ident).+),+ $(,)?) => {
        $(
            fn $name(mut self, v: &[$t]) -> Self {
                self.$($field).+ = Some(v.to_vec());
                self
            }
        )+
    };
    (some $t:ty; $($name:ident => $($field:ident).+),+ $(,)?) => {
        $(
            fn $name(mut self, v: $t) -> Self {
                self.$($field).+ = Some(v);
                self
            }
        )+
    };
    (set $t:ty; $($name:ident => $($field:ident).+),+ $(,)?) => {
        $(
            fn $name(mut self, v: $t) -> Self {
                self.$($field).+ = v;
                self
            }
        )+
    };
    (flag; $($name:ident => $($field:ident).+ = $value:expr),+ $(,)?) => {
        $(
            fn $name(mut self) -> Self {
                self.$($field).+ = $value;
                self
            }
        )+
    };
    (expect $out:ty) => {
        fn ok(mut self, out: $out) -> Self {
            self.expect = Ok(out);
            self
        }
        fn err(mut self, needle: &'static str) -> Self {
            self.expect = Err(needle);
            self
        }
    };
}
pub(super) use setters;
