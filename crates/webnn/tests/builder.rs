//! GraphBuilder bound to a context: constant(tensor), build() compiling with the backend, and
//! the builder lifecycle (built twice, lost context, decisions.md D2).

mod common;
use common::*;
use webnn::*;

fn constant_tensor_graph(context: &Context, k: &Tensor) -> (GraphBuilder, Operand) {
    let mut b = GraphBuilder::new(context).unwrap();
    let x = b.input("x", &desc(DataType::Float32, &[3])).unwrap();
    let c = b.constant_tensor(k).unwrap();
    assert_eq!(c.data_type(), DataType::Float32);
    assert_eq!(c.shape(), &[3]);
    let y = b.mul(&x, &c, &NO).unwrap();
    (b, y)
}

#[test]
fn constant_tensor_used_by_a_graph_and_destroyed_after_build() {
    let context = ctx();
    let k = context.create_constant_tensor(&desc(DataType::Float32, &[3]), &f32_bytes(&[2.0, 3.0, 4.0])).unwrap();
    let (mut b, y) = constant_tensor_graph(&context, &k);
    let graph = b.build(&[("y", &y)]).unwrap();
    // Legal after build: the compiled graph keeps its own copy.
    k.destroy();
    assert!(k.is_destroyed());
    let x = rw_tensor(&context, &[3], &[1.0, 1.0, 2.0]);
    let out = rw_tensor(&context, &[3], &[0.0; 3]);
    context.dispatch(&graph, &[("x", &x)], &[("y", &out)]).unwrap();
    assert_eq!(read_f32(&context, &out), vec![2.0, 3.0, 8.0]);
    // The same constant tensor feeds several builders.
    let k2 = context.create_constant_tensor(&desc(DataType::Float32, &[3]), &f32_bytes(&[1.0; 3])).unwrap();
    let (mut b1, y1) = constant_tensor_graph(&context, &k2);
    let (mut b2, y2) = constant_tensor_graph(&context, &k2);
    b1.build(&[("y", &y1)]).unwrap();
    b2.build(&[("y", &y2)]).unwrap();
}

#[test]
fn constant_tensor_destroyed_before_build_is_a_type_error_d2() {
    let context = ctx();
    let k = context.create_constant_tensor(&desc(DataType::Float32, &[3]), &f32_bytes(&[1.0; 3])).unwrap();
    let (mut b, y) = constant_tensor_graph(&context, &k);
    k.destroy();
    assert_err(b.build(&[("y", &y)]), ErrorKind::Type, "destroyed");
    // The builder is unchanged by the failed build (it can still build without the constant).
    let x = b.input("x2", &desc(DataType::Float32, &[3])).unwrap();
    let z = b.add(&x, &x, &NO).unwrap();
    b.build(&[("z", &z)]).unwrap();
}

#[test]
fn constant_tensor_argument_checks() {
    let context = ctx();
    let other = ctx();
    let mut b = GraphBuilder::new(&context).unwrap();
    let foreign = other.create_constant_tensor(&desc(DataType::Float32, &[1]), &f32_bytes(&[1.0])).unwrap();
    assert_err(b.constant_tensor(&foreign), ErrorKind::Type, "another context");
    let plain = context.create_tensor(&tdesc(DataType::Float32, &[1], true, true)).unwrap();
    assert_err(b.constant_tensor(&plain), ErrorKind::Type, "not a constant tensor");
    let gone = context.create_constant_tensor(&desc(DataType::Float32, &[1]), &f32_bytes(&[1.0])).unwrap();
    gone.destroy();
    assert_err(b.constant_tensor(&gone), ErrorKind::Type, "destroyed");
    assert_eq!(b.operation_count(), 0);
}

#[test]
fn build_twice_is_an_invalid_state_error() {
    let context = ctx();
    let mut b = GraphBuilder::new(&context).unwrap();
    let x = b.input("x", &desc(DataType::Float32, &[2])).unwrap();
    let y = b.add(&x, &x, &NO).unwrap();
    b.build(&[("y", &y)]).unwrap();
    assert_err(b.build(&[("y", &y)]), ErrorKind::InvalidState, "already built");
    assert_err(b.add(&x, &x, &NO), ErrorKind::InvalidState, "already built");
    assert_err(b.input("z", &desc(DataType::Float32, &[2])), ErrorKind::InvalidState, "already built");
    let k = context.create_constant_tensor(&desc(DataType::Float32, &[1]), &f32_bytes(&[1.0])).unwrap();
    assert_err(b.constant_tensor(&k), ErrorKind::InvalidState, "already built");
}

#[test]
fn builder_on_a_lost_context() {
    let context = ctx();
    let mut before = GraphBuilder::new(&context).unwrap();
    let x = before.input("x", &desc(DataType::Float32, &[2])).unwrap();
    let y = before.add(&x, &x, &NO).unwrap();
    let k = context.create_constant_tensor(&desc(DataType::Float32, &[2]), &f32_bytes(&[1.0; 2])).unwrap();
    context.destroy();
    assert_err(GraphBuilder::new(&context), ErrorKind::InvalidState, "lost");
    assert_err(before.build(&[("y", &y)]), ErrorKind::InvalidState, "lost");
    assert_err(before.mul(&x, &y, &NO), ErrorKind::InvalidState, "lost");
    // constant(tensor) checks the tensor first: it was destroyed with its context.
    assert_err(before.constant_tensor(&k), ErrorKind::Type, "destroyed");
}

#[test]
fn build_errors_of_the_core_are_kept() {
    let context = ctx();
    let mut b = GraphBuilder::new(&context).unwrap();
    let x = b.input("x", &desc(DataType::Float32, &[2])).unwrap();
    let y = b.add(&x, &x, &NO).unwrap();
    assert_err(b.build(&[]), ErrorKind::Type, "at least one output");
    assert_err(b.build(&[("x", &x)]), ErrorKind::Type, "input or constant");
    assert_err(b.build(&[("", &y)]), ErrorKind::Type, "must not be empty");
    let mut other = GraphBuilder::new(&context).unwrap();
    let o = other.input("o", &desc(DataType::Float32, &[2])).unwrap();
    let o2 = other.add(&o, &o, &NO).unwrap();
    assert_err(b.build(&[("o2", &o2)]), ErrorKind::Type, "another MLGraphBuilder");
    // None of these marked the builder as built.
    b.build(&[("y", &y)]).unwrap();
}

#[test]
fn compile_failure_is_an_operation_error() {
    for mode in [Mode::CompileError, Mode::CompilePanic] {
        let gate = Gate::closed();
        let context = test_ctx(mode, &gate);
        let mut b = GraphBuilder::new(&context).unwrap();
        let x = b.input("x", &desc(DataType::Float32, &[2])).unwrap();
        let y = b.add(&x, &x, &NO).unwrap();
        let needle = if mode == Mode::CompileError { "refuses to compile" } else { "panicked" };
        assert_err(b.build(&[("y", &y)]), ErrorKind::Operation, needle);
        // The builder has built (hasBuilt is set before compiling), the context is fine.
        assert_err(b.build(&[("y", &y)]), ErrorKind::InvalidState, "already built");
        assert!(!context.is_lost());
        context.create_tensor(&tdesc(DataType::Float32, &[2], true, true)).unwrap();
    }
}

#[test]
fn graph_descriptors_follow_creation_and_output_order() {
    let context = ctx();
    let mut b = GraphBuilder::new(&context).unwrap();
    let p = b.input("p", &desc(DataType::Int32, &[2, 1])).unwrap();
    let q = b.input("q", &desc(DataType::Int32, &[3])).unwrap();
    let s = b.add(&q, &p, &NO).unwrap();
    let m = b.mul(&p, &p, &NO).unwrap();
    let graph = b.build(&[("second", &m), ("first", &s)]).unwrap();
    assert_eq!(
        graph.input_descriptors(),
        &[("p".to_string(), desc(DataType::Int32, &[2, 1])), ("q".to_string(), desc(DataType::Int32, &[3]))]
    );
    assert_eq!(
        graph.output_descriptors(),
        &[
            ("second".to_string(), desc(DataType::Int32, &[2, 1])),
            ("first".to_string(), desc(DataType::Int32, &[2, 3]))
        ]
    );
    let tp = context.create_tensor(&tdesc(DataType::Int32, &[2, 1], false, true)).unwrap();
    let tq = context.create_tensor(&tdesc(DataType::Int32, &[3], false, true)).unwrap();
    let ts = context.create_tensor(&tdesc(DataType::Int32, &[2, 3], true, false)).unwrap();
    let tm = context.create_tensor(&tdesc(DataType::Int32, &[2, 1], true, false)).unwrap();
    context.write_tensor(&tp, &i32_bytes(&[10, 20])).unwrap();
    context.write_tensor(&tq, &i32_bytes(&[1, 2, 3])).unwrap();
    context.dispatch(&graph, &[("q", &tq), ("p", &tp)], &[("first", &ts), ("second", &tm)]).unwrap();
    assert_eq!(to_i32(&context.read_tensor(&ts).wait().unwrap()), vec![11, 12, 13, 21, 22, 23]);
    assert_eq!(to_i32(&context.read_tensor(&tm).wait().unwrap()), vec![100, 400]);
    assert_eq!(b.context(), &context);
}
