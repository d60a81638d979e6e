//! Test support for the matmul/gemm/conv/pool/resample/normalization kernels: running one op
//! whose operands may be graph constants (so the lowering-time packing paths are exercised).
//! The WPT vectors of these ops run through the public builder in webnn-conformance's tests.

use crate::memory::AlignedBuf;
use crate::plan::{CompiledPlan, Plan};
use std::sync::Arc;
use webnn_core::backend::CompiledGraph;
use webnn_core::graph::{Attrs, Constant, OperandNode, OperandSource, Operation};
use webnn_core::types::{Conv2dFilterOperandLayout, InputOperandLayout};
use webnn_core::{DataType, Graph, OpKind, OperandDescriptor, OperandId};

/// One operand of [`run_op_const`]: descriptor, bytes, and whether it is a graph constant.
pub type Operand = (OperandDescriptor, Vec<u8>, bool);

/// A graph of one operation: operands flagged constant become graph constants, the others
/// graph inputs `in{slot}` (their bytes returned, aligned, in input order); outputs `out{i}`.
pub fn one_op_graph(
    kind: OpKind,
    inputs: &[Option<Operand>],
    attrs: Attrs,
    outputs: &[OperandDescriptor],
) -> (Graph, Vec<AlignedBuf>) {
    let mut graph = Graph::default();
    let mut slots = Vec::new();
    let mut data = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let Some((desc, bytes, constant)) = input else {
            slots.push(None);
            continue;
        };
        let id = OperandId(graph.operands.len() as u32);
        if *constant {
            graph
                .operands
                .push(OperandNode { descriptor: desc.clone(), source: OperandSource::Constant(graph.constants.len()) });
            graph.constants.push(Constant {
                operand: id,
                bytes: webnn_core::SharedBytes::try_copy_from(bytes).unwrap(),
                tensor_destroyed: None,
            });
        } else {
            let name = format!("in{i}");
            graph.operands.push(OperandNode { descriptor: desc.clone(), source: OperandSource::Input(name.clone()) });
            graph.inputs.push((name, id));
            let mut aligned = AlignedBuf::zeroed(bytes.len());
            aligned.as_bytes_mut().copy_from_slice(bytes);
            data.push(aligned);
        }
        slots.push(Some(id));
    }
    let mut out_ids = Vec::new();
    for (i, desc) in outputs.iter().enumerate() {
        let id = OperandId(graph.operands.len() as u32);
        graph
            .operands
            .push(OperandNode { descriptor: desc.clone(), source: OperandSource::Operation { op: 0, output: i } });
        graph.outputs.push((format!("out{i}"), id));
        out_ids.push(id);
    }
    graph.operations.push(Operation { kind, inputs: slots, outputs: out_ids, attrs, label: String::new() });
    (graph, data)
}

/// One operation compiled into a plan on two threads, with its input bytes and output
/// buffers: run it with [`OneOp::run`] (as often as a test likes; the outputs are reused).
pub struct OneOp {
    compiled: CompiledPlan,
    data: Vec<AlignedBuf>,
    out_bufs: Vec<AlignedBuf>,
}

impl OneOp {
    /// Compiles the graph of [`one_op_graph`] with zeroed outputs; panics if it does not compile.
    pub fn new(kind: OpKind, inputs: &[Option<Operand>], attrs: Attrs, outputs: &[OperandDescriptor]) -> Self {
        let (graph, data) = one_op_graph(kind, inputs, attrs, outputs);
        let plan = Plan::compile(&graph).expect("compile");
        let pool = Arc::new(crate::pool::build_pool(Some(2)).expect("pool"));
        let out_bufs = outputs.iter().map(|d| AlignedBuf::zeroed(d.byte_length() as usize)).collect();
        OneOp { compiled: CompiledPlan::new(plan, pool), data, out_bufs }
    }

    /// Executes the plan into the output buffers (as the last run left them); returns their
    /// bytes.
    pub fn run(&mut self) -> Vec<Vec<u8>> {
        let ins: Vec<&[u8]> = self.data.iter().map(|d| d.as_bytes()).collect();
        let mut outs: Vec<&mut [u8]> = self.out_bufs.iter_mut().map(|b| b.as_bytes_mut()).collect();
        self.compiled.execute(&ins, &mut outs).expect("execute");
        self.out_bufs.iter().map(|b| b.as_bytes().to_vec()).collect()
    }
}

/// Runs one operation like `testing::run_op`, but operands flagged constant become graph
/// constants.
pub fn run_op_const(
    kind: OpKind,
    inputs: &[Option<Operand>],
    attrs: Attrs,
    outputs: &[OperandDescriptor],
) -> Vec<Vec<u8>> {
    OneOp::new(kind, inputs, attrs, outputs).run()
}

/// Deterministic pseudo-random values in [-1, 1) (xorshift), for kernel tests.
pub fn pseudo(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(2654435761).wrapping_add(0x9E37_79B9);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s % 20000) as f32 / 10000.0 - 1.0
        })
        .collect()
}

/// Asserts `|a − e| <= tol · (1 + |e|)` elementwise.
#[track_caller]
pub fn assert_close(actual: &[f32], expected: &[f32], tol: f32, what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: length");
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        let ok = a == e || (a - e).abs() <= tol * (1.0 + e.abs()) || (a.is_nan() && e.is_nan());
        assert!(ok, "{what}: element {i}: {a} vs {e}");
    }
}

/// float32 operand bytes.
pub fn f32_operand(shape: &[u32], v: &[f32], constant: bool) -> Option<Operand> {
    Some((OperandDescriptor::new(DataType::Float32, shape.to_vec()), bytemuck::cast_slice(v).to_vec(), constant))
}

/// float16 operand bytes (values rounded to f16).
pub fn f16_operand(shape: &[u32], v: &[f32], constant: bool) -> Option<Operand> {
    let h: Vec<half::f16> = v.iter().map(|&x| half::f16::from_f32(x)).collect();
    Some((OperandDescriptor::new(DataType::Float16, shape.to_vec()), bytemuck::cast_slice(&h).to_vec(), constant))
}

/// Rounds values through f16 (what an f16 operand holds).
pub fn via_f16(v: &[f32]) -> Vec<f32> {
    v.iter().map(|&x| half::f16::from_f32(x).to_f32()).collect()
}

/// Output bytes → f32 values for a float32 or float16 output.
pub fn out_f32(dt: DataType, bytes: &[u8]) -> Vec<f32> {
    match dt {
        DataType::Float16 => bytemuck::pod_collect_to_vec::<u8, half::f16>(bytes).iter().map(|h| h.to_f32()).collect(),
        _ => bytemuck::pod_collect_to_vec::<u8, f32>(bytes),
    }
}

/// Runs a float op with every operand float32 or float16 (`dt`), constants as flagged;
/// returns the output as f32.
#[allow(clippy::type_complexity)]
pub fn run_float(
    kind: OpKind,
    dt: DataType,
    inputs: &[Option<(&[u32], &[f32], bool)>],
    attrs: Attrs,
    out_shape: &[u32],
) -> Vec<f32> {
    let ops: Vec<Option<Operand>> = inputs
        .iter()
        .map(|i| {
            i.and_then(|(s, v, c)| if dt == DataType::Float16 { f16_operand(s, v, c) } else { f32_operand(s, v, c) })
        })
        .collect();
    let out = run_op_const(kind, &ops, attrs, &[OperandDescriptor::new(dt, out_shape.to_vec())]);
    out_f32(dt, &out[0])
}

/// Lowers one operation whose operands are all graph inputs; returns the compile result.
pub fn compile_op(
    kind: OpKind,
    inputs: &[Option<OperandDescriptor>],
    attrs: Attrs,
    outputs: &[OperandDescriptor],
) -> webnn_core::Result<Plan> {
    let operands: Vec<Option<Operand>> = inputs.iter().map(|d| d.clone().map(|d| (d, Vec::new(), false))).collect();
    Plan::compile(&one_op_graph(kind, &operands, attrs, outputs).0)
}

#[test]
fn inconsistent_graphs_fail_to_compile_instead_of_panicking() {
    let f = |s: &[u32]| OperandDescriptor::new(DataType::Float32, s.to_vec());
    let conv = Attrs::Conv2d {
        padding: [0; 4],
        strides: [1, 1],
        dilations: [1, 1],
        groups: 1,
        input_layout: InputOperandLayout::Nchw,
        filter_layout: Conv2dFilterOperandLayout::Oihw,
    };
    // bias of the wrong size
    let r = compile_op(
        OpKind::Conv2d,
        &[Some(f(&[1, 2, 4, 4])), Some(f(&[3, 2, 3, 3])), Some(f(&[2]))],
        conv,
        &[f(&[1, 3, 2, 2])],
    );
    assert_eq!(r.expect_err("bias size").kind, webnn_core::ErrorKind::Operation);
    // matmul inner dimensions disagree
    let r = compile_op(OpKind::Matmul, &[Some(f(&[2, 3])), Some(f(&[4, 5]))], Attrs::None, &[f(&[2, 5])]);
    assert!(r.is_err());
    // gemm
    let g = Attrs::Gemm { alpha: 1.0, beta: 1.0, a_transpose: true, b_transpose: false };
    assert!(compile_op(OpKind::Gemm, &[Some(f(&[2, 3])), Some(f(&[2, 5])), None], g, &[f(&[2, 5])]).is_err());
    // layerNormalization scale of the wrong size
    let ln = Attrs::LayerNormalization { axes: vec![1], epsilon: 1e-5 };
    assert!(
        compile_op(OpKind::LayerNormalization, &[Some(f(&[2, 3])), Some(f(&[2])), None], ln, &[f(&[2, 3])]).is_err()
    );
    let bn = Attrs::BatchNormalization { axis: 1, epsilon: 1e-5 };
    assert!(compile_op(
        OpKind::BatchNormalization,
        &[Some(f(&[2, 3])), Some(f(&[3])), Some(f(&[2])), None, None],
        bn,
        &[f(&[2, 3])]
    )
    .is_err());
}
