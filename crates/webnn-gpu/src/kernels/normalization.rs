//! batchNormalization ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-batchnorm)),
//! instanceNormalization ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-instancenorm)) and
//! layerNormalization ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-layernorm)), float32
//! and float16 (computed in f32).
//!
//! `y = scale · (x − mean) / sqrt(variance + epsilon) + bias`, scale defaulting to 1 and bias
//! to 0, as the CPU engine computes it: batchNormalization is one invocation per element
//! (the per-channel factor `scale / sqrt(variance + epsilon)` formed in the shader);
//! instance and layer normalization are the three-phase group kernels of `reduce.rs` (mean,
//! then the population variance around it, then the element-wise update), one workgroup per
//! group with tree reductions when a group is large, one invocation per group otherwise.
//! Statistics accumulate in f32 (the CPU engine uses f64): far inside the WPT tolerances
//! (layerNormalization 14 ULP, instanceNormalization 840 ULP) on every vector.
//! layerNormalization's scale and bias are indexed by the position in the normalized axes
//! taken in the caller's order.

use super::reduce::{merge, phases_kernel, Phases};
use super::{Kernel, Lowering, Slot, Task, Work};
use crate::wgsl::{self, Binding};
use webnn_core::graph::{Attrs, Operation};
use webnn_core::types::InputOperandLayout;
use webnn_core::{DataType, OpKind, OperandId, Result};

/// Whether this family executes `member` of `op` with `dt` (a type the GPU stores).
pub(super) fn executes(op: OpKind, member: &str, dt: DataType) -> bool {
    let _ = member;
    matches!(op, OpKind::BatchNormalization | OpKind::InstanceNormalization | OpKind::LayerNormalization)
        && dt.is_float()
}

/// Lowers an op of this family, or None if `op` is not one.
pub(super) fn lower(op: &Operation, l: &Lowering) -> Result<Option<Work>> {
    let label = op.kind.idl_name();
    let (x, y) = match (op.kind, op.input(0)) {
        (OpKind::BatchNormalization | OpKind::InstanceNormalization | OpKind::LayerNormalization, Some(x)) => {
            (x, op.outputs[0])
        }
        _ => return Ok(None),
    };
    let dt = l.data_type(x);
    let out_dt = l.data_type(y);
    if !dt.is_float() {
        return Ok(None);
    }
    let shape = l.shape(x).to_vec();
    let st = wgsl::strides(&shape);
    let kernel = match op.attrs {
        Attrs::BatchNormalization { axis, epsilon } => {
            let (mean, var) = (l.input(op, 1)?, l.input(op, 2)?);
            let a = axis as usize;
            let channels = shape.get(a).copied().unwrap_or(1);
            let inner = st.get(a).copied().unwrap_or(1);
            let mut o = Operands::new(dt, x);
            o.read("mean_", mean);
            o.read("var_", var);
            let scale = o.optional(op.input(3), "scale_", "c", "1.0");
            let bias = o.optional(op.input(4), "bias_", "c", "0.0");
            let (bindings, slots) = o.finish(y, out_dt);
            let body = format!(
                "let c = (i / {inner}u) % {channels}u;\nlet f = {scale} / sqrt({} + {});\nreturn ({} - {}) * f + {bias};",
                wgsl::load(dt, "var_", "c"),
                eps(epsilon),
                wgsl::load(dt, "x_", "i"),
                wgsl::load(dt, "mean_", "c"),
            );
            l.per_element(label, &bindings, slots, "", &body, l.elements(y))
        }
        Attrs::InstanceNormalization { epsilon, layout } => {
            if shape.len() != 4 {
                return Ok(None);
            }
            let nhwc = layout == InputOperandLayout::Nhwc;
            let (c_axis, spatial) = if nhwc { (3, [1, 2]) } else { (1, [2, 3]) };
            let channels = shape[c_axis];
            let kept = merge(&[(shape[0], st[0]), (shape[c_axis], st[c_axis])]);
            let red = merge(&[(shape[spatial[0]], st[spatial[0]]), (shape[spatial[1]], st[spatial[1]])]);
            let n = (shape[spatial[0]] as u64 * shape[spatial[1]] as u64).max(1);
            let mut o = Operands::new(dt, x);
            let scale = o.optional(op.input(1), "scale_", "c", "1.0");
            let bias = o.optional(op.input(2), "bias_", &format!("(gg % {channels}u)"), "0.0");
            let (bindings, slots) = o.finish(y, out_dt);
            let fin2 =
                format!("let c = gg % {channels}u;\nlet b = {scale} / sqrt(s2 / {} + {});", n_f32(n), eps(epsilon));
            normalize(l, label, &bindings, slots, (&kept, &red, n), &fin2, &format!("(v - a) * b + {bias}"))
        }
        Attrs::LayerNormalization { ref axes, epsilon } => {
            let axes: Vec<usize> = axes.iter().map(|&a| a as usize).filter(|&a| a < shape.len()).collect();
            let kept =
                merge(&(0..shape.len()).filter(|d| !axes.contains(d)).map(|d| (shape[d], st[d])).collect::<Vec<_>>());
            // Caller's order: element j of a group pairs with scale[j] and bias[j].
            let red = merge(&axes.iter().map(|&d| (shape[d], st[d])).collect::<Vec<_>>());
            let n = axes.iter().map(|&d| shape[d] as u64).product::<u64>().max(1);
            let mut o = Operands::new(dt, x);
            let mut out = "(v - a) * b".to_string();
            if let Some(scale) = op.input(1) {
                out = format!("{out} * {}", o.load(scale, "scale_", "j"));
            }
            if let Some(bias) = op.input(2) {
                out = format!("{out} + {}", o.load(bias, "bias_", "j"));
            }
            let (bindings, slots) = o.finish(y, out_dt);
            let fin2 = format!("let b = 1.0 / sqrt(s2 / {} + {});", n_f32(n), eps(epsilon));
            normalize(l, label, &bindings, slots, (&kept, &red, n), &fin2, &out)
        }
        _ => return Ok(None),
    };
    Ok(Some(Work { scratch: vec![], tasks: vec![Task::Kernel(kernel)] }))
}

/// The bindings and slots of a normalization kernel, built operand by operand: the input `x_`
/// first, the output `y_` last.
struct Operands {
    dt: DataType,
    bindings: Vec<Binding>,
    slots: Vec<Slot>,
}

impl Operands {
    /// Starts with the input `x` bound as `x_`.
    fn new(dt: DataType, x: OperandId) -> Operands {
        Operands { dt, bindings: vec![Binding::read("x_", dt)], slots: vec![Slot::Operand(x)] }
    }

    /// Binds `id` read-only as `name`.
    fn read(&mut self, name: &str, id: OperandId) {
        self.bindings.push(Binding::read(name, self.dt));
        self.slots.push(Slot::Operand(id));
    }

    /// Binds `id` as `name`; returns the WGSL that loads its element `index`.
    fn load(&mut self, id: OperandId, name: &str, index: &str) -> String {
        self.read(name, id);
        wgsl::load(self.dt, name, index)
    }

    /// [`Operands::load`] for an optional operand: `absent` when there is none.
    fn optional(&mut self, id: Option<OperandId>, name: &str, index: &str, absent: &str) -> String {
        id.map_or_else(|| absent.into(), |id| self.load(id, name, index))
    }

    /// Binds the output `y` as `y_`; returns the bindings and slots.
    fn finish(mut self, y: OperandId, out_dt: DataType) -> (Vec<Binding>, Vec<Slot>) {
        self.bindings.push(Binding::write("y_", out_dt));
        self.slots.push(Slot::Operand(y));
        (self.bindings, self.slots)
    }
}

/// epsilon as a WGSL f32 literal.
fn eps(epsilon: f64) -> String {
    wgsl::f32_literal(epsilon as f32)
}

/// The element count of a group as a WGSL f32 literal.
fn n_f32(n: u64) -> String {
    wgsl::f32_literal(n as f32)
}

/// Merged dimensions as (size, stride) pairs.
type Dims<'a> = &'a [(u32, u64)];

/// The three-phase group kernel of instance and layer normalization over `groups` (the kept
/// and the reduced dimensions, and the group size): mean `a`, then the population variance
/// around it, whose final step `fin2` forms the factor `b`, then `out` per element.
fn normalize(
    l: &Lowering,
    label: &str,
    bindings: &[Binding],
    slots: Vec<Slot>,
    (kept, red, n): (Dims<'_>, Dims<'_>, u64),
    fin2: &str,
    out: &str,
) -> Kernel {
    let fin1 = format!("let a = s1 / {};", n_f32(n));
    let p = Phases {
        init1: "0.0",
        map1: "v",
        comb1: "p + q",
        fin1: &fin1,
        init2: "0.0",
        map2: "(v - a) * (v - a)",
        comb2: "p + q",
        fin2,
        out,
    };
    phases_kernel(l, label, bindings, slots, kept, red, &p)
}
