//! # webnn-onnx
//!
//! Imports ONNX models into a WebNN graph: [`OnnxModel::load`] parses a `.onnx` file (external
//! data files included) and [`import`] replays the model as `webnn_core::GraphBuilder` calls,
//! returning the graph inputs and output operands. It works with any `&mut GraphBuilder`,
//! including the one inside the `webnn` façade (which derefs to it).
//!
//! ```no_run
//! use webnn_onnx::{import, parse_shape_override, ImportOptions, OnnxModel};
//! # fn run(builder: &mut webnn_core::GraphBuilder) -> Result<(), Box<dyn std::error::Error>> {
//! let model = OnnxModel::load("model.onnx")?;
//! let mut options = ImportOptions::default();
//! let (name, shape) = parse_shape_override("input_ids=1x128")?;
//! options.shape_overrides.insert(name, shape);
//! let imported = import(&model, builder, &options)?;
//! let graph = builder.build(&imported.named_outputs())?;
//! # Ok(()) }
//! ```
//!
//! ## Static shapes
//!
//! WebNN graphs have static shapes. Every graph input gets one: a shape override naming the
//! input gives the whole shape; an override naming a symbolic dimension (`dim_param`, e.g.
//! `batch=4`) binds it everywhere; an unbound *leading* dimension of an input of rank ≥ 2 is
//! the batch dimension and defaults to [`ImportOptions::default_batch_size`] (1); any other
//! unbound dimension is an error that names it. Shape inference then runs as the graph is
//! built (the builder computes every operand's shape), and shape-only subgraphs (`Shape`,
//! `Gather` on shapes, `Concat`, `Unsqueeze`, `Slice`, arithmetic on int64 vectors,
//! `ConstantOfShape`, `Range`, `Equal`/`Where`...) are folded to constants, so `Reshape`,
//! `Expand`, `Tile`, `Slice`, `Pad` and `Resize` get static parameters.
//!
//! ## Errors
//!
//! Failures are [`OnnxError`]s (convertible into `webnn_core::Error`): a malformed file is
//! [`OnnxError::Malformed`], never a panic; every node that cannot be imported (unsupported
//! operator, attribute, data type or runtime-computed parameter, or a failing builder call) is
//! listed at once in [`OnnxError::Nodes`].
//!
//! ## Data types
//!
//! ONNX types map to WebNN's (bool → uint8 holding 0/1); int64 stays int64. DOUBLE, INT16,
//! UINT16, BFLOAT16, strings and 8/4-bit types have no WebNN counterpart: constants of those
//! types may be used in folded shape computations, anything else is unsupported.
//!
//! ## Operators
//!
//! Default domain, opsets 7–28 (versions after 21 only added data types to these operators;
//! see [`supported_operators`] for the exact list with attributes). Model-local functions are
//! inlined. One ONNX node may become several WebNN operations:
//!
//! - element-wise: Add Sub Mul Div Pow Max Min Sum Mean Mod, Sqrt Exp Log Abs Neg Reciprocal
//!   Floor Ceil Round Sign Sin Cos Tan Sinh Cosh Erf, Not And Or Xor, Equal Greater
//!   GreaterOrEqual Less LessOrEqual, IsNaN IsInf, Where, Cast CastLike, Identity, Dropout
//!   (inference), Clip;
//! - activations: Relu LeakyRelu PRelu Elu Selu Celu Sigmoid HardSigmoid HardSwish Tanh
//!   Softplus Softsign Gelu (exact and tanh) Mish Swish SwiGLU ThresholdedRelu Shrink;
//! - Softmax LogSoftmax Hardmax (with the pre-opset-13 2-D coercion), reductions (ReduceMean
//!   Sum Max Min Prod L1 L2 LogSum LogSumExp SumSquare, axes as attribute or input), ArgMax
//!   ArgMin (int64, `select_last_index` via reverse), CumSum, Einsum (1–2 operands, no
//!   ellipsis or diagonals);
//! - Conv (1-D, 2-D; 3-D as a sum of 2-D convolutions over the depth taps), ConvTranspose (1-D,
//!   2-D; auto_pad, output_shape), MaxPool AveragePool LpPool (1-D, 2-D; 3-D as two 2-D
//!   poolings; ceil_mode, count_include_pad, dilations), GlobalAverage/Max/LpPool, Gemm MatMul,
//!   BatchNormalization InstanceNormalization LayerNormalization GroupNormalization
//!   RMSNormalization LpNormalization MeanVarianceNormalization LRN;
//! - Reshape Flatten Squeeze Unsqueeze Transpose Concat Split Slice (negative steps through
//!   reverse) Gather GatherElements GatherND ScatterElements/Scatter ScatterND Expand Tile Pad
//!   (constant, edge, reflect; negative pads crop) DepthToSpace SpaceToDepth Trilu OneHot
//!   CenterCropPad Compress, Resize/Upsample (nearest, linear and cubic, every coordinate mode:
//!   resample2d when its sampling positions equal ONNX's, else per-axis gathers with static
//!   weights; not antialias or tf_crop_and_resize);
//! - LSTM GRU (gate layouts pass through: ONNX iofc = WebNN "iofg", zrh = "zrn"), RNN
//!   (unrolled);
//! - QuantizeLinear DequantizeLinear (per-tensor, per-axis, blocked), DynamicQuantizeLinear,
//!   QLinearMatMul QLinearConv MatMulInteger ConvInteger;
//! - folded at import time: Constant Shape Size ConstantOfShape Range EyeLike NonZero (of
//!   constants), Hann/Hamming/BlackmanWindow, and any mapped op whose inputs are all constants
//!   and small ([`ImportOptions::fold_limit`]).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod error;
mod external;
mod import;
mod model;
pub mod proto;
mod shape;
mod tensor;

pub use error::{NodeError, NodeErrorKind, OnnxError, Result};
pub use import::{
    import, supported_operators, ImportOptions, ImportedGraph, ImportedInput, ImportedOutput, MAX_OPSET, MIN_OPSET,
};
pub use model::{Dim, InputInfo, OnnxModel};
pub use shape::parse_shape_override;
pub use tensor::{ElemType, TensorData};
