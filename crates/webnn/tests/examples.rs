//! The spec's dispatch example
//! ([spec](https://www.w3.org/TR/webnn/#api-mlcontext-dispatch-examples), `C = 0.2 * A + B`) in its
//! variants.

mod common;
use common::*;
use webnn::*;

fn build_example(context: &Context, scalar: bool) -> (Graph, Operand) {
    let d = desc(DataType::Float32, &[2, 2]);
    let mut builder = GraphBuilder::new(context).unwrap();
    let constant = if scalar {
        builder.constant_scalar(DataType::Float32, MLNumber::from(0.2)).unwrap()
    } else {
        builder.constant(&d, &f32_bytes(&[0.2; 4])).unwrap()
    };
    let a = builder.input("A", &d).unwrap();
    let b = builder.input("B", &d).unwrap();
    let m = builder.mul(&a, &constant, &NO).unwrap();
    let c = builder.add(&m, &b, &NO).unwrap();
    let graph = builder.build(&[("C", &c)]).unwrap();
    (graph, c)
}

fn run_example(scalar: bool) {
    let context = ctx();
    let (graph, c) = build_example(&context, scalar);
    let ta = context.create_tensor(&tdesc(DataType::Float32, &[2, 2], false, true)).unwrap();
    let tb = context.create_tensor(&tdesc(DataType::Float32, &[2, 2], false, true)).unwrap();
    let tc = context.create_tensor(&TensorDescriptor::new(c.data_type(), c.shape().to_vec()).readable(true)).unwrap();
    context.write_tensor(&ta, &f32_bytes(&[1.0; 4])).unwrap();
    context.write_tensor(&tb, &f32_bytes(&[0.8; 4])).unwrap();
    context.dispatch(&graph, &[("A", &ta), ("B", &tb)], &[("C", &tc)]).unwrap();
    let result = to_f32(&context.read_tensor(&tc).wait().unwrap());
    assert_eq!(result.len(), 4);
    for v in result {
        assert!((v - 1.0).abs() < 1e-6, "{v}");
    }
}

#[test]
fn readme_example_with_constant_buffer() {
    run_example(false);
}

#[test]
fn readme_example_with_constant_scalar() {
    run_example(true);
}

#[test]
fn readme_example_awaited_on_an_executor() {
    let context = ctx();
    let (graph, _) = build_example(&context, true);
    let ta = rw_tensor(&context, &[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let tb = rw_tensor(&context, &[2, 2], &[10.0, 20.0, 30.0, 40.0]);
    let tc = rw_tensor(&context, &[2, 2], &[0.0; 4]);
    context.dispatch(&graph, &[("A", &ta), ("B", &tb)], &[("C", &tc)]).unwrap();
    let bytes = block_on(context.read_tensor(&tc)).unwrap();
    let expected = [10.2f32, 20.4, 30.6, 40.8];
    for (v, e) in to_f32(&bytes).iter().zip(expected) {
        assert!((v - e).abs() < 1e-5, "{v} vs {e}");
    }
}

#[test]
fn readme_example_read_into_caller_buffer() {
    let context = ctx();
    let (graph, _) = build_example(&context, false);
    let ta = rw_tensor(&context, &[2, 2], &[5.0; 4]);
    let tb = rw_tensor(&context, &[2, 2], &[1.0; 4]);
    let tc = rw_tensor(&context, &[2, 2], &[0.0; 4]);
    context.dispatch(&graph, &[("A", &ta), ("B", &tb)], &[("C", &tc)]).unwrap();
    let mut out = vec![0u8; 16];
    context.read_tensor_into(&tc, &mut out).unwrap();
    assert_eq!(to_f32(&out), vec![2.0; 4]);
}

#[test]
fn graph_descriptors_and_context_attributes() {
    let context = ctx();
    let (graph, _) = build_example(&context, true);
    let d = desc(DataType::Float32, &[2, 2]);
    assert_eq!(graph.input_descriptors(), &[("A".to_string(), d.clone()), ("B".to_string(), d.clone())]);
    assert_eq!(graph.output_descriptors(), &[("C".to_string(), d)]);
    assert!(!context.accelerated());
    assert!(!context.is_lost());
    assert_eq!(context.op_support_limits().preferred_input_layout, InputOperandLayout::Nchw);
    let accelerated_asked = ml()
        .create_context(&ContextOptions {
            accelerated: true,
            power_preference: PowerPreference::HighPerformance,
            threads: Some(1),
            device: DeviceChoice::Auto,
        })
        .unwrap();
    // A GPU context exactly when a hardware GPU exists (and WEBNN_DEVICE does not pin one).
    let gpu_expected = match std::env::var("WEBNN_DEVICE").as_deref() {
        Ok("cpu") => false,
        Ok("gpu") => true,
        _ => webnn::webnn_gpu::find_adapter(webnn::webnn_gpu::AdapterChoice::Hardware, true).is_some(),
    };
    assert_eq!(accelerated_asked.accelerated(), gpu_expected);
    assert_eq!(accelerated_asked.power_preference(), PowerPreference::HighPerformance);
    assert_ne!(context, accelerated_asked);
    assert_eq!(context, context.clone());
}
