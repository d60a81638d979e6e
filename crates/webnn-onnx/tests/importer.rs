//! Importer behaviour on small hand-built models: error reporting, shapes, folding, external
//! data, outputs, and conversions.

mod build;
mod common;

use build::*;
use common::{builder, run_model, value};
use webnn_core::testing::Rng;
use webnn_core::{DataType, ErrorKind};
use webnn_onnx::proto::data_type as dt;
use webnn_onnx::{
    import, parse_shape_override, ElemType, ImportOptions, NodeErrorKind, OnnxError, OnnxModel, TensorData,
};

fn load(m: &webnn_onnx::proto::ModelProto) -> OnnxModel {
    OnnxModel::from_bytes(&bytes(m), None).expect("parse")
}

fn f32_data(name: &str, shape: &[usize], vals: &[f32]) -> TensorData {
    TensorData {
        elem_type: ElemType::F32,
        shape: shape.to_vec(),
        bytes: vals.iter().flat_map(|v| v.to_le_bytes()).collect(),
        name: name.into(),
    }
}

fn values(t: &TensorData) -> Vec<f64> {
    (0..t.element_count()).map(|i| value(t, i)).collect()
}

#[test]
fn every_unsupported_node_is_reported_at_once() {
    let m = model(
        17,
        vec![
            node("Relu", "r", &["x"], &["a"], vec![]),
            node("FancyOp", "fancy1", &["a"], &["b"], vec![]),
            node("Relu", "r2", &["b"], &["c"], vec![]),
            node("Softmax", "sm", &["a"], &["d"], vec![attr_i("axis", 1), attr_i("mystery", 3)]),
            node("TopK", "", &["a"], &["e"], vec![]),
            node("Add", "sum", &["c", "d"], &["y"], vec![]),
        ],
        vec![f32_info("x", &[1, 4])],
        vec![f32_info("y", &[1, 4])],
        vec![],
    );
    let err = import(&load(&m), &mut builder(), &ImportOptions::default()).unwrap_err();
    let OnnxError::Nodes(nodes) = &err else { panic!("{err}") };
    let names: Vec<(&str, &str)> = nodes.iter().map(|n| (n.op_type.as_str(), n.node.as_str())).collect();
    assert_eq!(names, vec![("FancyOp", "fancy1"), ("Softmax", "sm"), ("TopK", "#4")], "{err}");
    assert!(nodes.iter().all(|n| n.kind == NodeErrorKind::Unsupported));
    assert!(err.is_unsupported());
    let text = err.to_string();
    assert!(text.contains("mystery") && text.contains("FancyOp") && text.contains("TopK"), "{text}");
    let core: webnn_core::Error = err.into();
    assert_eq!(core.kind, ErrorKind::NotSupported);
}

#[test]
fn other_domains_and_opsets_are_unsupported() {
    let mut m = x_to_y(node("Relu", "r", &["x"], &["y"], vec![]), &[2], &[2], vec![]);
    m.graph.as_mut().unwrap().node[0].domain = Some("com.microsoft".into());
    let err = import(&load(&m), &mut builder(), &ImportOptions::default()).unwrap_err();
    assert!(err.is_unsupported() && err.to_string().contains("com.microsoft"), "{err}");
    let m = model(
        6,
        vec![node("Relu", "r", &["x"], &["y"], vec![])],
        vec![f32_info("x", &[2])],
        vec![f32_info("y", &[2])],
        vec![],
    );
    let err = import(&load(&m), &mut builder(), &ImportOptions::default()).unwrap_err();
    assert!(matches!(err, OnnxError::Unsupported(_)) && err.to_string().contains("opset 6"), "{err}");
}

#[test]
fn symbolic_dims_use_overrides_and_the_batch_default() {
    let m = model(
        17,
        vec![node("Relu", "r", &["x"], &["y"], vec![])],
        vec![value_info("x", dt::FLOAT, &[Err("N"), Err("seq"), Ok(8)])],
        vec![f32_info("y", &[1, 1, 8])],
        vec![],
    );
    let model = load(&m);
    // seq is unbound: error names it.
    let err = import(&model, &mut builder(), &ImportOptions::default()).unwrap_err();
    assert!(matches!(err, OnnxError::Invalid(_)) && err.to_string().contains("seq"), "{err}");
    let mut options = ImportOptions::default();
    let (k, v) = parse_shape_override("seq=16").unwrap();
    options.shape_overrides.insert(k, v);
    let g = import(&model, &mut builder(), &options).unwrap();
    assert_eq!(g.inputs[0].descriptor.shape, vec![1, 16, 8]);
    options.default_batch_size = 3;
    let g = import(&model, &mut builder(), &options).unwrap();
    assert_eq!(g.inputs[0].descriptor.shape, vec![3, 16, 8]);
    assert_eq!(g.outputs[0].operand.shape(), &[3, 16, 8]);
    let mut options = ImportOptions::default();
    options.shape_overrides.insert("x".into(), vec![2, 5, 8]);
    let g = import(&model, &mut builder(), &options).unwrap();
    assert_eq!(g.outputs[0].operand.shape(), &[2, 5, 8]);
    options.shape_overrides.insert("nothing".into(), vec![1]);
    assert!(import(&model, &mut builder(), &options).is_err());
}

#[test]
fn shape_subgraphs_fold_to_static_reshapes() {
    // y = Reshape(x, Concat(Gather(Shape(x), 0), [-1])) : [2, 3, 4] -> [2, 12]
    let m = model(
        13,
        vec![
            node("Shape", "shape", &["x"], &["s"], vec![]),
            node("Gather", "g", &["s", "zero"], &["n"], vec![attr_i("axis", 0)]),
            node("Unsqueeze", "u", &["n", "axes0"], &["n1"], vec![]),
            node("Concat", "c", &["n1", "minus1"], &["shape"], vec![attr_i("axis", 0)]),
            node("Reshape", "reshape", &["x", "shape"], &["r"], vec![]),
            node("Relu", "relu", &["r"], &["y"], vec![]),
        ],
        vec![f32_info("x", &[2, 3, 4])],
        vec![f32_info("y", &[2, 12])],
        vec![i64_tensor("zero", &[], &[0]), i64_tensor("axes0", &[1], &[0]), i64_tensor("minus1", &[1], &[-1])],
    );
    let mut b = builder();
    let g = import(&load(&m), &mut b, &ImportOptions::default()).unwrap();
    assert_eq!(g.outputs[0].operand.shape(), &[2, 12]);
    // Only reshape and relu reach the graph.
    assert_eq!(b.operation_count(), 2);
}

#[test]
fn runs_with_initializers_and_external_data() {
    let dir = std::env::temp_dir().join(format!("webnn-onnx-ext-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let w: Vec<f32> = vec![10.0, 20.0, 30.0];
    std::fs::write(dir.join("weights.bin"), [vec![0u8; 16], w.iter().flat_map(|v| v.to_le_bytes()).collect()].concat())
        .unwrap();
    let mut ext = f32_tensor("w", &[3], &[]);
    ext.raw_data = None;
    ext.data_location = Some(webnn_onnx::proto::DATA_LOCATION_EXTERNAL);
    let kv =
        |k: &str, v: &str| webnn_onnx::proto::StringStringEntryProto { key: Some(k.into()), value: Some(v.into()) };
    ext.external_data = vec![kv("location", "weights.bin"), kv("offset", "16"), kv("length", "12")];
    let m = x_to_y(node("Add", "add", &["x", "w"], &["y"], vec![]), &[2, 3], &[2, 3], vec![ext]);
    std::fs::write(dir.join("model.onnx"), bytes(&m)).unwrap();
    let model = OnnxModel::load(dir.join("model.onnx")).unwrap();
    let out = run_model(&model, &[f32_data("x", &[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])]).unwrap();
    assert_eq!(values(&out[0]), vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
    // Without a base directory, the external file cannot be found.
    let err = import(&OnnxModel::from_bytes(&bytes(&m), None).unwrap(), &mut builder(), &ImportOptions::default())
        .unwrap_err();
    assert!(err.to_string().contains("base directory"), "{err}");
    // A length that does not match the shape is malformed.
    let mut bad = m.clone();
    bad.graph.as_mut().unwrap().initializer[0].external_data[2] = kv("length", "8");
    std::fs::write(dir.join("bad.onnx"), bytes(&bad)).unwrap();
    let err =
        import(&OnnxModel::load(dir.join("bad.onnx")).unwrap(), &mut builder(), &ImportOptions::default()).unwrap_err();
    assert!(matches!(err, OnnxError::Malformed(_)), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn outputs_that_are_inputs_or_constants_become_op_results() {
    let m = model(
        17,
        vec![node("Identity", "id", &["x"], &["y"], vec![])],
        vec![f32_info("x", &[2])],
        vec![f32_info("y", &[2]), f32_info("c", &[2])],
        vec![f32_tensor("c", &[2], &[7.0, 8.0])],
    );
    let mut b = builder();
    let g = import(&load(&m), &mut b, &ImportOptions::default()).unwrap();
    assert!(b.build(&g.named_outputs()).is_ok());
    let out = run_model(&load(&m), &[f32_data("x", &[2], &[1.0, 2.0])]).unwrap();
    assert_eq!(values(&out[0]), vec![1.0, 2.0]);
    assert_eq!(values(&out[1]), vec![7.0, 8.0]);
}

#[test]
fn bool_values_are_uint8() {
    let m = typed_x_to_y(node("Not", "not", &["x"], &["y"], vec![]), dt::BOOL, &[Ok(3)]);
    let g = import(&load(&m), &mut builder(), &ImportOptions::default()).unwrap();
    assert_eq!(g.inputs[0].descriptor.data_type, DataType::Uint8);
    assert_eq!(g.inputs[0].elem_type, ElemType::Bool);
    assert_eq!(g.outputs[0].elem_type, ElemType::Bool);
    let x = TensorData { elem_type: ElemType::Bool, shape: vec![3], bytes: vec![1, 0, 1], name: "x".into() };
    let out = run_model(&load(&m), &[x]).unwrap();
    assert_eq!(out[0].bytes, vec![0, 1, 0]);
}

#[test]
fn unsupported_input_types_and_constant_inputs() {
    let m = typed_x_to_y(node("Relu", "r", &["x"], &["y"], vec![]), dt::DOUBLE, &[Ok(2)]);
    let err = import(&load(&m), &mut builder(), &ImportOptions::default()).unwrap_err();
    assert!(err.is_unsupported() && err.to_string().contains("DOUBLE"), "{err}");

    // A shape taken as a graph input must be bound.
    let m = model(
        17,
        vec![node("Reshape", "reshape", &["x", "shape"], &["y"], vec![])],
        vec![f32_info("x", &[2, 3]), value_info("shape", dt::INT64, &[Ok(1)])],
        vec![f32_info("y", &[6])],
        vec![],
    );
    let err = import(&load(&m), &mut builder(), &ImportOptions::default()).unwrap_err();
    assert!(err.to_string().contains("graph input(s) 'shape'"), "{err}");
    let mut options = ImportOptions::default();
    let shape = TensorData {
        elem_type: ElemType::I64,
        shape: vec![1],
        bytes: 6i64.to_le_bytes().to_vec(),
        name: "shape".into(),
    };
    options.constant_inputs.insert("shape".into(), shape);
    let g = import(&load(&m), &mut builder(), &options).unwrap();
    assert_eq!(g.inputs.len(), 1);
    assert_eq!(g.outputs[0].operand.shape(), &[6]);
}

#[test]
fn builder_failures_are_node_errors() {
    // MatMul of mismatched inner dimensions: the builder's TypeError names the node.
    let m = model(
        17,
        vec![node("MatMul", "mm", &["a", "b"], &["y"], vec![])],
        vec![f32_info("a", &[2, 3]), f32_info("b", &[4, 5])],
        vec![f32_info("y", &[2, 5])],
        vec![],
    );
    let err = import(&load(&m), &mut builder(), &ImportOptions::default()).unwrap_err();
    let OnnxError::Nodes(nodes) = &err else { panic!("{err}") };
    assert_eq!(nodes[0].kind, NodeErrorKind::Builder(ErrorKind::Type));
    assert!(nodes[0].message.contains("[mm]"), "{err}");
    assert!(!err.is_unsupported());
    assert_eq!(webnn_core::Error::from(err).kind, ErrorKind::Type);
}

#[test]
fn dangling_values_and_cycles_are_invalid() {
    let m = x_to_y(node("Relu", "r", &["nowhere"], &["y"], vec![]), &[2], &[2], vec![]);
    let err = import(&load(&m), &mut builder(), &ImportOptions::default()).unwrap_err();
    assert!(err.to_string().contains("nowhere"), "{err}");
    let m = model(
        17,
        vec![node("Relu", "r1", &["b"], &["a"], vec![]), node("Relu", "r2", &["a"], &["b"], vec![])],
        vec![f32_info("x", &[2])],
        vec![f32_info("a", &[2])],
        vec![],
    );
    let err = import(&load(&m), &mut builder(), &ImportOptions::default()).unwrap_err();
    assert!(err.to_string().contains("cycle"), "{err}");
}

#[test]
fn unsorted_nodes_are_ordered() {
    let m = model(
        17,
        vec![node("Relu", "second", &["a"], &["y"], vec![]), node("Neg", "first", &["x"], &["a"], vec![])],
        vec![f32_info("x", &[2])],
        vec![f32_info("y", &[2])],
        vec![],
    );
    let out = run_model(&load(&m), &[f32_data("x", &[2], &[-1.0, 2.0])]).unwrap();
    assert_eq!(values(&out[0]), vec![1.0, 0.0]);
}

#[test]
fn local_functions_are_inlined() {
    use webnn_onnx::proto::{AttributeProto, FunctionProto, OperatorSetIdProto};
    // f(a) = LeakyRelu(a, alpha = <alpha>)
    let mut body = node("LeakyRelu", "inner", &["a"], &["b"], vec![]);
    body.attribute.push(AttributeProto {
        name: Some("alpha".into()),
        ref_attr_name: Some("alpha".into()),
        r#type: Some(1),
        ..Default::default()
    });
    let f = FunctionProto {
        name: Some("MyAct".into()),
        domain: Some("local".into()),
        input: vec!["a".into()],
        output: vec!["b".into()],
        attribute: vec!["alpha".into()],
        node: vec![body],
        opset_import: vec![OperatorSetIdProto { domain: Some(String::new()), version: Some(17) }],
        ..Default::default()
    };
    let mut call = node("MyAct", "call", &["x"], &["y"], vec![attr_f("alpha", 0.5)]);
    call.domain = Some("local".into());
    let mut m = model(17, vec![call], vec![f32_info("x", &[2])], vec![f32_info("y", &[2])], vec![]);
    m.functions.push(f);
    let out = run_model(&load(&m), &[f32_data("x", &[2], &[-2.0, 3.0])]).unwrap();
    assert_eq!(values(&out[0]), vec![-1.0, 3.0]);
}

#[test]
fn conv_ceil_mode_pool_and_resize_map_to_webnn() {
    // Conv (auto_pad SAME_UPPER, stride 2) -> MaxPool ceil_mode -> Resize nearest x2 (asymmetric).
    let m = model(
        13,
        vec![
            node(
                "Conv",
                "conv",
                &["x", "w"],
                &["c"],
                vec![attr_s("auto_pad", "SAME_UPPER"), attr_ints("strides", &[2, 2])],
            ),
            node(
                "MaxPool",
                "pool",
                &["c"],
                &["p"],
                vec![attr_ints("kernel_shape", &[2, 2]), attr_ints("strides", &[2, 2]), attr_i("ceil_mode", 1)],
            ),
            node(
                "Resize",
                "resize",
                &["p", "", "scales"],
                &["y"],
                vec![attr_s("coordinate_transformation_mode", "asymmetric"), attr_s("nearest_mode", "floor")],
            ),
        ],
        vec![f32_info("x", &[1, 1, 5, 5])],
        vec![f32_info("y", &[1, 1, 4, 4])],
        vec![f32_tensor("w", &[1, 1, 3, 3], &[1.0; 9]), f32_tensor("scales", &[4], &[1.0, 1.0, 2.0, 2.0])],
    );
    let mut b = builder();
    let g = import(&load(&m), &mut b, &ImportOptions::default()).unwrap();
    // conv 5x5 -> 3x3, pool ceil((3-2)/2)+1 = 2x2, resize -> 4x4
    assert_eq!(g.outputs[0].operand.shape(), &[1, 1, 4, 4]);
    let x: Vec<f32> = (0..25).map(|v| v as f32).collect();
    let out = run_model(&load(&m), &[f32_data("x", &[1, 1, 5, 5], &x)]).unwrap();
    assert_eq!(out[0].shape, vec![1, 1, 4, 4]);
    // Top-left conv output (SAME_UPPER pads 1 at begin): sum of x[0..2, 0..2] = 0+1+5+6 = 12;
    // the pool's first window holds conv outputs at (0,0),(0,1),(1,0),(1,1): max is at (1,1).
    let conv11: f32 = [6, 7, 8, 11, 12, 13, 16, 17, 18].iter().map(|&v| v as f32).sum();
    assert_eq!(value(&out[0], 0), conv11 as f64);
    assert_eq!(value(&out[0], 1), conv11 as f64);
}

#[test]
fn legacy_opset_forms() {
    // Opset 9: Softmax coerces to 2-D from `axis`, Slice/Pad/Clip/Split take attributes.
    let m = model(
        9,
        vec![
            node("Softmax", "sm", &["x"], &["s"], vec![attr_i("axis", 1)]),
            node(
                "Slice",
                "sl",
                &["x"],
                &["c"],
                vec![attr_ints("starts", &[0, -2]), attr_ints("ends", &[1, 100]), attr_ints("axes", &[0, 2])],
            ),
            node("Pad", "pad", &["c"], &["p"], vec![attr_ints("pads", &[0, 0, 1, 0, 0, 0]), attr_f("value", 9.0)]),
            node("Clip", "clip", &["p"], &["q"], vec![attr_f("min", 0.0), attr_f("max", 8.5)]),
            node("Split", "split", &["x"], &["a", "b"], vec![attr_i("axis", 2), attr_ints("split", &[1, 3])]),
        ],
        vec![f32_info("x", &[2, 3, 4])],
        vec![f32_info("s", &[2, 3, 4]), f32_info("q", &[1, 3, 3]), f32_info("b", &[2, 3, 3])],
        vec![],
    );
    let x: Vec<f32> = (0..24).map(|v| v as f32 * 0.1).collect();
    let out = run_model(&load(&m), &[f32_data("x", &[2, 3, 4], &x)]).unwrap();
    // Softmax over the 12 trailing elements of each batch row.
    let s = values(&out[0]);
    for b in 0..2 {
        let sum: f64 = s[b * 12..(b + 1) * 12].iter().sum();
        assert!((sum - 1.0).abs() < 1e-5, "{sum}");
    }
    assert!(s[11] > s[3], "one softmax across the 3x4 block");
    // Slice x[0:1, :, 2:4] -> [1,3,2]; pad one 9 before axis 2 -> [1,3,3]; clip to [0, 8.5].
    assert_eq!(out[1].shape, vec![1, 3, 3]);
    let q = values(&out[1]);
    assert_eq!(q[0], 8.5);
    assert!((q[1] - 0.2).abs() < 1e-6 && (q[2] - 0.3).abs() < 1e-6, "{q:?}");
    assert_eq!(out[2].shape, vec![2, 3, 3]);
    assert!((values(&out[2])[0] - 0.1).abs() < 1e-6);
}

#[test]
fn conv3d_matches_a_direct_convolution() {
    // x [1, 4, 5, 4, 3], w [4, 2, 2, 3, 2] (groups 2), pads (1,1,0 | 0,1,1), strides (2,1,1),
    // dilations (2,1,1).
    let (xs, ws) = ([1usize, 4, 5, 4, 3], [4usize, 2, 2, 3, 2]);
    let (pads, strides, dil) = ([1usize, 1, 0, 0, 1, 1], [2usize, 1, 1], [2usize, 1, 1]);
    let x = Rng::new(1).vec_f32(xs.iter().product(), -1.0, 1.0);
    let w = Rng::new(2).vec_f32(ws.iter().product(), -1.0, 1.0);
    let b = Rng::new(3).vec_f32(4, -1.0, 1.0);
    let out_dim = |i: usize| (xs[2 + i] + pads[i] + pads[i + 3] - ((ws[2 + i] - 1) * dil[i] + 1)) / strides[i] + 1;
    let os = [out_dim(0), out_dim(1), out_dim(2)];
    let mut expected = vec![0f32; 4 * os[0] * os[1] * os[2]];
    for m in 0..4 {
        let g = m / 2;
        for (od, oh, ow) in (0..os[0]).flat_map(|a| (0..os[1]).flat_map(move |b| (0..os[2]).map(move |c| (a, b, c)))) {
            let mut acc = b[m];
            for ci in 0..2 {
                for kd in 0..ws[2] {
                    for kh in 0..ws[3] {
                        for kw in 0..ws[4] {
                            let id = (od * strides[0] + kd * dil[0]) as isize - pads[0] as isize;
                            let ih = (oh * strides[1] + kh * dil[1]) as isize - pads[1] as isize;
                            let iw = (ow * strides[2] + kw * dil[2]) as isize - pads[2] as isize;
                            if id < 0 || ih < 0 || iw < 0 || id >= 5 || ih >= 4 || iw >= 3 {
                                continue;
                            }
                            let c_in = g * 2 + ci;
                            let xv = x[((c_in * 5 + id as usize) * 4 + ih as usize) * 3 + iw as usize];
                            let wv = w[(((m * 2 + ci) * 2 + kd) * 3 + kh) * 2 + kw];
                            acc += xv * wv;
                        }
                    }
                }
            }
            expected[((m * os[0] + od) * os[1] + oh) * os[2] + ow] = acc;
        }
    }
    let m = model(
        17,
        vec![node(
            "Conv",
            "conv3d",
            &["x", "w", "b"],
            &["y"],
            vec![
                attr_ints("pads", &pads.map(|v| v as i64)),
                attr_ints("strides", &strides.map(|v| v as i64)),
                attr_ints("dilations", &dil.map(|v| v as i64)),
                attr_i("group", 2),
            ],
        )],
        vec![f32_info("x", &xs.map(|v| v as i64))],
        vec![f32_info("y", &[1, 4, os[0] as i64, os[1] as i64, os[2] as i64])],
        vec![f32_tensor("w", &ws.map(|v| v as i64), &w), f32_tensor("b", &[4], &b)],
    );
    let out = run_model(&load(&m), &[f32_data("x", &xs, &x)]).unwrap();
    assert_eq!(out[0].shape, vec![1, 4, os[0], os[1], os[2]]);
    for (i, (g, e)) in values(&out[0]).iter().zip(&expected).enumerate() {
        assert!((g - *e as f64).abs() < 1e-4, "element {i}: {g} vs {e}");
    }
}

/// ONNX's dynamic quantization of a matmul (`quantize_dynamic`'s form) imports as the chain
/// the CPU's compile pass runs on integers, and computes what ONNX defines: the input
/// quantized with the scale and zero point of its own range, the integer products summed
/// exactly, cast to float, scaled, plus the bias.
#[test]
fn dynamic_quantized_matmuls_run_on_integers_with_the_onnx_results() {
    let (rows, k, n) = (4usize, 16usize, 6usize);
    let mut rng = Rng::new(29);
    let x: Vec<f32> = (0..rows * k).map(|_| rng.uniform(-1.5, 2.5) as f32).collect();
    let w: Vec<i8> = (0..k * n).map(|_| rng.uniform(-127.0, 127.0) as i8).collect();
    let bias: Vec<f32> = (0..n).map(|_| rng.uniform(-1.0, 1.0) as f32).collect();
    let w_scale = 0.0137f32;
    let int8 = |name: &str, dims: &[i64], v: &[i8]| webnn_onnx::proto::TensorProto {
        name: Some(name.into()),
        dims: dims.to_vec(),
        data_type: Some(dt::INT8),
        raw_data: Some(v.iter().map(|&b| b as u8).collect()),
        ..Default::default()
    };
    let m = model(
        17,
        vec![
            node("DynamicQuantizeLinear", "dq", &["x"], &["xq", "xs", "xz"], vec![]),
            node("Mul", "scales", &["xs", "ws"], &["s"], vec![]),
            node("MatMulInteger", "mm", &["xq", "w", "xz", "wz"], &["acc"], vec![]),
            node("Cast", "cast", &["acc"], &["accf"], vec![attr_i("to", dt::FLOAT as i64)]),
            node("Mul", "scale", &["accf", "s"], &["p"], vec![]),
            node("Add", "bias", &["b", "p"], &["y"], vec![]),
        ],
        vec![f32_info("x", &[rows as i64, k as i64])],
        vec![f32_info("y", &[rows as i64, n as i64])],
        vec![
            int8("w", &[k as i64, n as i64], &w),
            int8("wz", &[], &[0]),
            f32_tensor("ws", &[], &[w_scale]),
            f32_tensor("b", &[n as i64], &bias),
        ],
    );
    let model = load(&m);
    let mut b = builder();
    let imported = import(&model, &mut b, &ImportOptions::default()).expect("import");
    let graph = b.build(&imported.named_outputs()).expect("build");
    let names: Vec<String> =
        webnn_cpu::compile::Program::compile(&graph).1.nodes.iter().map(|n| n.name.clone()).collect();
    let integer = webnn_cpu::kernels::int8_gemm::has_simd_kernel();
    assert_eq!(names.iter().any(|n| n == "matmul(int8)+mul+add"), integer, "{names:?}");
    let got = values(&run_model(&model, &[f32_data("x", &[rows, k], &x)]).expect("run")[0]);
    // ONNX's DynamicQuantizeLinear, in float32.
    let (lo, hi) = x.iter().fold((0f32, 0f32), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let scale = (hi - lo) / 255.0;
    let zero = (-lo / scale).round_ties_even().clamp(0.0, 255.0);
    let xq: Vec<i64> = x.iter().map(|&v| ((v / scale).round_ties_even() + zero).clamp(0.0, 255.0) as i64).collect();
    for r in 0..rows {
        for j in 0..n {
            let acc: i64 = (0..k).map(|p| (xq[r * k + p] - zero as i64) * w[p * n + j] as i64).sum();
            let want = bias[j] + acc as f32 * (scale * w_scale);
            assert_eq!(got[r * n + j] as f32, want, "row {r} column {j}");
        }
    }
}
