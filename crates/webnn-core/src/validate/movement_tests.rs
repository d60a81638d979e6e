//! Tests common to the 16 data-movement ops of `shape.rs` and `gather.rs`: the can-build
//! check (InvalidStateError), operands of another builder (TypeError) in every slot, the
//! `[label] ` prefix, data types and ranks against the limits table, nothing added on error.

use crate::builder::ContextLink;
use crate::limits::member_limits;
use crate::testing::*;
use crate::DataType::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// One op under test: its kind, its operand slots with a valid descriptor each, and a call.
struct Case {
    op: OpKind,
    slots: Vec<(&'static str, OperandDescriptor)>,
    call: CaseCall,
}

/// A call of a [`Case`]'s op on its slots' operands, with a label.
type CaseCall = fn(&mut GraphBuilder, &[Operand], &str) -> Result<Vec<Operand>>;

/// A [`Case`] of `op` with its operand `slots` and its `call`.
fn case(op: OpKind, slots: Vec<(&'static str, OperandDescriptor)>, call: CaseCall) -> Case {
    Case { op, slots, call }
}

fn one(r: Result<Operand>) -> Result<Vec<Operand>> {
    r.map(|o| vec![o])
}

fn op(label: &str) -> OperatorOptions {
    labeled(label)
}

/// Every op with a valid call on float32 operands.
fn cases() -> Vec<Case> {
    let f = |s: &[u32]| desc(Float32, s);
    let i = |s: &[u32]| desc(Int32, s);
    vec![
        case(OpKind::Concat, vec![("inputs", f(&[2, 3])), ("inputs", f(&[2, 3]))], |b, x, l| {
            one(b.concat(&[&x[0], &x[1]], 0, &op(l)))
        }),
        case(OpKind::Expand, vec![("input", f(&[3, 1]))], |b, x, l| one(b.expand(&x[0], &[3, 4], &op(l)))),
        case(OpKind::Pad, vec![("input", f(&[2, 3]))], |b, x, l| {
            one(b.pad(&x[0], &[1, 1], &[1, 1], &PadOptions { label: l.into(), ..Default::default() }))
        }),
        case(OpKind::Reshape, vec![("input", f(&[2, 3]))], |b, x, l| one(b.reshape(&x[0], &[6], &op(l)))),
        case(OpKind::Reverse, vec![("input", f(&[2, 3]))], |b, x, l| {
            one(b.reverse(&x[0], &ReverseOptions { label: l.into(), ..Default::default() }))
        }),
        case(OpKind::Slice, vec![("input", f(&[2, 3]))], |b, x, l| {
            one(b.slice(&x[0], &[0, 1], &[2, 2], &SliceOptions { label: l.into(), ..Default::default() }))
        }),
        case(OpKind::Split, vec![("input", f(&[2, 4]))], |b, x, l| {
            b.split(&x[0], &Splits::Count(2), &SplitOptions { label: l.into(), ..Default::default() })
        }),
        case(OpKind::Tile, vec![("input", f(&[2, 3]))], |b, x, l| one(b.tile(&x[0], &[2, 1], &op(l)))),
        case(OpKind::Transpose, vec![("input", f(&[2, 3]))], |b, x, l| {
            one(b.transpose(&x[0], &TransposeOptions { label: l.into(), ..Default::default() }))
        }),
        case(OpKind::Triangular, vec![("input", f(&[3, 3]))], |b, x, l| {
            one(b.triangular(&x[0], &TriangularOptions { label: l.into(), ..Default::default() }))
        }),
        case(
            OpKind::Where,
            vec![("condition", desc(Uint8, &[2, 3])), ("trueValue", f(&[2, 3])), ("falseValue", f(&[3]))],
            |b, x, l| one(b.where_(&x[0], &x[1], &x[2], &op(l))),
        ),
        case(OpKind::Gather, vec![("input", f(&[4, 3])), ("indices", i(&[2]))], |b, x, l| {
            one(b.gather(&x[0], &x[1], &GatherOptions { label: l.into(), ..Default::default() }))
        }),
        case(OpKind::GatherElements, vec![("input", f(&[4, 3])), ("indices", i(&[2, 3]))], |b, x, l| {
            one(b.gather_elements(&x[0], &x[1], &GatherOptions { label: l.into(), ..Default::default() }))
        }),
        case(OpKind::GatherNd, vec![("input", f(&[4, 3])), ("indices", i(&[2, 2]))], |b, x, l| {
            one(b.gather_nd(&x[0], &x[1], &op(l)))
        }),
        case(
            OpKind::ScatterElements,
            vec![("input", f(&[4, 3])), ("indices", i(&[2, 3])), ("updates", f(&[2, 3]))],
            |b, x, l| {
                one(b.scatter_elements(&x[0], &x[1], &x[2], &ScatterOptions { label: l.into(), ..Default::default() }))
            },
        ),
        case(
            OpKind::ScatterNd,
            vec![("input", f(&[4, 3])), ("indices", i(&[2, 1])), ("updates", f(&[2, 3]))],
            |b, x, l| one(b.scatter_nd(&x[0], &x[1], &x[2], &op(l))),
        ),
    ]
}

fn inputs(b: &mut GraphBuilder, slots: &[(&str, OperandDescriptor)]) -> Vec<Operand> {
    slots.iter().enumerate().map(|(k, (_, d))| b.input(&format!("in{k}"), d).unwrap()).collect()
}

#[test]
fn every_op_succeeds_on_its_sample_and_records_its_kind() {
    for case in cases() {
        let mut b = builder();
        let x = inputs(&mut b, &case.slots);
        let outs = (case.call)(&mut b, &x, "").unwrap_or_else(|e| panic!("{}: {e}", case.op));
        assert_eq!(b.operation_count(), 1, "{}", case.op);
        let refs: Vec<(String, &Operand)> = outs.iter().enumerate().map(|(k, o)| (format!("o{k}"), o)).collect();
        let named: Vec<(&str, &Operand)> = refs.iter().map(|(n, o)| (n.as_str(), *o)).collect();
        let g = b.build(&named).unwrap();
        assert_eq!(g.operations[0].kind, case.op);
        assert_eq!(g.operations[0].inputs.len(), case.slots.len(), "{}", case.op);
        assert_eq!(g.operations[0].label, "");
    }
}

#[test]
fn label_is_kept_and_prefixes_errors() {
    for case in cases() {
        let mut b = builder();
        let x = inputs(&mut b, &case.slots);
        let outs = (case.call)(&mut b, &x, "my op").unwrap();
        let g = b.build(&[("o", &outs[0])]).unwrap();
        assert_eq!(g.operations[0].label, "my op");
        // A failing call with a label: an operand of another builder.
        let mut b = builder();
        let mut x = inputs(&mut b, &case.slots);
        let mut other = builder();
        x[0] = other.input("z", &case.slots[0].1).unwrap();
        let e = (case.call)(&mut b, &x, "lbl").unwrap_err();
        let prefix = format!("[lbl] {}: ", case.op.idl_name());
        assert!(e.message.starts_with(&prefix), "{:?} should start with {prefix:?}", e.message);
    }
}

#[test]
fn operands_of_another_builder_are_type_errors_in_every_slot() {
    for case in cases() {
        for slot in 0..case.slots.len() {
            let mut b = builder();
            let mut x = inputs(&mut b, &case.slots);
            let mut other = builder();
            x[slot] = other.input("z", &case.slots[slot].1).unwrap();
            let r = (case.call)(&mut b, &x, "");
            let needle =
                format!("{}: {} was created by another MLGraphBuilder", case.op.idl_name(), case.slots[slot].0);
            assert_type_error(r, &needle);
            assert_eq!(b.operation_count(), 0);
        }
    }
}

#[test]
fn cannot_build_after_build_or_when_the_context_is_lost() {
    for case in cases() {
        // After build().
        let mut b = builder();
        let x = inputs(&mut b, &case.slots);
        let y = b.identity(&x[0], &OperatorOptions::default()).unwrap();
        b.build(&[("y", &y)]).unwrap();
        let r = (case.call)(&mut b, &x, "l");
        assert_kind(r, ErrorKind::InvalidState);
        // Context lost: InvalidStateError even with an operand of another builder.
        let lost = Arc::new(AtomicBool::new(false));
        let mut b = GraphBuilder::new(ContextLink { id: 7, lost: lost.clone(), limits: None }).unwrap();
        let mut x = inputs(&mut b, &case.slots);
        lost.store(true, Ordering::Release);
        let mut other = builder();
        x[0] = other.input("z", &case.slots[0].1).unwrap();
        let e = (case.call)(&mut b, &x, "l").unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidState, "{}: {e}", case.op);
        assert!(e.message.contains("context is lost"), "{e}");
    }
}

/// For every slot and every data type: accepted iff the limits table allows it (with the
/// other slots at their sample descriptors; a type that differs from the sample then fails
/// later only through the op's own "same type" steps, which the op tables cover).
#[test]
fn data_types_follow_the_limits_table() {
    for case in cases() {
        for (slot, (member, d)) in case.slots.iter().enumerate() {
            let allowed = member_limits(case.op, member).unwrap().data_types;
            for t in DataType::ALL {
                let mut slots = case.slots.clone();
                slots[slot].1 = OperandDescriptor::new(t, d.shape.clone());
                // Keep "same type as" partners in step so that only the limits decide.
                let same_type_partners: &[usize] = match (case.op, *member) {
                    (OpKind::Concat, _) => &[0, 1],
                    (OpKind::Where, "trueValue" | "falseValue") => &[1, 2],
                    (OpKind::ScatterElements | OpKind::ScatterNd, "input" | "updates") => &[0, 2],
                    _ => &[],
                };
                for &p in same_type_partners {
                    slots[p].1.data_type = t;
                }
                let mut b = builder();
                let x = inputs(&mut b, &slots);
                let r = (case.call)(&mut b, &x, "");
                if allowed.contains(&t) {
                    let outs = r.unwrap_or_else(|e| panic!("{} {member} {t}: {e}", case.op));
                    if !matches!(*member, "indices" | "condition") {
                        assert!(outs.iter().all(|o| o.data_type() == t), "{} output type", case.op);
                    }
                } else {
                    assert_type_error(r, &format!("{member} data type {t} is not supported"));
                    assert_eq!(b.operation_count(), 0);
                }
            }
        }
    }
}

/// Builds `out` and returns the names of the graph inputs in the slots of its operation (the
/// graph's only one), in slot order.
fn slot_input_names(mut b: GraphBuilder, out: &Operand) -> Vec<String> {
    let g = b.build(&[("out", out)]).unwrap();
    let op = &g.operations[0];
    let name = |k| g.inputs.iter().find(|(_, id)| Some(*id) == op.input(k)).unwrap().0.clone();
    (0..op.inputs.len()).map(name).collect()
}

#[test]
fn input_operands_are_recorded_by_slot_in_order() {
    let mut b = builder();
    let c = b.input("c", &desc(Uint8, &[2])).unwrap();
    let x = b.input("x", &desc(Float32, &[2])).unwrap();
    let y = b.input("y", &desc(Float32, &[2])).unwrap();
    let w = b.where_(&c, &x, &y, &OperatorOptions::default()).unwrap();
    assert_eq!(slot_input_names(b, &w), ["c", "x", "y"]);

    let mut b = builder();
    let x = b.input("x", &desc(Float32, &[4, 3])).unwrap();
    let i = b.input("i", &desc(Int64, &[2, 3])).unwrap();
    let u = b.input("u", &desc(Float32, &[2, 3])).unwrap();
    let s = b.scatter_elements(&x, &i, &u, &ScatterOptions::default()).unwrap();
    assert_eq!(slot_input_names(b, &s), ["x", "i", "u"]);
}

#[test]
fn chained_ops_use_the_output_operands() {
    let mut b = builder();
    let x = b.input("x", &desc(Float32, &[2, 3, 4])).unwrap();
    let t = b.transpose(&x, &TransposeOptions { permutation: Some(vec![2, 0, 1]), ..Default::default() }).unwrap();
    assert_eq!(t.shape(), &[4, 2, 3]);
    let r = b.reshape(&t, &[8, 3], &OperatorOptions::default()).unwrap();
    let parts = b.split(&r, &Splits::Sizes(vec![1, 2]), &SplitOptions { axis: 1, ..Default::default() }).unwrap();
    assert_eq!(parts[1].shape(), &[8, 2]);
    let c = b.concat(&[&parts[1], &parts[0]], 1, &OperatorOptions::default()).unwrap();
    assert_eq!(c.shape(), &[8, 3]);
    let p = b.pad(&c, &[1, 0], &[0, 2], &PadOptions::default()).unwrap();
    let s = b.slice(&p, &[1, 0], &[8, 5], &SliceOptions { strides: Some(vec![3, 2]), ..Default::default() }).unwrap();
    assert_eq!(s.shape(), &[3, 3]);
    let tr = b.triangular(&s, &TriangularOptions::default()).unwrap();
    let e = b.expand(&tr, &[2, 3, 3], &OperatorOptions::default()).unwrap();
    let tl = b.tile(&e, &[1, 2, 1], &OperatorOptions::default()).unwrap();
    let rv = b.reverse(&tl, &ReverseOptions { axes: Some(vec![1]), ..Default::default() }).unwrap();
    assert_eq!(rv.shape(), &[2, 6, 3]);
    assert_eq!(b.operation_count(), 10);
    let g = b.build(&[("out", &rv)]).unwrap();
    assert_eq!(g.operations.len(), 10, "split is live through one of its outputs");
}
