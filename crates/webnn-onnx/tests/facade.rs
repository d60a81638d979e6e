//! The importer through the public `webnn` façade: its `GraphBuilder` derefs to the core
//! builder, so `import` takes `&mut *builder`; the graph then runs with `Context::dispatch`.

mod build;

use build::*;
use webnn::{ml, Context, ContextOptions, DataType, GraphBuilder, TensorDescriptor};
use webnn_onnx::{import, ImportOptions, OnnxModel};

#[test]
fn import_and_dispatch_through_the_facade() -> Result<(), Box<dyn std::error::Error>> {
    // y = Relu(x @ w + b)
    let m = model(
        17,
        vec![
            node("MatMul", "mm", &["x", "w"], &["xw"], vec![]),
            node("Add", "add", &["xw", "b"], &["z"], vec![]),
            node("Relu", "relu", &["z"], &["y"], vec![]),
        ],
        vec![value_info("x", webnn_onnx::proto::data_type::FLOAT, &[Err("batch"), Ok(2)])],
        vec![f32_info("y", &[1, 2])],
        vec![f32_tensor("w", &[2, 2], &[1.0, -1.0, 2.0, -2.0]), f32_tensor("b", &[2], &[0.5, 0.5])],
    );
    let model = OnnxModel::from_bytes(&bytes(&m), None)?;
    let context: Context = ml().create_context(&ContextOptions::default())?;
    let mut builder = GraphBuilder::new(&context)?;
    let imported = import(&model, builder.core_mut(), &ImportOptions::default())?;
    assert_eq!(imported.inputs[0].descriptor.shape, vec![1, 2]);
    let graph = builder.build(&imported.named_outputs())?;

    let x = context.create_tensor(&TensorDescriptor::new(DataType::Float32, [1, 2]).writable(true))?;
    let y = context.create_tensor(&TensorDescriptor::new(DataType::Float32, [1, 2]).readable(true))?;
    context.write_tensor(&x, &[3.0f32, 1.0].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>())?;
    context.dispatch(&graph, &[("x", &x)], &[("y", &y)])?;
    let bytes = context.read_tensor(&y).wait()?;
    let out: Vec<f32> = bytes.chunks(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    // [3, 1] @ [[1, -1], [2, -2]] = [5, -5]; + 0.5 = [5.5, -4.5]; relu = [5.5, 0]
    assert_eq!(out, vec![5.5, 0.0]);
    Ok(())
}
