//! Node order: inlining of model-local functions and a stable topological sort.

use super::FlatNode;
use crate::error::{NodeError, NodeErrorKind, OnnxError, Result};
use crate::proto::{FunctionProto, NodeProto};
use std::collections::{BTreeSet, HashMap, HashSet};

/// Inlines calls to model-local functions (recursively, up to a depth of 16).
pub(super) fn flatten(
    nodes: &[NodeProto],
    opset: i64,
    functions: &HashMap<(String, String), &FunctionProto>,
    depth: usize,
    counter: &mut usize,
    out: &mut Vec<FlatNode>,
) -> Result<()> {
    for node in nodes {
        let key = (node.domain.clone().unwrap_or_default(), node.op_type.clone().unwrap_or_default());
        let Some(f) = functions.get(&key) else {
            out.push(FlatNode { node: node.clone(), opset });
            continue;
        };
        if depth >= 16 {
            return Err(OnnxError::Unsupported(format!("model-local function '{}' nests too deeply", key.1)));
        }
        *counter += 1;
        let prefix = format!("{}/{}#{}/", node.name.as_deref().unwrap_or(""), key.1, counter);
        let mut rename: HashMap<&str, String> = HashMap::new();
        for (i, formal) in f.input.iter().enumerate() {
            rename.insert(formal, node.input.get(i).cloned().unwrap_or_default());
        }
        for (i, formal) in f.output.iter().enumerate() {
            let actual =
                node.output.get(i).cloned().filter(|s| !s.is_empty()).unwrap_or_else(|| format!("{prefix}{formal}"));
            rename.insert(formal, actual);
        }
        let map = |v: &String| -> String {
            if v.is_empty() {
                String::new()
            } else {
                rename.get(v.as_str()).cloned().unwrap_or_else(|| format!("{prefix}{v}"))
            }
        };
        let f_opset = f
            .opset_import
            .iter()
            .find(|o| matches!(o.domain.as_deref().unwrap_or(""), "" | "ai.onnx"))
            .and_then(|o| o.version)
            .unwrap_or(opset);
        let mut body = Vec::with_capacity(f.node.len());
        for inner in &f.node {
            let mut n = inner.clone();
            n.input = n.input.iter().map(map).collect();
            n.output = n.output.iter().map(map).collect();
            n.name = Some(format!("{prefix}{}", inner.name.as_deref().unwrap_or("")));
            let mut attrs = Vec::new();
            for a in &inner.attribute {
                match a.ref_attr_name.as_deref() {
                    Some(r) if !r.is_empty() => {
                        let given = node.attribute.iter().find(|x| x.name.as_deref() == Some(r));
                        let default = f.attribute_proto.iter().find(|x| x.name.as_deref() == Some(r));
                        if let Some(v) = given.or(default) {
                            let mut v = v.clone();
                            v.name = a.name.clone();
                            attrs.push(v);
                        }
                    }
                    _ => attrs.push(a.clone()),
                }
            }
            n.attribute = attrs;
            body.push(n);
        }
        flatten(&body, f_opset, functions, depth + 1, counter, out)?;
    }
    Ok(())
}

/// A topological order of `nodes` (stable: graph order where possible). Nodes that can never
/// run (an input nobody produces, a cycle) come back as errors.
pub(super) fn topological_order(nodes: &[FlatNode], available: &HashSet<&str>) -> (Vec<usize>, Vec<NodeError>) {
    let mut producer: HashMap<&str, usize> = HashMap::new();
    let mut errors = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        for o in n.node.output.iter().filter(|o| !o.is_empty()) {
            if available.contains(o.as_str()) || producer.insert(o, i).is_some() {
                errors.push(NodeError {
                    op_type: n.node.op_type.clone().unwrap_or_default(),
                    node: n.node.name.clone().unwrap_or_else(|| format!("#{i}")),
                    kind: NodeErrorKind::Invalid,
                    message: format!("value '{o}' is defined more than once"),
                });
            }
        }
    }
    let mut pending = vec![0usize; nodes.len()];
    let mut consumers: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut ready = BTreeSet::new();
    for (i, n) in nodes.iter().enumerate() {
        let deps: HashSet<usize> = n
            .node
            .input
            .iter()
            .filter(|x| !x.is_empty() && !available.contains(x.as_str()))
            .filter_map(|x| producer.get(x.as_str()).copied())
            .collect();
        pending[i] = deps.len();
        for d in deps {
            consumers[d].push(i);
        }
        if pending[i] == 0 {
            ready.insert(i);
        }
    }
    let mut order = Vec::with_capacity(nodes.len());
    while let Some(i) = ready.pop_first() {
        order.push(i);
        for &c in &consumers[i] {
            pending[c] -= 1;
            if pending[c] == 0 {
                ready.insert(c);
            }
        }
    }
    for (i, n) in nodes.iter().enumerate() {
        if pending[i] > 0 {
            errors.push(NodeError {
                op_type: n.node.op_type.clone().unwrap_or_default(),
                node: n.node.name.clone().unwrap_or_else(|| format!("#{i}")),
                kind: NodeErrorKind::Invalid,
                message: "the node is part of a cycle".into(),
            });
        }
    }
    (order, errors)
}
