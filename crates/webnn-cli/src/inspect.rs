//! `webnn inspect`: what a model is made of. For ONNX files: producer, opsets, inputs and
//! outputs, operators used (read from the protobuf messages of `webnn_onnx::proto`, without
//! importing) and whether the importer maps them; for every model that imports: the WebNN
//! operations, parameter count and a GFLOP estimate of one run (from the validated graph; no
//! backend needed).

use crate::loaded::LoadedModel;
use crate::model::{self, ModelSource};
use crate::onnx_import::NodeFailures;
use crate::stats::{graph_stats, GraphStats};
use anyhow::{anyhow, Context as _, Result};
use serde_json::json;
use std::collections::{BTreeMap, HashSet};
use webnn::{ContextOptions, DeviceChoice, GraphBuilder};
use webnn_core::Graph;
use webnn_onnx::proto::{data_type, tensor_shape_proto::dimension, type_proto, GraphProto, ModelProto, ValueInfoProto};

/// What inspect shows of an ONNX model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OnnxSummary {
    /// `ir_version`
    pub ir_version: i64,
    /// `producer_name` and `producer_version`
    pub producer: String,
    /// `opset_import`: (domain, version); the default domain is "".
    pub opsets: Vec<(String, i64)>,
    /// Node count per (domain, op_type), subgraphs included.
    pub ops: BTreeMap<(String, String), usize>,
    /// Graph inputs that are not initializers: name, element type, dimensions (a number or a
    /// symbolic name).
    pub inputs: Vec<ValueInfo>,
    /// Graph outputs.
    pub outputs: Vec<ValueInfo>,
    /// Number of initializers of the main graph.
    pub initializers: usize,
    /// Elements in the initializers of the main graph.
    pub parameters: u64,
}

/// A graph input or output.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ValueInfo {
    /// Name.
    pub name: String,
    /// ONNX element type name in lower case (`float`, `int64`, ...), `?` if not a tensor.
    pub elem_type: String,
    /// Dimensions: numbers, symbolic names, or `?`.
    pub dims: Vec<String>,
}

/// Summarizes a serialized `ModelProto`.
pub fn summarize(bytes: &[u8]) -> Result<OnnxSummary> {
    let model = ModelProto::from_bytes(bytes)?;
    let graph = model.graph.as_ref().ok_or_else(|| anyhow!("not an ONNX model: no graph"))?;
    let producer =
        format!("{} {}", model.producer_name.as_deref().unwrap_or(""), model.producer_version.as_deref().unwrap_or(""));
    let mut ops = BTreeMap::new();
    count_ops(graph, &mut ops);
    let initializers: HashSet<&str> = graph.initializer.iter().map(|t| t.name.as_deref().unwrap_or("")).collect();
    Ok(OnnxSummary {
        ir_version: model.ir_version.unwrap_or(0),
        producer: producer.trim().to_string(),
        opsets: model
            .opset_import
            .iter()
            .map(|o| (o.domain.clone().unwrap_or_default(), o.version.unwrap_or(0)))
            .collect(),
        ops,
        inputs: graph
            .input
            .iter()
            .filter(|v| !initializers.contains(v.name.as_deref().unwrap_or("")))
            .map(value_info)
            .collect(),
        outputs: graph.output.iter().map(value_info).collect(),
        initializers: graph.initializer.len(),
        parameters: graph
            .initializer
            .iter()
            .map(|t| t.dims.iter().fold(1u64, |n, &d| n.saturating_mul(d as u64)))
            .fold(0, u64::saturating_add),
    })
}

/// Counts the nodes of `graph` and of its subgraphs (attributes `g` and `graphs`; their depth
/// is bounded by the protobuf decoder's recursion limit) per (domain, op_type).
fn count_ops(graph: &GraphProto, ops: &mut BTreeMap<(String, String), usize>) {
    for node in &graph.node {
        let domain = match node.domain.as_deref().unwrap_or("") {
            "ai.onnx" => "",
            d => d,
        };
        *ops.entry((domain.to_string(), node.op_type.clone().unwrap_or_default())).or_default() += 1;
        for attribute in &node.attribute {
            for subgraph in attribute.g.iter().chain(&attribute.graphs) {
                count_ops(subgraph, ops);
            }
        }
    }
}

/// A `ValueInfoProto`'s name, tensor element type and dimensions.
fn value_info(v: &ValueInfoProto) -> ValueInfo {
    let mut info = ValueInfo { name: v.name.clone().unwrap_or_default(), elem_type: "?".into(), dims: Vec::new() };
    if let Some(type_proto::Value::TensorType(t)) = v.r#type.as_ref().and_then(|t| t.value.as_ref()) {
        if let Some(code) = t.elem_type {
            info.elem_type = data_type::name(code).to_ascii_lowercase();
        }
        info.dims = t
            .shape
            .iter()
            .flat_map(|s| &s.dim)
            .map(|d| match &d.value {
                Some(dimension::Value::DimValue(v)) => v.to_string(),
                Some(dimension::Value::DimParam(p)) => p.clone(),
                None => "?".to_string(),
            })
            .collect();
    }
    info
}

/// Everything inspect found.
#[derive(Debug)]
pub struct Inspection {
    /// Model name.
    pub model: String,
    /// The ONNX file's contents, for ONNX models.
    pub onnx: Option<OnnxSummary>,
    /// The imported graph's statistics, or why it could not be imported.
    pub graph: std::result::Result<(Graph, GraphStats), String>,
    /// The nodes the importer could not take, when that is why the import failed.
    pub failures: Option<NodeFailures>,
}

/// Builds the model for a CPU context and returns the validated graph, not compiled.
fn build_graph(source: &ModelSource, shapes: &[String]) -> Result<Graph> {
    let context = webnn::ml().create_context(&ContextOptions { device: DeviceChoice::Cpu, ..Default::default() })?;
    let mut builder = GraphBuilder::new(&context)?;
    let LoadedModel { outputs, .. } = model::load(source, &mut builder, shapes)?;
    let outputs: Vec<(&str, &webnn::Operand)> = outputs.iter().map(|(n, o)| (n.as_str(), o)).collect();
    Ok(builder.start_build(&outputs)?.into_graph())
}

/// Inspects a model.
pub fn examine(source: &ModelSource, shapes: &[String]) -> Result<Inspection> {
    let onnx = match source {
        ModelSource::Onnx(path) => {
            let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            Some(summarize(&bytes).with_context(|| format!("{} is not an ONNX model", path.display()))?)
        }
        ModelSource::Builtin(_) => None,
    };
    let mut failures = None;
    let graph = match build_graph(source, shapes) {
        Ok(g) => {
            let s = graph_stats(&g);
            Ok((g, s))
        }
        // A built-in that does not build is a plain error; an ONNX model is still described.
        Err(e) if onnx.is_some() => {
            failures = e.downcast_ref::<NodeFailures>().cloned();
            Err(format!("{e:#}"))
        }
        Err(e) => return Err(e),
    };
    Ok(Inspection { model: source.display_name(), onnx, graph, failures })
}

/// Whether operator `op_type` of `domain` maps to WebNN: "yes" if the import succeeded or
/// failed on other nodes only, "no" if a node of it is unsupported, "failed" if a node of it
/// has a mapping that failed (e.g. a builder error), "?" if the import failed for another
/// reason (or this binary has no importer).
fn maps(inspection: &Inspection, domain: &str, op_type: &str) -> &'static str {
    match (&inspection.graph, &inspection.failures) {
        (Ok(_), _) => "yes",
        (Err(_), Some(f)) => {
            let qualified = format!("{domain}.{op_type}");
            let matching: Vec<bool> = f
                .nodes
                .iter()
                .filter(|(op, _)| *op == op_type && domain.is_empty() || *op == qualified)
                .map(|(_, unsupported)| *unsupported)
                .collect();
            match (matching.is_empty(), matching.iter().any(|u| *u)) {
                (true, _) => "yes",
                (false, true) => "no",
                (false, false) => "failed",
            }
        }
        (Err(_), None) => "?",
    }
}

/// The inspection as JSON.
pub fn to_json(i: &Inspection) -> serde_json::Value {
    let onnx = i.onnx.as_ref().map(|s| {
        json!({
            "ir_version": s.ir_version,
            "producer": s.producer,
            "opsets": s.opsets.iter().map(|(d, v)| json!({"domain": d, "version": v})).collect::<Vec<_>>(),
            "inputs": s.inputs.iter().map(|v| json!({"name": v.name, "type": v.elem_type, "shape": v.dims})).collect::<Vec<_>>(),
            "outputs": s.outputs.iter().map(|v| json!({"name": v.name, "type": v.elem_type, "shape": v.dims})).collect::<Vec<_>>(),
            "operators": s.ops.iter().map(|((d, o), n)| json!({"domain": d, "op_type": o, "count": n, "maps": maps(i, d, o)})).collect::<Vec<_>>(),
            "initializers": s.initializers,
            "parameters": s.parameters,
        })
    });
    let webnn = match &i.graph {
        Ok((g, s)) => json!({
            "imported": true,
            "inputs": g.inputs.iter().map(|(n, id)| json!({"name": n, "descriptor": g.descriptor(*id).to_string()})).collect::<Vec<_>>(),
            "outputs": g.outputs.iter().map(|(n, id)| json!({"name": n, "descriptor": g.descriptor(*id).to_string()})).collect::<Vec<_>>(),
            "operations": s.ops,
            "parameters": s.parameters,
            "constant_bytes": s.constant_bytes,
            "macs": s.macs,
            "gflop": (s.gflop() * 1e4).round() / 1e4,
        }),
        Err(e) => json!({"imported": false, "error": e}),
    };
    json!({"model": i.model, "onnx": onnx, "webnn": webnn})
}

/// The inspection as text.
pub fn to_text(i: &Inspection) -> String {
    let mut out = format!("model: {}\n", i.model);
    if let Some(s) = &i.onnx {
        out += &format!("ONNX: ir_version {}, producer '{}', opsets", s.ir_version, s.producer);
        for (d, v) in &s.opsets {
            out += &format!(" {}:{v}", if d.is_empty() { "ai.onnx" } else { d });
        }
        out += "\n";
        for (what, list) in [("input", &s.inputs), ("output", &s.outputs)] {
            for v in list {
                out += &format!("  {what:<6} {} {} [{}]\n", v.name, v.elem_type, v.dims.join(", "));
            }
        }
        out += &format!("  parameters: {} in {} initializers\n", s.parameters, s.initializers);
        out += "  operators (count, maps to WebNN):\n";
        for ((d, o), n) in &s.ops {
            let name = if d.is_empty() { o.clone() } else { format!("{d}.{o}") };
            out += &format!("    {name:<32} {n:>5}  {}\n", maps(i, d, o));
        }
    }
    match &i.graph {
        Ok((g, s)) => {
            out += "WebNN graph:\n";
            for (n, id) in &g.inputs {
                out += &format!("  input  {n} {}\n", g.descriptor(*id));
            }
            for (n, id) in &g.outputs {
                out += &format!("  output {n} {}\n", g.descriptor(*id));
            }
            out += &format!(
                "  {} operations, {} parameters ({:.1} MiB of constants)\n",
                g.operations.len(),
                s.parameters,
                s.constant_bytes as f64 / (1024.0 * 1024.0)
            );
            out += &format!(
                "  estimated work: {:.3} GFLOP ({:.3} G multiply-accumulates)\n",
                s.gflop(),
                s.macs as f64 / 1e9
            );
            for (op, n) in &s.ops {
                out += &format!("    {op:<24} {n:>5}\n");
            }
        }
        Err(e) => out += &format!("WebNN graph: not imported: {e}\n"),
    }
    out
}

/// `webnn inspect` (`plan`: also the CPU backend's steps after the compile passes).
pub fn inspect(source: &ModelSource, shapes: &[String], json: bool, plan: bool) -> Result<()> {
    let i = examine(source, shapes)?;
    if json {
        crate::output(&format!("{}\n", to_json(&i)))?;
    } else {
        let mut text = to_text(&i);
        if let (true, Ok((g, _))) = (plan, &i.graph) {
            let (g, program) = webnn_cpu::compile::Program::compile(g);
            text += &program.dump(&g);
        }
        crate::output(&text)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_shows_fused_steps() {
        let g = build_graph(&ModelSource::Builtin("resnet50".into()), &[]).unwrap();
        let (g, program) = webnn_cpu::compile::Program::compile(&g);
        let dump = program.dump(&g);
        assert!(dump.starts_with("plan: "), "{dump}");
        assert!(dump.contains("conv2d+add+relu"), "{dump}");
    }

    #[test]
    fn inspects_builtins() {
        let i = examine(&ModelSource::Builtin("resnet50".into()), &[]).unwrap();
        let j = to_json(&i);
        assert_eq!(j["webnn"]["imported"], true);
        assert_eq!(j["webnn"]["operations"]["conv2d"], 53);
        assert!(j["webnn"]["gflop"].as_f64().unwrap() > 8.0);
        assert!(j["onnx"].is_null());
        let t = to_text(&i);
        assert!(t.contains("output logits float32 [1, 1000]") || t.contains("output logits"), "{t}");
        assert!(t.contains("GFLOP"));
        assert!(examine(&ModelSource::Builtin("nope".into()), &[]).is_err());
    }

    /// A model with subgraphs (`g` and `graphs`), initializers also listed as inputs, symbolic
    /// and unknown dimensions, a non-tensor input and two opsets, as protobuf bytes.
    fn model_bytes() -> Vec<u8> {
        use prost::Message as _;
        use webnn_onnx::proto::*;
        let node = |op: &str, domain: &str, attribute: Vec<AttributeProto>| NodeProto {
            input: vec!["x".into()],
            op_type: Some(op.into()),
            domain: (!domain.is_empty()).then(|| domain.into()),
            attribute,
            ..Default::default()
        };
        let graph = |nodes: Vec<NodeProto>| GraphProto { node: nodes, ..Default::default() };
        let dim = |d: Option<Result<i64, &str>>| tensor_shape_proto::Dimension {
            value: d.map(|d| match d {
                Ok(v) => dimension::Value::DimValue(v),
                Err(p) => dimension::Value::DimParam(p.into()),
            }),
            denotation: None,
        };
        let tensor_type = |elem: i32, dims: Vec<tensor_shape_proto::Dimension>| TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(elem),
                shape: Some(TensorShapeProto { dim: dims }),
            })),
            denotation: None,
        };
        let value = |name: &str, r#type: TypeProto| ValueInfoProto { name: Some(name.into()), r#type: Some(r#type) };
        let then_branch = AttributeProto {
            name: Some("then_branch".into()),
            r#type: Some(attribute_type::GRAPH),
            g: Some(graph(vec![node("Relu", "", vec![])])),
            ..Default::default()
        };
        let bodies = AttributeProto {
            name: Some("bodies".into()),
            r#type: Some(attribute_type::GRAPHS),
            graphs: vec![graph(vec![node("Relu", "", vec![])]), graph(vec![node("Tanh", "ai.onnx", vec![])])],
            ..Default::default()
        };
        let sequence = TypeProto {
            value: Some(type_proto::Value::SequenceType(Box::new(type_proto::Sequence { elem_type: None }))),
            denotation: None,
        };
        let main = GraphProto {
            node: vec![
                node("Conv", "", vec![]),
                node("Conv", "ai.onnx", vec![]),
                node("If", "", vec![then_branch]),
                node("Custom", "", vec![bodies]),
                node("FusedMatMul", "com.microsoft", vec![]),
            ],
            initializer: vec![
                TensorProto { name: Some("W".into()), dims: vec![8, 3, 3, 3], ..Default::default() },
                TensorProto { name: Some("B".into()), dims: vec![8], ..Default::default() },
            ],
            input: vec![
                value(
                    "input",
                    tensor_type(data_type::FLOAT, vec![dim(Some(Err("batch"))), dim(Some(Ok(3))), dim(None)]),
                ),
                value("W", tensor_type(data_type::FLOAT, vec![dim(Some(Ok(8))), dim(Some(Ok(3)))])),
                value("seq", sequence),
            ],
            output: vec![value("out", tensor_type(data_type::INT64, vec![dim(Some(Ok(1)))]))],
            ..Default::default()
        };
        ModelProto {
            ir_version: Some(8),
            producer_name: Some("pytorch".into()),
            producer_version: Some("2.5".into()),
            opset_import: vec![
                OperatorSetIdProto { domain: None, version: Some(17) },
                OperatorSetIdProto { domain: Some("com.microsoft".into()), version: Some(1) },
            ],
            graph: Some(main),
            ..Default::default()
        }
        .encode_to_vec()
    }

    #[test]
    fn summarizes_onnx_models() {
        let s = summarize(&model_bytes()).unwrap();
        assert_eq!(s.ir_version, 8);
        assert_eq!(s.producer, "pytorch 2.5");
        assert_eq!(s.opsets, vec![("".to_string(), 17), ("com.microsoft".to_string(), 1)]);
        let ops: Vec<_> = s.ops.iter().map(|((d, o), n)| (d.as_str(), o.as_str(), *n)).collect();
        assert_eq!(
            ops,
            vec![
                ("", "Conv", 2),
                ("", "Custom", 1),
                ("", "If", 1),
                ("", "Relu", 2),
                ("", "Tanh", 1),
                ("com.microsoft", "FusedMatMul", 1)
            ]
        );
        assert_eq!((s.initializers, s.parameters), (2, 8 * 27 + 8));
        let inputs: Vec<_> =
            s.inputs.iter().map(|v| (v.name.as_str(), v.elem_type.as_str(), v.dims.join(","))).collect();
        assert_eq!(inputs, vec![("input", "float", "batch,3,?".to_string()), ("seq", "?", String::new())]);
        let out = ValueInfo { name: "out".into(), elem_type: "int64".into(), dims: vec!["1".into()] };
        assert_eq!(s.outputs, vec![out]);
        let i = Inspection { model: "m.onnx".into(), onnx: Some(s), graph: Err("not imported".into()), failures: None };
        let t = to_text(&i);
        assert!(t.contains("ONNX: ir_version 8, producer 'pytorch 2.5', opsets ai.onnx:17 com.microsoft:1"), "{t}");
        assert!(t.contains("  input  input float [batch, 3, ?]\n") && t.contains("  output out int64 [1]\n"), "{t}");
        assert!(t.contains("parameters: 224 in 2 initializers"), "{t}");
        assert!(t.contains("com.microsoft.FusedMatMul"), "{t}");
        let j = to_json(&i);
        assert_eq!(j["onnx"]["inputs"][0]["shape"], json!(["batch", "3", "?"]));
        assert_eq!(j["onnx"]["operators"][0], json!({"domain": "", "op_type": "Conv", "count": 2, "maps": "?"}));
    }

    #[test]
    fn malformed_onnx_is_an_error() {
        let m = model_bytes();
        // Every truncation either parses (cut at a field boundary of the outer message, which
        // then lacks the graph or parts of it) or fails; none panics.
        for cut in 0..m.len() {
            let _ = summarize(&m[..cut]);
        }
        assert!(summarize(&[]).unwrap_err().to_string().contains("no graph"));
        // Field 7 (graph), 5 bytes long, with 1 byte present.
        assert!(summarize(&[0x3a, 0x05, 1]).unwrap_err().to_string().contains("not an ONNX ModelProto"));
        assert!(summarize(&[0x0b]).is_err());
        assert!(summarize(&[0xff; 12]).is_err());
        assert!(summarize(b"not a protobuf at all").is_err());
        // Subgraphs nested past the decoder's recursion limit: an error, not a stack overflow.
        use prost::Message as _;
        use webnn_onnx::proto::{AttributeProto, GraphProto, ModelProto, NodeProto};
        let mut g = GraphProto::default();
        for _ in 0..200 {
            let attribute = AttributeProto { g: Some(g), ..Default::default() };
            let node = NodeProto { attribute: vec![attribute], ..Default::default() };
            g = GraphProto { node: vec![node], ..Default::default() };
        }
        let deep = ModelProto { graph: Some(g), ..Default::default() }.encode_to_vec();
        assert!(summarize(&deep).is_err());
    }

    #[test]
    fn onnx_files_that_are_not_models_are_errors() {
        let dir = std::env::temp_dir().join(format!("webnn-inspect-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.onnx");
        std::fs::write(&path, b"not a protobuf at all").unwrap();
        let e = format!("{:#}", examine(&ModelSource::Onnx(path), &[]).unwrap_err());
        assert!(e.contains("not an ONNX model"), "{e}");
        assert!(examine(&ModelSource::Onnx(dir.join("missing.onnx")), &[]).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn operators_map_unless_a_node_of_theirs_failed() {
        let mut i = Inspection { model: "m".into(), onnx: None, graph: Err("import failed".into()), failures: None };
        assert_eq!(maps(&i, "", "Conv"), "?");
        i.failures = Some(NodeFailures {
            nodes: vec![
                ("NonMaxSuppression".into(), true),
                ("Reshape".into(), false),
                ("com.microsoft.FusedConv".into(), true),
            ],
            message: String::new(),
        });
        assert_eq!(maps(&i, "", "Conv"), "yes");
        assert_eq!(maps(&i, "", "NonMaxSuppression"), "no");
        assert_eq!(maps(&i, "", "Reshape"), "failed");
        assert_eq!(maps(&i, "com.microsoft", "FusedConv"), "no");
        assert_eq!(maps(&i, "com.microsoft", "Reshape"), "yes");
        let (g, s) = {
            let (_, g) = crate::testing::build_graph("axpy", &[]);
            let s = graph_stats(&g);
            (g, s)
        };
        i.graph = Ok((g, s));
        assert_eq!(maps(&i, "", "NonMaxSuppression"), "yes");
    }
}
