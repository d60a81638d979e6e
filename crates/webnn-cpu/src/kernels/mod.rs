//! Kernels, one file per op family (mirroring `webnn_core::validate`). Each family exposes
//! `lower(op, graph) -> Result<Box<dyn Kernel>>`, called once at build time; the returned
//! kernel holds everything precomputed (shapes, strides, packed weights) and `run` only
//! computes.
//!
//! float16 is stored as `half::f16`, computed in f32 and rounded once per op.

pub mod activation;
pub mod binary;
pub mod cast;
pub mod fast_math;
pub mod gather;
pub mod int8_gemm;
pub mod logical;
pub mod movement;
pub mod pad;
pub mod quantize;
pub mod quantized;
#[cfg(target_arch = "x86_64")]
mod quantized_conv_direct;
pub mod quantized_depthwise;
#[cfg(target_arch = "x86_64")]
mod quantized_depthwise_avx2;
#[cfg(target_arch = "x86_64")]
mod quantized_depthwise_small;
mod quantized_depthwise_vnni;
pub mod quantized_elementwise;
mod quantized_im2col;
pub mod recurrent;
pub mod reduction;
pub mod requantize;
pub mod scatter;
pub mod strided;
pub mod unary;
pub mod util;
mod vector_activation;

pub mod constants;
pub mod conv;
#[cfg(target_arch = "x86_64")]
mod conv_direct;
#[cfg(target_arch = "x86_64")]
mod conv_few_channels;
pub mod conv_transpose;
pub mod depthwise;
#[cfg(target_arch = "x86_64")]
mod depthwise_avx2;
#[cfg(target_arch = "x86_64")]
mod depthwise_avx512;
pub mod depthwise_blocked;
#[cfg(target_arch = "x86_64")]
mod depthwise_nhwc_avx512;
pub mod epilogue;
pub mod float_elem;
pub mod matmul;
pub mod normalization;
pub mod packed_gemm;
pub mod pool;
#[cfg(target_arch = "x86_64")]
mod pool_avx512;
#[cfg(target_arch = "x86_64")]
mod pool_bytes_avx512;
pub mod resample;
pub mod scratch;
pub mod sgemm;
pub mod simd;
pub mod winograd;

use webnn_core::graph::Operation;
use webnn_core::{Graph, OpKind, OperandDescriptor, Result};

/// A read-only operand during a dispatch.
#[derive(Clone, Copy)]
pub struct In<'a> {
    /// Its descriptor.
    pub desc: &'a OperandDescriptor,
    /// Its bytes (64-byte aligned for intermediates, 8-byte for constants and caller buffers).
    pub bytes: &'a [u8],
}

impl<'a> In<'a> {
    /// The elements as `T` (which must match the data type).
    pub fn slice<T: bytemuck::Pod>(&self) -> &'a [T] {
        bytemuck::cast_slice(self.bytes)
    }
}

/// An operand written by a step.
pub struct Out<'a> {
    /// Its descriptor.
    pub desc: &'a OperandDescriptor,
    /// Its bytes.
    pub bytes: &'a mut [u8],
}

impl Out<'_> {
    /// The elements as `T` (which must match the data type).
    pub fn slice_mut<T: bytemuck::Pod>(&mut self) -> &mut [T] {
        bytemuck::cast_slice_mut(self.bytes)
    }
}

/// A prepared kernel: runs one operation of a plan.
pub trait Kernel: Send + Sync {
    /// Computes `outputs` from `inputs` (slots as in the op's `Operation::inputs`; `None` for
    /// absent optional operands). Fails only when scratch memory cannot be allocated
    /// (an UnknownError, which loses the context).
    fn run(&self, inputs: &[Option<In<'_>>], outputs: &mut [Out<'_>]) -> webnn_core::Result<()>;
}

/// Lowers one operation to its kernel.
pub fn lower(op: &Operation, graph: &Graph) -> Result<Box<dyn Kernel>> {
    use OpKind::*;
    match op.kind {
        Add | Sub | Mul | Div | Max | Min | Pow => binary::lower(op, graph),
        Gru | GruCell | Lstm | LstmCell => recurrent::lower(op, graph),
        Abs | Ceil | Cos | Erf | Exp | Floor | Identity | Log | Neg | Reciprocal | RoundEven | Sin | Sign | Sqrt
        | Tan => unary::lower(op, graph),
        Equal | NotEqual | Greater | GreaterOrEqual | Lesser | LesserOrEqual | LogicalNot | LogicalAnd | LogicalOr
        | LogicalXor | IsNaN | IsInfinite => logical::lower(op, graph),
        Where => logical::lower_where(op, graph),
        Clamp | Elu | Gelu | HardSigmoid | HardSwish | LeakyRelu | Linear | Prelu | Relu | Sigmoid | Softmax
        | Softplus | Softsign | Tanh => activation::lower(op, graph),
        Cast => cast::lower(op, graph),
        ReduceL1 | ReduceL2 | ReduceLogSum | ReduceLogSumExp | ReduceMax | ReduceMean | ReduceMin | ReduceProduct
        | ReduceSum | ReduceSumSquare => reduction::lower(op, graph),
        ArgMin | ArgMax => reduction::lower_arg(op, graph),
        CumulativeSum => reduction::lower_cumulative_sum(op, graph),
        Matmul => matmul::lower_matmul(op, graph),
        Gemm => matmul::lower_gemm(op, graph),
        Conv2d => conv::lower_conv2d(op, graph),
        ConvTranspose2d => conv_transpose::lower_conv_transpose2d(op, graph),
        AveragePool2d | L2Pool2d | MaxPool2d => pool::lower(op, graph),
        Resample2d => resample::lower(op, graph),
        BatchNormalization => normalization::lower_batch_norm(op, graph),
        InstanceNormalization => normalization::lower_instance_norm(op, graph),
        LayerNormalization => normalization::lower_layer_norm(op, graph),
        Transpose | Slice | Reverse | Expand | Tile | Reshape => movement::lower_view(op, graph),
        Concat => movement::lower_concat(op, graph),
        Split => movement::lower_split(op, graph),
        Triangular => movement::lower_triangular(op, graph),
        Pad => pad::lower(op, graph),
        Gather | GatherElements | GatherNd => gather::lower(op, graph),
        ScatterElements | ScatterNd => scatter::lower(op, graph),
        QuantizeLinear | DequantizeLinear => quantize::lower(op, graph),
    }
}

/// Lowers a conv2d, matmul or gemm followed by a fused epilogue (see `compile::epilogue`).
pub fn lower_with_epilogue(op: &Operation, graph: &Graph, epilogue: epilogue::Epilogue) -> Result<Box<dyn Kernel>> {
    match op.kind {
        OpKind::Conv2d => conv::lower_conv2d_with(op, graph, epilogue),
        OpKind::Matmul => matmul::lower_matmul_with(op, graph, epilogue),
        OpKind::Gemm => matmul::lower_gemm_with(op, graph, epilogue),
        kind => Err(webnn_core::Error::operation(format!("{kind} takes no epilogue"))),
    }
}
