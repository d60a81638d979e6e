//! The MLTensor explainer's examples: buffer reuse, chained inference, explicit destruction.

mod common;
use common::*;
use webnn::*;

/// One input tensor written once, dispatched to three graphs without waiting in between.
#[test]
fn buffer_reuse_across_three_graphs() {
    let context = ctx();
    let d = desc(DataType::Float32, &[4]);
    let make = |op: &dyn Fn(&mut GraphBuilder, &Operand) -> Operand| {
        let mut b = GraphBuilder::new(&context).unwrap();
        let x = b.input("input", &d).unwrap();
        let y = op(&mut b, &x);
        b.build(&[("output", &y)]).unwrap()
    };
    let graph1 = make(&|b, x| b.add(x, x, &NO).unwrap());
    let graph2 = make(&|b, x| b.mul(x, x, &NO).unwrap());
    let graph3 = make(&|b, x| {
        let one = b.constant_scalar(DataType::Float32, 1.0.into()).unwrap();
        b.sub(x, &one, &NO).unwrap()
    });
    let image = context.create_tensor(&tdesc(DataType::Float32, &[4], false, true)).unwrap();
    let outs: Vec<Tensor> =
        (0..3).map(|_| context.create_tensor(&tdesc(DataType::Float32, &[4], true, false)).unwrap()).collect();
    context.write_tensor(&image, &f32_bytes(&[1.0, 2.0, 3.0, 4.0])).unwrap();
    for (g, o) in [&graph1, &graph2, &graph3].into_iter().zip(&outs) {
        context.dispatch(g, &[("input", &image)], &[("output", o)]).unwrap();
    }
    let reads: Vec<_> = outs.iter().map(|o| context.read_tensor(o)).collect();
    let results: Vec<Vec<f32>> = reads.into_iter().map(|p| to_f32(&p.wait().unwrap())).collect();
    assert_eq!(results[0], vec![2.0, 4.0, 6.0, 8.0]);
    assert_eq!(results[1], vec![1.0, 4.0, 9.0, 16.0]);
    assert_eq!(results[2], vec![0.0, 1.0, 2.0, 3.0]);
    // The input can be rewritten and the graphs dispatched again.
    context.write_tensor(&image, &f32_bytes(&[-1.0; 4])).unwrap();
    context.dispatch(&graph2, &[("input", &image)], &[("output", &outs[1])]).unwrap();
    assert_eq!(read_f32(&context, &outs[1]), vec![1.0; 4]);
}

fn fibonacci(context: &Context, graph: &Graph, n: usize) -> i32 {
    let mut descriptors = [
        tdesc(DataType::Int32, &[1], false, true),
        tdesc(DataType::Int32, &[1], false, true),
        tdesc(DataType::Int32, &[1], false, false),
    ];
    descriptors[n % 3].readable = true;
    let tensors: Vec<Tensor> = descriptors.iter().map(|d| context.create_tensor(d).unwrap()).collect();
    context.write_tensor(&tensors[0], &i32_bytes(&[0])).unwrap();
    context.write_tensor(&tensors[1], &i32_bytes(&[1])).unwrap();
    for k in 2..=n {
        // Each dispatch depends on the tensors of the previous one; no waits in between.
        context
            .dispatch(
                graph,
                &[("F_n-1", &tensors[(k - 1) % 3]), ("F_n-2", &tensors[(k - 2) % 3])],
                &[("F_n", &tensors[k % 3])],
            )
            .unwrap();
    }
    to_i32(&context.read_tensor(&tensors[n % 3]).wait().unwrap())[0]
}

#[test]
fn chained_inference_fibonacci() {
    let context = ctx();
    let mut builder = GraphBuilder::new(&context).unwrap();
    let fn1 = builder.input("F_n-1", &desc(DataType::Int32, &[1])).unwrap();
    let fn2 = builder.input("F_n-2", &desc(DataType::Int32, &[1])).unwrap();
    let add = builder.add(&fn1, &fn2, &NO).unwrap();
    let graph = builder.build(&[("F_n", &add)]).unwrap();
    let mut expected = vec![0i32, 1];
    for k in 2..=46 {
        expected.push(expected[k - 1] + expected[k - 2]);
    }
    for n in [2usize, 3, 4, 5, 10, 20, 30, 46] {
        assert_eq!(fibonacci(&context, &graph, n), expected[n], "F_{n}");
    }
}

#[test]
fn tensor_destroy_rejects_pending_reads() {
    let gate = Gate::closed();
    let context = test_ctx(Mode::Gated, &gate);
    let graph = add_graph(&context, &[2]);
    let a = rw_tensor(&context, &[2], &[1.0, 2.0]);
    let out = rw_tensor(&context, &[2], &[0.0, 0.0]);
    context.dispatch(&graph, &[("a", &a), ("b", &a.clone())], &[("out", &out)]).unwrap_err();
    let b = rw_tensor(&context, &[2], &[3.0, 4.0]);
    context.dispatch(&graph, &[("a", &a), ("b", &b)], &[("out", &out)]).unwrap();
    // The timeline is blocked in the dispatch: both reads are pending.
    let r1 = context.read_tensor(&out);
    let r2 = context.read_tensor(&out);
    let other = context.read_tensor(&a);
    assert!(!r1.is_settled());
    out.destroy();
    assert!(r1.is_settled() && r2.is_settled(), "destroy() rejects pending reads at once");
    assert_err(r1.wait(), ErrorKind::InvalidState, "destroyed");
    assert_err(r2.wait(), ErrorKind::InvalidState, "destroyed");
    assert!(out.is_destroyed());
    // Later use of the destroyed tensor is a TypeError.
    assert_err(context.read_tensor(&out).wait(), ErrorKind::Type, "destroyed");
    assert_err(context.write_tensor(&out, &f32_bytes(&[0.0; 2])), ErrorKind::Type, "destroyed");
    out.destroy(); // idempotent
    gate.open();
    // Reads of other tensors are unaffected.
    assert_eq!(to_f32(&other.wait().unwrap()), vec![1.0, 2.0]);
}

#[test]
fn context_destroy_resolves_lost_and_destroys_graphs_and_tensors() {
    let gate = Gate::closed();
    let context = test_ctx(Mode::Gated, &gate);
    let lost_before = context.lost();
    assert!(!lost_before.is_settled());
    let graph = add_graph(&context, &[2]);
    let a = rw_tensor(&context, &[2], &[1.0, 2.0]);
    let b = rw_tensor(&context, &[2], &[3.0, 4.0]);
    let out = rw_tensor(&context, &[2], &[0.0; 2]);
    let constant = context.create_constant_tensor(&desc(DataType::Float32, &[2]), &f32_bytes(&[1.0, 1.0])).unwrap();
    let mut pending_builder = GraphBuilder::new(&context).unwrap();
    let x = pending_builder.input("x", &desc(DataType::Float32, &[2])).unwrap();
    let y = pending_builder.add(&x, &x, &NO).unwrap();
    context.dispatch(&graph, &[("a", &a), ("b", &b)], &[("out", &out)]).unwrap();
    let pending_read = context.read_tensor(&out);
    context.destroy();

    let info = lost_before.wait();
    assert!(info.message.contains("destroy()"), "{}", info.message);
    assert!(context.is_lost());
    assert_eq!(context.lost().wait(), info, "lost() after the loss settles at once");
    assert_err(pending_read.wait(), ErrorKind::InvalidState, "context was lost");
    assert!(graph.is_destroyed());
    for t in [&a, &b, &out, &constant] {
        assert!(t.is_destroyed());
    }
    assert_err(
        context.dispatch(&graph, &[("a", &a), ("b", &b)], &[("out", &out)]),
        ErrorKind::InvalidState,
        "graph is destroyed",
    );
    assert_err(context.read_tensor(&out).wait(), ErrorKind::Type, "destroyed");
    assert_err(context.write_tensor(&a, &f32_bytes(&[0.0; 2])), ErrorKind::Type, "destroyed");
    assert_err(context.create_tensor(&tdesc(DataType::Float32, &[2], true, true)), ErrorKind::InvalidState, "lost");
    assert_err(
        context.create_constant_tensor(&desc(DataType::Float32, &[2]), &f32_bytes(&[0.0; 2])),
        ErrorKind::InvalidState,
        "lost",
    );
    assert_err(GraphBuilder::new(&context), ErrorKind::InvalidState, "lost");
    assert_err(pending_builder.build(&[("y", &y)]), ErrorKind::InvalidState, "lost");
    assert_err(pending_builder.add(&x, &x, &NO), ErrorKind::InvalidState, "lost");
    // destroy() again changes nothing.
    context.destroy();
    assert_eq!(context.lost().wait(), info);
    gate.open();
}

#[test]
fn graph_destroy_after_dispatch_lets_queued_work_finish() {
    let gate = Gate::closed();
    let context = test_ctx(Mode::Gated, &gate);
    let QueuedAdd { graph, a, b, out } = queue_add(&context, &[1.0, 2.0, 3.0], &[1.0, 1.0, 1.0]);
    graph.destroy();
    graph.destroy();
    assert_err(
        context.dispatch(&graph, &[("a", &a), ("b", &b)], &[("out", &out)]),
        ErrorKind::InvalidState,
        "destroyed",
    );
    let read = context.read_tensor(&out);
    // Tensors used by queued work can be destroyed too: the work still sees their data.
    a.destroy();
    gate.open();
    assert_eq!(to_f32(&read.wait().unwrap()), vec![2.0, 3.0, 4.0]);
    // Other graphs of the context are unaffected.
    let graph2 = add_graph(&context, &[3]);
    let c = rw_tensor(&context, &[3], &[5.0; 3]);
    context.dispatch(&graph2, &[("a", &b), ("b", &c)], &[("out", &out)]).unwrap();
    assert_eq!(read_f32(&context, &out), vec![6.0; 3]);
}

#[test]
fn explicit_destruction_frees_for_new_graphs() {
    // destroyBuffers(inputs); graph1.destroy(); then build a new graph with large constants.
    let context = ctx();
    let graph1 = add_graph(&context, &[1024]);
    let inputs: Vec<Tensor> = (0..2).map(|_| rw_tensor(&context, &[1024], &[1.0; 1024])).collect();
    let out = rw_tensor(&context, &[1024], &[0.0; 1024]);
    context.dispatch(&graph1, &[("a", &inputs[0]), ("b", &inputs[1])], &[("out", &out)]).unwrap();
    graph1.destroy();
    inputs.iter().for_each(Tensor::destroy);
    let mut builder = GraphBuilder::new(&context).unwrap();
    let weights = builder.constant(&desc(DataType::Float32, &[1024]), &f32_bytes(&[3.0; 1024])).unwrap();
    let x = builder.input("x", &desc(DataType::Float32, &[1024])).unwrap();
    let y = builder.mul(&x, &weights, &NO).unwrap();
    let graph2 = builder.build(&[("y", &y)]).unwrap();
    let out2 = rw_tensor(&context, &[1024], &[0.0; 1024]);
    // The output tensor kept from graph1 is reused as the input of graph2.
    context.dispatch(&graph2, &[("x", &out)], &[("y", &out2)]).unwrap();
    assert_eq!(read_f32(&context, &out2), vec![6.0; 1024]);
}
