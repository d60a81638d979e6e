//! Rewrites of element-wise subgraphs into one activation, declared as data: each entry of
//! [`PATTERNS`] is an expression tree over op kinds, a variable `x` and scalar constants, and
//! the activation that replaces it. To add one, write its tree with [`Pat`] and add a row.
//!
//! A match replaces the root node by an activation of `x` when every interior value is read
//! only inside the match (not a graph output), every constant has one element, and the root's
//! descriptor is `x`'s (so nothing broadcast). The replaced nodes are left for dead-code
//! removal. The activations compute the same function in one rounding (swish bit for bit as
//! the two steps; gelu within gelu's WPT tolerance of the erf formula's steps: tested below).

use super::uses::Uses;
use super::{NodeKind, Program};
use crate::kernels::activation::Activation;
use crate::kernels::constants::constant_bytes;
use webnn_core::graph::OperandSource;
use webnn_core::{DataType, Graph, OpKind, OperandId};

/// An expression tree to match against the program, backwards from a root value.
#[derive(Debug)]
pub enum Pat {
    /// The pattern's variable `x` (every occurrence must be the same operand).
    X,
    /// A one-element float constant equal to this value (relative error 1e-6).
    Scalar(f64),
    /// A one-element float constant exactly equal to this value.
    Exactly(f64),
    /// The only output of a node running an op of this kind, with these operands (for add
    /// and mul, in either order).
    Op(OpKind, &'static [Pat]),
    /// Any of these.
    Either(&'static [Pat]),
}

/// One rewrite: a tree and what replaces it.
#[derive(Debug)]
pub struct Pattern {
    /// Shown in plan dumps and profiles.
    pub name: &'static str,
    /// The tree, rooted at the value replaced.
    pub tree: Pat,
    /// The data types it applies to.
    pub types: &'static [DataType],
    /// The activation of `x` that replaces it.
    pub becomes: Activation,
}

use Pat::*;

/// `x / √2` or `x · (1/√2)`.
const X_OVER_SQRT2: Pat = Either(&[
    Op(OpKind::Div, &[X, Scalar(std::f64::consts::SQRT_2)]),
    Op(OpKind::Mul, &[X, Scalar(std::f64::consts::FRAC_1_SQRT_2)]),
]);
/// `1 + erf(x / √2)`.
const ONE_PLUS_ERF: Pat = Op(OpKind::Add, &[Op(OpKind::Erf, &[X_OVER_SQRT2]), Scalar(1.0)]);

/// The table of rewrites, tried in order at every node.
pub const PATTERNS: &[Pattern] = &[
    // SiLU / swish, as EfficientNet and YOLO export it.
    // x², as spectrogram magnitudes (silero-vad's stft) and variance formulas write it.
    Pattern {
        name: "pow(x,2)",
        tree: Op(OpKind::Pow, &[X, Exactly(2.0)]),
        types: &[DataType::Float32, DataType::Float16],
        becomes: Activation::Square,
    },
    Pattern {
        name: "sigmoid+mul",
        tree: Op(OpKind::Mul, &[X, Op(OpKind::Sigmoid, &[X])]),
        types: &[DataType::Float32, DataType::Float16],
        becomes: Activation::Swish,
    },
    // gelu, erf form, as PyTorch and Hugging Face export it: the product's three factors in
    // any grouping.
    Pattern {
        name: "gelu(erf)",
        tree: Either(&[
            Op(OpKind::Mul, &[Op(OpKind::Mul, &[X, ONE_PLUS_ERF]), Scalar(0.5)]),
            Op(OpKind::Mul, &[Op(OpKind::Mul, &[X, Scalar(0.5)]), ONE_PLUS_ERF]),
            Op(OpKind::Mul, &[X, Op(OpKind::Mul, &[ONE_PLUS_ERF, Scalar(0.5)])]),
        ]),
        types: &[DataType::Float32],
        becomes: Activation::Gelu,
    },
];

/// Applies the table: each node, last to first, is replaced by the first pattern rooted at it
/// (so the largest match wins over the ones nested inside it).
pub fn run(graph: &Graph, program: &mut Program) {
    let mut uses = Uses::of(graph, program);
    for root in (0..program.nodes.len()).rev() {
        let node = &program.nodes[root];
        if node.kind != NodeKind::Op || node.outputs.len() != 1 {
            continue;
        }
        let out = node.outputs[0];
        for pattern in PATTERNS {
            let desc = graph.descriptor(out);
            if !pattern.types.contains(&desc.data_type) {
                continue;
            }
            let mut m = Match { graph, program, uses: &uses, x: None, interior: Vec::new() };
            if !m.value(&pattern.tree, out, true) {
                continue;
            }
            let Some(x) = m.x else { continue };
            if graph.descriptor(x) != desc {
                continue;
            }
            let interior = std::mem::take(&mut m.interior);
            // Unhook the interior nodes (dead now; dce removes them): the root reads only x.
            for &i in &interior {
                if i != root {
                    program.nodes[i].inputs.clear();
                }
            }
            let node = &mut program.nodes[root];
            node.kind = NodeKind::Activation(pattern.becomes);
            node.inputs = vec![Some(x)];
            node.name = pattern.name.to_string();
            uses = Uses::of(graph, program);
            break;
        }
    }
}

/// The state of one match attempt.
struct Match<'a> {
    graph: &'a Graph,
    program: &'a Program,
    uses: &'a Uses,
    /// The operand bound to `X`.
    x: Option<OperandId>,
    /// Nodes matched (the root first).
    interior: Vec<usize>,
}

impl Match<'_> {
    /// Whether `id` matches `pat` (`root`: `id` is the value being replaced, which may have
    /// other readers).
    fn value(&mut self, pat: &Pat, id: OperandId, root: bool) -> bool {
        match pat {
            X => match self.x {
                Some(x) => x == id,
                None => {
                    self.x = Some(id);
                    true
                }
            },
            Scalar(v) => self.scalar(id, *v, 1e-6),
            Exactly(v) => self.scalar(id, *v, 0.0),
            Either(alternatives) => alternatives.iter().any(|p| self.attempt(|m| m.value(p, id, root))),
            Op(kind, operands) => {
                let Some(n) = self.uses.producer[id.index()] else { return false };
                let node = &self.program.nodes[n];
                let op = &self.graph.operations[node.op];
                if node.kind != NodeKind::Op || op.kind != *kind || node.outputs.len() != 1 {
                    return false;
                }
                if !root && self.uses.readers[id.index()] != 1 {
                    return false;
                }
                let ins: Vec<OperandId> = node.inputs.iter().flatten().copied().collect();
                if ins.len() != operands.len() {
                    return false;
                }
                let ok = self.attempt(|m| operands.iter().zip(&ins).all(|(p, &i)| m.value(p, i, false)))
                    || (matches!(kind, OpKind::Add | OpKind::Mul)
                        && ins.len() == 2
                        && self
                            .attempt(|m| m.value(&operands[0], ins[1], false) && m.value(&operands[1], ins[0], false)));
                if ok {
                    self.interior.push(n);
                }
                ok
            }
        }
    }

    /// Runs `f`, undoing its bindings if it fails.
    fn attempt(&mut self, f: impl FnOnce(&mut Self) -> bool) -> bool {
        let (x, len) = (self.x, self.interior.len());
        if f(self) {
            return true;
        }
        self.x = x;
        self.interior.truncate(len);
        false
    }

    /// Whether `id` is a one-element float constant equal to `want` within relative error `rel`.
    fn scalar(&self, id: OperandId, want: f64, rel: f64) -> bool {
        let node = &self.graph.operands[id.index()];
        if !matches!(node.source, OperandSource::Constant(_)) || node.descriptor.len() != 1 {
            return false;
        }
        let Some(bytes) = constant_bytes(self.graph, id) else { return false };
        let v = match node.descriptor.data_type {
            DataType::Float32 if bytes.len() == 4 => {
                f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as f64
            }
            DataType::Float16 if bytes.len() == 2 => half::f16::from_le_bytes([bytes[0], bytes[1]]).to_f64(),
            _ => return false,
        };
        // A constant written in float16 (√2 as 1.4140625, from a float16 model or one that
        // `float16::widen` copied to float32) is the pattern's constant rounded: the fused
        // activation's exact one moves its float16 result by well under half a step.
        (v - want).abs() <= rel * want.abs() || (rel > 0.0 && v == half::f16::from_f64(want).to_f64())
    }
}

#[cfg(test)]
#[path = "patterns_tests.rs"]
mod tests;
