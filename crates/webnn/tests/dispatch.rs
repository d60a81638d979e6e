//! Every check of `dispatch()` ([spec](https://www.w3.org/TR/webnn/#api-mlcontext-createtensor)),
//! each asserting its ErrorKind, plus their order.

mod common;
use common::*;
use webnn::*;

/// (inputs, outputs, expected message needle)
type Case<'a> = (Vec<(&'a str, &'a Tensor)>, Vec<(&'a str, &'a Tensor)>, &'a str);

struct Fixture {
    context: Context,
    graph: Graph,
    a: Tensor,
    b: Tensor,
    out: Tensor,
}

impl Fixture {
    /// Asserts that dispatching the graph with `a` and `b` bound to its inputs and `out` to its
    /// output fails with an error of `kind` whose message contains `needle`.
    #[track_caller]
    fn assert_dispatch_err(&self, a: &Tensor, b: &Tensor, out: &Tensor, kind: ErrorKind, needle: &str) {
        assert_err(self.context.dispatch(&self.graph, &[("a", a), ("b", b)], &[("out", out)]), kind, needle);
    }
}

fn fixture() -> Fixture {
    let context = ctx();
    let graph = add_graph(&context, &[2, 3]);
    let a = rw_tensor(&context, &[2, 3], &[1.0; 6]);
    let b = rw_tensor(&context, &[2, 3], &[2.0; 6]);
    let out = rw_tensor(&context, &[2, 3], &[0.0; 6]);
    Fixture { context, graph, a, b, out }
}

#[test]
fn valid_dispatch_in_any_binding_order() {
    let f = fixture();
    f.context.dispatch(&f.graph, &[("b", &f.b), ("a", &f.a)], &[("out", &f.out)]).unwrap();
    assert_eq!(read_f32(&f.context, &f.out), vec![3.0; 6]);
    // readable / writable flags are not part of descriptor equality.
    let plain_in = f.context.create_tensor(&tdesc(DataType::Float32, &[2, 3], false, false)).unwrap();
    let plain_out = f.context.create_tensor(&tdesc(DataType::Float32, &[2, 3], false, false)).unwrap();
    f.context.dispatch(&f.graph, &[("a", &plain_in), ("b", &f.b)], &[("out", &plain_out)]).unwrap();
    f.context.dispatch(&f.graph, &[("a", &plain_out), ("b", &f.b)], &[("out", &f.out)]).unwrap();
    assert_eq!(read_f32(&f.context, &f.out), vec![4.0; 6]);
}

#[test]
fn graph_of_another_context_is_a_type_error() {
    let f = fixture();
    let other = ctx();
    let g2 = add_graph(&other, &[2, 3]);
    assert_err(
        f.context.dispatch(&g2, &[("a", &f.a), ("b", &f.b)], &[("out", &f.out)]),
        ErrorKind::Type,
        "another context",
    );
    // Step 1 comes before step 2: a destroyed graph of another context is still a TypeError.
    g2.destroy();
    assert_err(
        f.context.dispatch(&g2, &[("a", &f.a), ("b", &f.b)], &[("out", &f.out)]),
        ErrorKind::Type,
        "another context",
    );
}

#[test]
fn destroyed_graph_is_an_invalid_state_error() {
    let f = fixture();
    f.graph.destroy();
    f.assert_dispatch_err(&f.a, &f.b, &f.out, ErrorKind::InvalidState, "destroyed");
    // Step 2 comes before the tensor checks.
    f.assert_dispatch_err(&f.a, &f.a, &f.a, ErrorKind::InvalidState, "destroyed");
    // A clone is the same graph.
    let clone = f.graph.clone();
    assert!(clone.is_destroyed());
}

#[test]
fn duplicate_tensors_are_type_errors() {
    let f = fixture();
    let (c, g) = (&f.context, &f.graph);
    let cases: Vec<Case> = vec![
        (vec![("a", &f.a), ("b", &f.a)], vec![("out", &f.out)], "input 'a' and as input 'b'"),
        (vec![("a", &f.a), ("b", &f.b)], vec![("out", &f.a)], "input 'a' and as output 'out'"),
        (vec![("a", &f.a), ("b", &f.out)], vec![("out", &f.out)], "input 'b' and as output 'out'"),
    ];
    for (inputs, outputs, needle) in cases {
        assert_err(c.dispatch(g, &inputs, &outputs), ErrorKind::Type, needle);
    }
    // A clone of a tensor is the same tensor.
    let a2 = f.a.clone();
    assert_err(c.dispatch(g, &[("a", &f.a), ("b", &a2)], &[("out", &f.out)]), ErrorKind::Type, "same tensor");
}

#[test]
fn duplicate_outputs_of_a_two_output_graph_are_type_errors() {
    let context = ctx();
    let mut b = GraphBuilder::new(&context).unwrap();
    let x = b.input("x", &desc(DataType::Float32, &[2])).unwrap();
    let s = b.add(&x, &x, &NO).unwrap();
    let p = b.mul(&x, &x, &NO).unwrap();
    let graph = b.build(&[("sum", &s), ("product", &p)]).unwrap();
    let x_t = rw_tensor(&context, &[2], &[3.0, 4.0]);
    let o1 = rw_tensor(&context, &[2], &[0.0; 2]);
    let o2 = rw_tensor(&context, &[2], &[0.0; 2]);
    assert_err(
        context.dispatch(&graph, &[("x", &x_t)], &[("sum", &o1), ("product", &o1)]),
        ErrorKind::Type,
        "same tensor",
    );
    context.dispatch(&graph, &[("x", &x_t)], &[("product", &o2), ("sum", &o1)]).unwrap();
    assert_eq!(read_f32(&context, &o1), vec![6.0, 8.0]);
    assert_eq!(read_f32(&context, &o2), vec![9.0, 16.0]);
}

#[test]
fn duplicate_names_are_type_errors() {
    let f = fixture();
    assert_err(
        f.context.dispatch(&f.graph, &[("a", &f.a), ("a", &f.b)], &[("out", &f.out)]),
        ErrorKind::Type,
        "'a' is given twice",
    );
    let o2 = rw_tensor(&f.context, &[2, 3], &[0.0; 6]);
    assert_err(
        f.context.dispatch(&f.graph, &[("a", &f.a), ("b", &f.b)], &[("out", &f.out), ("out", &o2)]),
        ErrorKind::Type,
        "'out' is given twice",
    );
}

#[test]
fn tensor_of_another_context_is_a_type_error() {
    let f = fixture();
    let other = ctx();
    let foreign = rw_tensor(&other, &[2, 3], &[0.0; 6]);
    f.assert_dispatch_err(&foreign, &f.b, &f.out, ErrorKind::Type, "input 'a' is a tensor of another context");
    f.assert_dispatch_err(&f.a, &f.b, &foreign, ErrorKind::Type, "output 'out' is a tensor of another context");
}

#[test]
fn destroyed_tensor_is_a_type_error() {
    let f = fixture();
    f.b.destroy();
    f.assert_dispatch_err(&f.a, &f.b, &f.out, ErrorKind::Type, "input 'b' is a destroyed tensor");
    f.out.destroy();
    let b2 = rw_tensor(&f.context, &[2, 3], &[0.0; 6]);
    f.assert_dispatch_err(&f.a, &b2, &f.out, ErrorKind::Type, "output 'out' is a destroyed tensor");
}

#[test]
fn descriptor_mismatches_are_type_errors() {
    let f = fixture();
    let c = &f.context;
    let cases = [
        (tdesc(DataType::Float32, &[3, 2], true, true), "input", "float32[3, 2]"),
        (tdesc(DataType::Float32, &[6], true, true), "input", "float32[6]"),
        (tdesc(DataType::Float32, &[1, 2, 3], true, true), "input", "float32[1, 2, 3]"),
        (tdesc(DataType::Int32, &[2, 3], true, true), "input", "int32[2, 3]"),
        (tdesc(DataType::Float16, &[2, 3], true, true), "input", "float16[2, 3]"),
        (tdesc(DataType::Float32, &[3, 2], true, true), "output", "float32[3, 2]"),
        (tdesc(DataType::Uint32, &[2, 3], true, true), "output", "uint32[2, 3]"),
    ];
    for (d, kind, needle) in cases {
        let t = c.create_tensor(&d).unwrap();
        let r = if kind == "input" {
            c.dispatch(&f.graph, &[("a", &f.a), ("b", &t)], &[("out", &f.out)])
        } else {
            c.dispatch(&f.graph, &[("a", &f.a), ("b", &f.b)], &[("out", &t)])
        };
        assert_err(r, ErrorKind::Type, needle);
    }
}

#[test]
fn missing_and_extra_names_are_type_errors() {
    let f = fixture();
    let (c, g) = (&f.context, &f.graph);
    let extra = rw_tensor(c, &[2, 3], &[0.0; 6]);
    let cases: Vec<Case> = vec![
        (vec![("a", &f.a)], vec![("out", &f.out)], "has 2 inputs"),
        (vec![], vec![("out", &f.out)], "has 2 inputs"),
        (vec![("a", &f.a), ("b", &f.b), ("c", &extra)], vec![("out", &f.out)], "has 2 inputs"),
        (vec![("a", &f.a), ("B", &f.b)], vec![("out", &f.out)], "'B' is not an input"),
        (vec![("a", &f.a), ("b", &f.b)], vec![], "has 1 outputs"),
        (vec![("a", &f.a), ("b", &f.b)], vec![("out", &f.out), ("more", &extra)], "has 1 outputs"),
        (vec![("a", &f.a), ("b", &f.b)], vec![("output", &f.out)], "'output' is not an output"),
        (vec![("a", &f.a), ("out", &f.b)], vec![("b", &f.out)], "'out' is not an input"),
    ];
    for (inputs, outputs, needle) in cases {
        assert_err(c.dispatch(g, &inputs, &outputs), ErrorKind::Type, needle);
    }
}

#[test]
fn unreachable_builder_input_is_not_a_graph_input() {
    let context = ctx();
    let mut b = GraphBuilder::new(&context).unwrap();
    let x = b.input("x", &desc(DataType::Float32, &[2])).unwrap();
    let _unused = b.input("unused", &desc(DataType::Float32, &[2])).unwrap();
    let y = b.add(&x, &x, &NO).unwrap();
    let graph = b.build(&[("y", &y)]).unwrap();
    assert_eq!(graph.input_descriptors().len(), 1);
    let tx = rw_tensor(&context, &[2], &[1.0, 2.0]);
    let tu = rw_tensor(&context, &[2], &[0.0; 2]);
    let ty = rw_tensor(&context, &[2], &[0.0; 2]);
    assert_err(
        context.dispatch(&graph, &[("x", &tx), ("unused", &tu)], &[("y", &ty)]),
        ErrorKind::Type,
        "has 1 inputs",
    );
    context.dispatch(&graph, &[("x", &tx)], &[("y", &ty)]).unwrap();
    assert_eq!(read_f32(&context, &ty), vec![2.0, 4.0]);
}

#[test]
fn constant_tensor_cannot_be_bound() {
    let f = fixture();
    let k = f.context.create_constant_tensor(&desc(DataType::Float32, &[2, 3]), &f32_bytes(&[1.0; 6])).unwrap();
    f.assert_dispatch_err(&k, &f.b, &f.out, ErrorKind::Type, "constant tensor");
    f.assert_dispatch_err(&f.a, &f.b, &k, ErrorKind::Type, "constant tensor");
}

#[test]
fn failed_dispatch_queues_nothing() {
    let f = fixture();
    f.context.dispatch(&f.graph, &[("a", &f.a), ("b", &f.b)], &[("out", &f.out)]).unwrap();
    assert_eq!(read_f32(&f.context, &f.out), vec![3.0; 6]);
    let wrong = rw_tensor(&f.context, &[6], &[9.0; 6]);
    f.context.write_tensor(&f.a, &f32_bytes(&[10.0; 6])).unwrap();
    assert!(f.context.dispatch(&f.graph, &[("a", &f.a), ("b", &wrong)], &[("out", &f.out)]).is_err());
    assert!(f.context.dispatch(&f.graph, &[("a", &f.a)], &[("out", &f.out)]).is_err());
    assert_eq!(read_f32(&f.context, &f.out), vec![3.0; 6], "the output was not touched");
}

#[test]
fn scalar_and_integer_graphs_dispatch() {
    let context = ctx();
    for dt in [DataType::Int32, DataType::Uint32, DataType::Int64, DataType::Uint64, DataType::Int8, DataType::Uint8] {
        let mut b = GraphBuilder::new(&context).unwrap();
        let x = b.input("x", &desc(dt, &[])).unwrap();
        let y = b.input("y", &desc(dt, &[3])).unwrap();
        let z = b.mul(&x, &y, &NO).unwrap();
        let graph = b.build(&[("z", &z)]).unwrap();
        let size = dt.byte_size();
        let tx = context.create_tensor(&tdesc(dt, &[], false, true)).unwrap();
        let ty = context.create_tensor(&tdesc(dt, &[3], false, true)).unwrap();
        let tz = context.create_tensor(&tdesc(dt, &[3], true, false)).unwrap();
        let mut xb = vec![0u8; size];
        xb[0] = 3;
        let mut yb = vec![0u8; 3 * size];
        for i in 0..3 {
            yb[i * size] = (i + 1) as u8;
        }
        context.write_tensor(&tx, &xb).unwrap();
        context.write_tensor(&ty, &yb).unwrap();
        context.dispatch(&graph, &[("x", &tx), ("y", &ty)], &[("z", &tz)]).unwrap();
        let out = context.read_tensor(&tz).wait().unwrap();
        let firsts: Vec<u8> = (0..3).map(|i| out[i * size]).collect();
        assert_eq!(firsts, vec![3, 6, 9], "{dt}");
    }
}
