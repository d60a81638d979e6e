//! Lowering of operations to GPU work, one file per op family (mirroring `webnn-core`'s
//! `validate/`): each family says which ops and data types it executes ([`executes`], the
//! source of the GPU limits) and turns one validated operation into [`Work`]: compute
//! kernels (WGSL specialised to the op's shapes and data types) and buffer copies.

mod conv;
mod elementwise;
mod gather;
mod matmul;
mod movement;
mod normalization;
mod pool;
mod quantize;
mod recurrent;
mod reduce;

use crate::wgsl::{self, Binding};
use webnn_core::graph::{Graph, OperandId, Operation};
use webnn_core::{DataType, Error, OpKind, Result};

/// A buffer a kernel binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    /// The buffer holding an operand of the graph.
    Operand(OperandId),
    /// Temporary buffer `n` of the operation (its byte size is in [`Work::scratch`]).
    Scratch(usize),
}

/// One compute dispatch: a WGSL module, its bindings (`@binding(i)` is `slots[i]`) and its
/// workgroup counts.
#[derive(Debug, Clone)]
pub(crate) struct Kernel {
    pub label: String,
    pub wgsl: String,
    pub slots: Vec<Slot>,
    pub workgroups: [u32; 3],
}

/// One step of an operation's work.
#[derive(Debug, Clone)]
pub(crate) enum Task {
    Kernel(Kernel),
    /// Copies `bytes` (a multiple of 4) from the start of one buffer to another.
    Copy {
        from: Slot,
        to: Slot,
        bytes: u64,
    },
}

/// What one operation lowers to.
#[derive(Debug, Default)]
pub(crate) struct Work {
    /// Byte sizes of the temporary buffers the tasks use (`Slot::Scratch(i)`).
    pub scratch: Vec<u64>,
    pub tasks: Vec<Task>,
}

/// What kernels need to know while lowering: the graph, the device's limits, and an
/// activation fused into the op's output.
#[derive(Clone)]
pub(crate) struct Lowering<'a> {
    pub graph: &'a Graph,
    pub max_workgroups: u32,
    /// A float activation applied to every output value before it is stored (fused from the
    /// single consumer of a conv / matmul / gemm output, see [`fusable_activation`]): the
    /// expression of `x: f32`.
    pub epilogue: Option<String>,
}

impl Lowering<'_> {
    /// `value` (an f32 expression) with the fused activation applied, if any.
    pub fn activated(&self, value: &str) -> String {
        match &self.epilogue {
            Some(_) => format!("epilogue_({value})"),
            None => value.to_string(),
        }
    }

    /// Module-scope WGSL the kernel needs for [`Lowering::activated`].
    pub fn epilogue_helpers(&self) -> String {
        match &self.epilogue {
            Some(expr) => format!("{}\nfn epilogue_(x: f32) -> f32 {{ return {expr}; }}\n", elementwise::HELPERS),
            None => String::new(),
        }
    }

    /// The descriptor's data type and shape of an operand.
    pub fn data_type(&self, id: OperandId) -> DataType {
        self.graph.descriptor(id).data_type
    }
    pub fn shape(&self, id: OperandId) -> &[u32] {
        &self.graph.descriptor(id).shape
    }
    pub fn elements(&self, id: OperandId) -> u64 {
        self.shape(id).iter().map(|&d| d as u64).product()
    }

    /// Input `slot` of `op`, which validation guarantees is present.
    pub fn input(&self, op: &Operation, slot: usize) -> Result<OperandId> {
        op.input(slot).ok_or_else(|| Error::unknown(format!("{}: input {slot} is missing", op.kind)))
    }

    /// A kernel computing each of the `elements` outputs (the last binding) independently:
    /// `body` is the body of `fn element(i: u32) -> T` returning output element `i` in its
    /// compute type (see [`wgsl::module`]); `bindings[k]` is bound to `slots[k]`.
    pub fn per_element(
        &self,
        label: &str,
        bindings: &[Binding],
        slots: Vec<Slot>,
        helpers: &str,
        body: &str,
        elements: u64,
    ) -> Kernel {
        let out = bindings.last().map(|b| b.data_type).unwrap_or(DataType::Float32);
        let (workgroups, row) = wgsl::grid(wgsl::invocations(out, elements), self.max_workgroups);
        Kernel {
            label: label.to_string(),
            wgsl: wgsl::module(bindings, helpers, body, elements, row),
            slots,
            workgroups,
        }
    }

    /// A kernel with a hand-written module (`wgsl`, whose bindings are `slots` in order) run
    /// on `workgroups`.
    pub fn custom(&self, label: &str, wgsl: String, slots: Vec<Slot>, workgroups: [u32; 3]) -> Kernel {
        Kernel { label: label.to_string(), wgsl, slots, workgroups }
    }
}

/// Whether the GPU executes `member` of `op` with data type `dt` (float16 only when the
/// adapter has `SHADER_F16`). This is the GPU context's limits table.
pub(crate) fn executes(op: OpKind, member: &str, dt: DataType, f16: bool) -> bool {
    if !wgsl::stores(dt) || (dt == DataType::Float16 && !f16) {
        return false;
    }
    FAMILIES.iter().any(|f| (f.executes)(op, member, dt))
}

/// One op family: which ops × members × data types it executes, and its lowering (None for
/// an op of another family).
struct Family {
    executes: fn(OpKind, &str, DataType) -> bool,
    lower: fn(&Operation, &Lowering) -> Result<Option<Work>>,
}

const FAMILIES: &[Family] = &[
    Family { executes: elementwise::executes, lower: elementwise::lower },
    Family { executes: matmul::executes, lower: matmul::lower },
    Family { executes: conv::executes, lower: conv::lower },
    Family { executes: pool::executes, lower: pool::lower },
    Family { executes: reduce::executes, lower: reduce::lower },
    Family { executes: normalization::executes, lower: normalization::lower },
    Family { executes: movement::executes, lower: movement::lower },
    Family { executes: gather::executes, lower: gather::lower },
    Family { executes: quantize::executes, lower: quantize::lower },
    Family { executes: recurrent::executes, lower: recurrent::lower },
];

/// The WGSL expression (of `x: f32`) of `op` when it can run as the epilogue of the kernel
/// producing its input: any element-wise function of one float operand (`input` of data type
/// `dt`) whose output keeps that data type (activations, unary math; not isNaN's uint8).
pub(crate) fn fusable_activation(op: &Operation, dt: DataType, output: DataType) -> Option<String> {
    if !dt.is_float() || output != dt {
        return None;
    }
    elementwise::unary_expression(op, dt)
}

/// The ops whose kernels apply [`Lowering::epilogue`].
pub(crate) fn takes_epilogue(kind: OpKind) -> bool {
    matches!(kind, OpKind::Conv2d | OpKind::ConvTranspose2d | OpKind::Matmul | OpKind::Gemm)
}

/// Lowers one operation (which [`executes`] accepts for its operands' data types).
pub(crate) fn lower(op: &Operation, l: &Lowering) -> Result<Work> {
    for family in FAMILIES {
        if let Some(work) = (family.lower)(op, l)? {
            return Ok(work);
        }
    }
    Err(Error::not_supported(format!("{}: not executed on the GPU", op.kind)))
}
