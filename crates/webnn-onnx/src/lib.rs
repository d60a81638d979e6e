//! # webnn-onnx
//!
//! Imports ONNX models into a WebNN graph: [`OnnxModel::load`] parses a `.onnx` file (external
//! data files included) and [`import`] replays the model as `webnn_core::GraphBuilder` calls,
//! returning the graph inputs and output operands. It works with any `&mut GraphBuilder`,
//! including the one inside the `webnn` façade (`webnn::GraphBuilder::core_mut`).
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
//! Default domain, opsets 7–28 (versions after 21 only added data types to these operators).
//! [`supported_operators`] returns every operator the importer maps, with the attributes each
//! accepts; it is derived from the importer's own registrations, so it is the exact list.
//! Model-local functions are inlined. One ONNX node may become several WebNN operations, and
//! any mapped op whose inputs are all constants and small ([`ImportOptions::fold_limit`]) is
//! computed at import time (some, such as `Shape`, `ConstantOfShape` or `Range`, only ever
//! are). Some mappings are partial: 3-D convolutions and pools are decomposed into 2-D ones
//! (ConvTranspose has no 3-D), Einsum takes 1–2 operands without ellipsis or diagonals, Pad
//! has the constant, edge and reflect modes, Resize has neither antialias nor
//! `tf_crop_and_resize`, Dropout imports for inference only; a node outside these limits is
//! reported as unsupported.

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
