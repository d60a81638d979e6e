//! The compile pipeline: passes over the validated graph that decide what the plan computes,
//! before [`crate::plan`] lowers each node to a kernel and places intermediates in the arena.
//!
//! First [`float16::widen`] holds the values between the operations of a float16 graph in
//! float32 (rounded where the graph's outputs and casts say), so that they take the float32
//! kernels and passes. Then [`fold`] evaluates the operations whose inputs are all constants (at build, with
//! their own kernels) and hands on a graph where their results are constants. That graph is
//! copied into a [`Program`]: one [`Node`] per operation still to run, in graph (topological)
//! order. Then the passes run, in this order:
//!
//! 1. [`patterns`]: rewrites of element-wise subgraphs into one activation, declared as a table
//!    of patterns (`mul(x, sigmoid(x))` → swish, the erf formula of gelu → gelu);
//! 2. [`quantized`]: a conv2d or matmul between a dequantizeLinear of its input (and of its
//!    int8 weights) and a quantizeLinear of its result runs on integers, and so does the
//!    dynamically quantized matmul (integer sums cast to float and scaled); then
//!    [`quantized::elementwise`] keeps the element-wise steps between quantized ops on 8-bit
//!    values (a 256-byte table per single-input chain, a quantized add / mul of two); a
//!    quantizeLinear read only by a dequantizeLinear with the same parameters becomes one
//!    activation;
//! 3. [`layout`] (opt-in, `WEBNN_LAYOUT=nhwc`): the groups of depthwise and pointwise convs
//!    (with the element-wise nodes and global pools between them) of a conv net run
//!    channels-last, transposed once on entry and on exit;
//! 4. [`epilogue`]: conv2d / matmul / gemm absorb the activations and the element-wise adds
//!    and multiplies (residuals, biases, scales) that alone read their result, applied while
//!    each output tile is in cache; the followers' table is in that file;
//! 5. [`dce`]: nodes whose results nobody reads are dropped.
//!
//! `WEBNN_DUMP_PLAN=1` prints the program after the passes (one line per node), then the
//! plan's arena size, to stderr when a graph is built; [`Program::dump`] is the same text.

pub mod dce;
pub mod epilogue;
pub mod float16;
pub mod fold;
pub mod layout;
pub mod patterns;
pub mod quantized;
mod uses;

use crate::kernels::activation::Activation;
use crate::kernels::epilogue::Epilogue;
use std::borrow::Cow;
use webnn_core::graph::Operation;
use webnn_core::{Graph, OperandId};

/// Whether `WEBNN_DUMP_PLAN` asks for the program (and the plan's arena) on stderr.
pub fn dump_requested() -> bool {
    std::env::var_os("WEBNN_DUMP_PLAN").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Which optional passes run: [`layout`] only when `WEBNN_LAYOUT=nhwc` asks for it (see its
/// module doc for why it is not on by default yet); [`float16`] unless `WEBNN_FLOAT16=strict`
/// turns it off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Passes {
    /// Run [`layout`].
    pub layout: bool,
    /// Run [`float16::widen`].
    pub widen_float16: bool,
}

impl Passes {
    /// The passes every graph gets unless the environment says otherwise.
    pub const DEFAULT: Passes = Passes { layout: false, widen_float16: true };

    /// The passes the environment asks for.
    pub fn from_env() -> Passes {
        Passes { layout: layout::enabled_by_env(), widen_float16: !float16::strict_by_env() }
    }
}

/// What a node computes.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    /// Its graph operation, as is.
    Op,
    /// An activation that replaced a subgraph (input 0 is `x`); the node's `op` is the root of
    /// the subgraph it replaced.
    Activation(Activation),
    /// Its operation (a conv2d, matmul or gemm) followed by an epilogue, whose binary steps
    /// read the inputs after the operation's own.
    WithEpilogue(Epilogue),
    /// Its operation (a conv2d or matmul) computed on integers between a dequantizeLinear and
    /// a quantizeLinear ([`quantized`]).
    Quantized(quantized::QuantizedOp),
    /// Element-wise steps between a dequantizeLinear and a quantizeLinear computed on the
    /// 8-bit values ([`quantized::elementwise`]); the node's `op` is the quantizeLinear.
    QuantizedElementwise(quantized::elementwise::Elementwise),
}

/// One step of the program.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// What it computes.
    pub kind: NodeKind,
    /// The graph operation it comes from (for `Op` and `WithEpilogue`: the one it runs).
    pub op: usize,
    /// Operands read (the operation's slots, then any an epilogue reads).
    pub inputs: Vec<Option<OperandId>>,
    /// Operands written.
    pub outputs: Vec<OperandId>,
    /// The fused op kinds, `+`-joined (`conv2d+add+relu`), for profiles and dumps.
    pub name: String,
}

/// The graph as the passes see it: nodes in an order where every value is produced before it
/// is read.
#[derive(Debug, Clone)]
pub struct Program {
    /// The steps, in execution order.
    pub nodes: Vec<Node>,
}

impl Program {
    /// One node per operation of `graph`, unchanged, except operations whose results are all
    /// constants (folded: see [`fold`]).
    pub fn from_graph(graph: &Graph) -> Program {
        let folded = |op: &Operation| {
            op.outputs
                .iter()
                .all(|o| matches!(graph.operands[o.index()].source, webnn_core::graph::OperandSource::Constant(_)))
        };
        let nodes = graph
            .operations
            .iter()
            .enumerate()
            .filter(|(_, op)| !folded(op))
            .map(|(i, op)| Node {
                kind: NodeKind::Op,
                op: i,
                inputs: op.inputs.clone(),
                outputs: op.outputs.clone(),
                name: op.kind.to_string(),
            })
            .collect();
        Program { nodes }
    }

    /// The program after every pass, with the graph it runs on: `graph` itself, or a copy
    /// where folded results are constants (kernels are lowered against that one).
    pub fn compile(graph: &Graph) -> (Cow<'_, Graph>, Program) {
        Program::compile_with(graph, Passes::from_env())
    }

    /// [`Program::compile`] with the optional passes of `passes`.
    pub fn compile_with(graph: &Graph, passes: Passes) -> (Cow<'_, Graph>, Program) {
        let widened = if passes.widen_float16 { float16::widen(graph) } else { None };
        let graph = match widened {
            Some(widened) => Cow::Owned(widened),
            None => Cow::Borrowed(graph),
        };
        let mut graph = match fold::run(&graph) {
            Some(folded) => Cow::Owned(folded),
            None => graph,
        };
        let mut program = Program::from_graph(&graph);
        patterns::run(&graph, &mut program);
        quantized::run(&graph, &mut program);
        quantized::elementwise::run(&graph, &mut program);
        quantized::fuse_round_trips(&graph, &mut program);
        if passes.layout {
            layout::run(&mut graph, &mut program);
        }
        epilogue::run(&graph, &mut program);
        dce::run(&graph, &mut program);
        if dump_requested() {
            eprint!("{}", program.dump(&graph));
        }
        (graph, program)
    }

    /// The program as text: one line per node, `name [label] inputs -> outputs`, with the
    /// operand ids and shapes (`%12:f32[1x64x56x56]`).
    pub fn dump(&self, graph: &Graph) -> String {
        let operand = |id: &OperandId| {
            let d = graph.descriptor(*id);
            let dims: Vec<String> = d.shape.iter().map(|v| v.to_string()).collect();
            format!("%{}:{}[{}]", id.0, d.data_type.as_str(), dims.join("x"))
        };
        let mut s = format!("plan: {} steps ({} operations in the graph)\n", self.nodes.len(), graph.operations.len());
        for node in &self.nodes {
            let op: &Operation = &graph.operations[node.op];
            let ins: Vec<String> = node.inputs.iter().map(|i| i.as_ref().map_or("-".to_string(), operand)).collect();
            let outs: Vec<String> = node.outputs.iter().map(operand).collect();
            let detail = match &node.kind {
                NodeKind::Op => String::new(),
                NodeKind::Activation(a) => format!(" {{{a:?}}}"),
                NodeKind::WithEpilogue(e) => format!(" {{{:?}}}", e.steps),
                NodeKind::Quantized(q) => format!(" {{{}}}", q.summary()),
                NodeKind::QuantizedElementwise(e) => format!(" {{{}}}", e.summary()),
            };
            s += &format!(
                "  {}{}{} {} -> {}\n",
                node.name,
                detail,
                webnn_core::error::label_prefix(&op.label).trim_end().to_string().replace("[", " ["),
                ins.join(" "),
                outs.join(" ")
            );
        }
        s
    }
}
