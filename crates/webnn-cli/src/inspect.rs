//! `webnn inspect`: what a model is made of. For ONNX files: producer, opsets, inputs and
//! outputs, operators used (read directly from the protobuf) and whether the importer maps
//! them; for every model that imports: the WebNN operations, parameter count and a GFLOP
//! estimate of one run (from the validated graph; no backend needed).

use crate::model::{self, LoadedModel, ModelSource};
use crate::onnx_import::{self, NodeFailures};
use crate::onnx_proto::{self, OnnxSummary};
use crate::stats::{graph_stats, GraphStats};
use anyhow::{Context as _, Result};
use serde_json::json;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use webnn::webnn_core::{ContextLink, Graph, GraphBuilder};

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

/// Builds the model into a backend-less builder and returns the validated graph.
fn build_graph(source: &ModelSource, shapes: &[String]) -> Result<Graph> {
    let link = ContextLink { id: 0, lost: Arc::new(AtomicBool::new(false)), limits: None };
    let mut builder = GraphBuilder::new(link)?;
    let LoadedModel { outputs, .. } = model::load(source, &mut builder, shapes)?;
    let outputs: Vec<(&str, &webnn::Operand)> = outputs.iter().map(|(n, o)| (n.as_str(), o)).collect();
    Ok(builder.build(&outputs)?)
}

/// Inspects a model.
pub fn examine(source: &ModelSource, shapes: &[String]) -> Result<Inspection> {
    let onnx = match source {
        ModelSource::Onnx(path) => {
            let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            Some(onnx_proto::summarize(&bytes).with_context(|| format!("{} is not an ONNX model", path.display()))?)
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
            out += &format!("  estimated work: {:.3} GFLOP ({:.3} G multiply-accumulates)\n", s.gflop(), s.macs as f64 / 1e9);
            for (op, n) in &s.ops {
                out += &format!("    {op:<24} {n:>5}\n");
            }
        }
        Err(e) => {
            out += &format!("WebNN graph: not imported: {e}\n");
            if !onnx_import::AVAILABLE {
                out += "  (this binary has no ONNX importer; build with the `onnx` feature)\n";
            }
        }
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
