//! Recurrent networks: gru ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder) gru), gruCell,
//! lstm and lstmCell, float32 and float16 (computed in f32, rounded once when stored), with the CPU
//! engine's semantics (webnn-cpu kernels/recurrent.rs): the cells are one-step, one-direction
//! networks without the leading `numDirections`/`steps` dimensions; missing biases, peephole
//! weights and initial states are zeros; gru gates use `activations[0]` (z, r) and `activations[1]`
//! (n), lstm `activations[0]` (i, o, f), `[1]` (g) and `[2]` (cell output); the lstm output-gate
//! peephole uses the previous cell state; the sequence output is indexed by input time step
//! for both directions (`[steps, numDirections, batch, hidden]`).
//!
//! Design (one dispatch list per op, recorded in order in one command buffer):
//! 1. `pack`: the recurrent weights of every direction transposed to `[hidden][G·hidden]` f32
//!    in an internal gate order (gru z, r, n; lstm i, o, f, g), so that neighbouring threads
//!    read neighbouring weights; the input bias with `recurrentBias` pre-added (for gru with
//!    `resetAfter` the new gate's recurrentBias is kept apart: it goes inside `r ⊙ (…)`); the
//!    peephole weights; and a 1.0 (see Numerics).
//! 2. the input projection of every step and direction at once with matmul.rs's tiled GEMM
//!    (`xw[d][t·batch + b] = x[t][b] · W[d]ᵀ + bias`).
//! 3. `init`: the initial hidden (and cell) state into a state buffer, and a step counter.
//! 4. per step: `recurrent product` (one invocation per direction × batch × gate row: the dot
//!    product of the state with one transposed weight row, into `gt`), then `step` (one
//!    invocation per direction × batch × hidden unit: `xw + gt`, the gate math, the new state
//!    into the other of two ping-pong state buffers, the sequence output). gru without
//!    `resetAfter` runs product(z, r) → `reset` (r ⊙ h) → product(n over r ⊙ h) → step. Every
//!    step runs the same WGSL (one pipeline per kernel): the step number is a counter stored
//!    after the state (as an f32 value), which invocation 0 of `step` advances in the next
//!    buffer.
//! 5. `final`: the last state into the output(s).
//!
//! Numerics (these follow the CPU engine's rounding, because the WPT vectors with relu
//! activations have cancellations that turn a one-ULP difference inside into 4 to 11 ULPs
//! out; both failures were seen: lavapipe folding the input projection into the recurrent
//! sum, and an NVIDIA H200 with fused multiply-adds):
//! - the recurrent dot products are a kernel of their own (no driver can fold `xw` into the
//!   sum) and use the CPU engine's order (sequential below 16 terms, else eight interleaved
//!   partial sums combined pairwise, then the tail);
//! - every `a·b + c` of the step kernels is written `(a·b)·one + c` with `one` = 1.0 read
//!   from the packed buffer: a driver that contracts it gets `fma(round(a·b), one, c)`, which
//!   is the separately rounded result, so products are rounded before they are added on
//!   every driver (WGSL cannot mark an expression NoContraction);
//! - the input projection is the tiled GEMM's fma chain (the CPU engine: unfused, eight
//!   partial sums) — exact on the WPT vectors;
//! - sigmoid is `1/(1+e)` / `e/(1+e)` with `e = exp(−|x|)`; tanh is its Taylor polynomial to
//!   x¹⁹ for |x| < 0.55 (truncation < 1e-9 relative) and `sign(x)·(1 − e)/(1 + e)` with
//!   `e = exp(−2|x|)` beyond; exp is range-reduced (`2ⁿ·exp(r)`, |r| ≤ ln2/2) since WGSL's
//!   exp loses |x|·2⁻²⁴ relative accuracy. Measured against f64 over [−170, 170] (unit test
//!   below): tanh ≤ 2 ULP, sigmoid ≤ 3 ULP on both lavapipe and an NVIDIA H200.

use super::matmul::{tiled, Tiled};
use super::{Kernel, Lowering, Slot, Task, Work};
use crate::wgsl::{self, Binding};
use std::fmt::Write;
use webnn_core::graph::{Attrs, Operation};
use webnn_core::{DataType, Error, OpKind, OperandId, RecurrentNetworkActivation, RecurrentNetworkDirection, Result};

/// Activation helpers (f32).
const HELPERS: &str = r"
fn relu_(x: f32) -> f32 {
    return select(x, 0.0, x < 0.0);
}
fn is_nan_(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
// e^x for x <= 0 with range reduction: WGSL's exp (exp2 of x·log2 e) loses |x|·2^-24
// relative accuracy for large |x|; here exp only sees |r| <= ln 2 / 2.
fn exp_(x: f32) -> f32 {
    let y = max(x, -104.0);
    let n = round(y * 1.4426950408889634);
    let r = (y - n * 0.693145751953125) - n * 1.4286068202862268e-06;
    return ldexp(exp(r), i32(n));
}
fn sigmoid_(x: f32) -> f32 {
    if (is_nan_(x)) { return x; }
    let e = exp_(-abs(x));
    return select(e / (1.0 + e), 1.0 / (1.0 + e), x >= 0.0);
}
fn tanh_(x: f32) -> f32 {
    let a = abs(x);
    if (a < 0.55) {
        let x2 = x * x;
        var p = -0.00023912911424355248;
        p = p * x2 + 0.000590027440945586;
        p = p * x2 - 0.0014558343870513183;
        p = p * x2 + 0.003592128036572481;
        p = p * x2 - 0.008863235529902197;
        p = p * x2 + 0.021869488536155203;
        p = p * x2 - 0.05396825396825397;
        p = p * x2 + 0.13333333333333333;
        p = p * x2 - 0.3333333333333333;
        return x + x * x2 * p;
    }
    if (is_nan_(x)) { return x; }
    let e = exp_(-2.0 * a);
    let r = (1.0 - e) / (1.0 + e);
    return select(-r, r, x >= 0.0);
}
";

/// Whether this family executes `member` of `op` with `dt` (a type the GPU stores).
pub(super) fn executes(op: OpKind, member: &str, dt: DataType) -> bool {
    let _ = member;
    matches!(op, OpKind::Gru | OpKind::GruCell | OpKind::Lstm | OpKind::LstmCell)
        && matches!(dt, DataType::Float32 | DataType::Float16)
}

fn act(a: RecurrentNetworkActivation) -> &'static str {
    match a {
        RecurrentNetworkActivation::Relu => "relu_",
        RecurrentNetworkActivation::Sigmoid => "sigmoid_",
        RecurrentNetworkActivation::Tanh => "tanh_",
    }
}

/// One recurrent op, resolved.
struct Net {
    lstm: bool,
    reset_after: bool,
    dt: DataType,
    steps: u32,
    batch: u32,
    input: u32,
    hidden: u32,
    dirs: u32,
    backward_only: bool,
    gates: u32,
    /// Source gate block (in the operands' layout) of each internal gate block.
    src: [u32; 4],
    acts: [&'static str; 3],
    x: OperandId,
    w: OperandId,
    r: OperandId,
    bias: Option<OperandId>,
    rbias: Option<OperandId>,
    peep: Option<OperandId>,
    h0: Option<OperandId>,
    c0: Option<OperandId>,
    out_h: OperandId,
    out_c: Option<OperandId>,
    out_seq: Option<OperandId>,
}

/// Offsets (f32 elements) in one direction's packed weights.
struct Pack {
    /// `[hidden][G·hidden]` transposed recurrent weights.
    rt_end: u64,
    /// `[G·hidden]` input bias (+ recurrentBias).
    xb: u64,
    xb_end: u64,
    /// `[hidden]` gru resetAfter: the new gate's recurrentBias.
    rbn: u64,
    rbn_end: u64,
    /// `[3·hidden]` lstm peephole (i, o, f).
    peep: u64,
    /// Elements per direction.
    stride: u64,
}

fn resolve(op: &Operation, l: &Lowering) -> Result<Net> {
    let is_cell = matches!(op.kind, OpKind::GruCell | OpKind::LstmCell);
    let (lstm, reset_after, steps_attr, hidden, return_sequence, direction, src, acts) = match (&op.attrs, op.kind) {
        (
            Attrs::Gru { steps, hidden_size, reset_after, return_sequence, direction, layout, activations },
            OpKind::Gru | OpKind::GruCell,
        ) => {
            let [z, r, n] = layout.gate_blocks();
            let src = [z, r, n, 0];
            let acts = [act(activations[0]), act(activations[1]), "tanh_"];
            (false, *reset_after, *steps, *hidden_size, *return_sequence, *direction, src, acts)
        }
        (
            Attrs::Lstm { steps, hidden_size, return_sequence, direction, layout, activations },
            OpKind::Lstm | OpKind::LstmCell,
        ) => {
            let src = layout.gate_blocks();
            (true, false, *steps, *hidden_size, *return_sequence, *direction, src, activations.map(act))
        }
        _ => return Err(Error::not_supported(format!("{}: unexpected attributes", op.kind))),
    };
    // Input slots: input, weight, recurrentWeight, bias, recurrentBias, peephole, hidden, cell.
    let slots: [Option<usize>; 8] = match op.kind {
        OpKind::Gru => [Some(0), Some(1), Some(2), Some(3), Some(4), None, Some(5), None],
        OpKind::GruCell => [Some(0), Some(1), Some(2), Some(4), Some(5), None, Some(3), None],
        OpKind::Lstm => [Some(0), Some(1), Some(2), Some(3), Some(4), Some(5), Some(6), Some(7)],
        _ => [Some(0), Some(1), Some(2), Some(5), Some(6), Some(7), Some(3), Some(4)],
    };
    let get = |k: usize| slots[k].and_then(|s| op.input(s));
    let (Some(x), Some(w), Some(r)) = (get(0), get(1), get(2)) else {
        return Err(Error::not_supported(format!("{}: missing operands", op.kind)));
    };
    let dt = l.data_type(x);
    if !matches!(dt, DataType::Float32 | DataType::Float16) {
        return Err(Error::not_supported(format!("{} on {dt}", op.kind)));
    }
    let (steps, batch, input) = match (is_cell, l.shape(x)) {
        (true, &[b, i]) => (1, b, i),
        (false, &[s, b, i]) if s == steps_attr => (s, b, i),
        (_, s) => return Err(Error::not_supported(format!("{}: unexpected input shape {s:?}", op.kind))),
    };
    let (dirs, backward_only) = match (is_cell, direction) {
        (true, _) | (false, RecurrentNetworkDirection::Forward) => (1u32, false),
        (false, RecurrentNetworkDirection::Backward) => (1, true),
        (false, RecurrentNetworkDirection::Both) => (2, false),
    };
    let gates: u32 = if lstm { 4 } else { 3 };
    let gh = gates as u64 * hidden as u64;
    let check = |id: Option<OperandId>, n: u64| -> Result<Option<OperandId>> {
        match id {
            Some(id) if l.data_type(id) != dt || l.elements(id) != n => {
                Err(Error::not_supported(format!("{}: operand shape {:?} does not match", op.kind, l.shape(id))))
            }
            _ => Ok(id),
        }
    };
    let d = dirs as u64;
    let state = d * batch as u64 * hidden as u64;
    check(Some(w), d * gh * input as u64)?;
    check(Some(r), d * gh * hidden as u64)?;
    let bias = check(get(3), d * gh)?;
    let rbias = check(get(4), d * gh)?;
    let peep = if lstm { check(get(5), d * 3 * hidden as u64)? } else { None };
    let h0 = check(get(6), state)?;
    let c0 = if lstm { check(get(7), state)? } else { None };
    let outs = &op.outputs;
    let (out_c, out_seq) = if lstm {
        (outs.get(1).copied(), if return_sequence && !is_cell { outs.get(2).copied() } else { None })
    } else {
        (None, if return_sequence && !is_cell { outs.get(1).copied() } else { None })
    };
    let Some(&out_h) = outs.first() else {
        return Err(Error::not_supported(format!("{}: missing outputs", op.kind)));
    };
    if lstm && out_c.is_none() {
        return Err(Error::not_supported(format!("{}: missing outputs", op.kind)));
    }
    for (id, n) in [(Some(out_h), state), (out_c, state), (out_seq, steps as u64 * state)] {
        check(id, n)?;
    }
    Ok(Net {
        lstm,
        reset_after,
        dt,
        steps,
        batch,
        input,
        hidden,
        dirs,
        backward_only,
        gates,
        src: src.map(|b| b as u32),
        acts,
        x,
        w,
        r,
        bias,
        rbias,
        peep,
        h0,
        c0,
        out_h,
        out_c,
        out_seq,
    })
}

/// A kernel running `body` once per `i < n` (u32), with `bindings` bound to `slots`.
fn each(
    l: &Lowering,
    label: &str,
    bindings: &[Binding],
    slots: Vec<Slot>,
    helpers: &str,
    body: &str,
    n: u64,
) -> Kernel {
    let (workgroups, row) = wgsl::grid(n, l.max_workgroups);
    let mut code = wgsl::declarations(bindings);
    code.push_str(helpers);
    let _ = write!(code, "\n{}{body}\n}}\n", wgsl::indexed_main("i", row, n));
    l.custom(label, code, slots, workgroups)
}

/// Lowers an op of this family, or None if `op` is not one.
pub(super) fn lower(op: &Operation, l: &Lowering) -> Result<Option<Work>> {
    if !matches!(op.kind, OpKind::Gru | OpKind::GruCell | OpKind::Lstm | OpKind::LstmCell) {
        return Ok(None);
    }
    let net = resolve(op, l)?;
    let label = op.kind.idl_name();
    let (h, b, g, dirs, steps) =
        (net.hidden as u64, net.batch as u64, net.gates as u64, net.dirs as u64, net.steps as u64);
    let gh = g * h;
    let dt = net.dt;

    // Packed weights layout (per direction).
    let rt_end = h * gh;
    let xb = rt_end;
    let xb_end = xb + gh;
    let rbn = xb_end;
    let rbn_end = rbn + if !net.lstm && net.reset_after { h } else { 0 };
    let peep = rbn_end;
    let stride = peep + if net.peep.is_some() { 3 * h } else { 0 };
    let pk = Pack { rt_end, xb, xb_end, rbn, rbn_end, peep, stride };

    let dbh = dirs * b * h;
    if dbh == 0 {
        // Every output is empty.
        return Ok(Some(Work::default()));
    }
    let state_len = dbh * if net.lstm { 2 } else { 1 };
    let cnt = state_len;
    let m = steps * b;
    let bytes = |n: u64| -> Result<u64> {
        let v = n.max(1) * 4;
        if v > u32::MAX as u64 {
            return Err(Error::not_supported(format!("{}: too large for the GPU ({v} bytes of scratch)", op.kind)));
        }
        Ok(v)
    };
    let mut scratch = vec![
        bytes(dirs * pk.stride + 1)?,
        bytes(dirs * m * gh)?,
        bytes(state_len + 1)?,
        bytes(state_len + 1)?,
        bytes(dbh * g)?,
    ];
    let split = !net.lstm && !net.reset_after;
    if split {
        scratch.push(bytes(dbh)?);
    }
    let (p_, xw_, sa, sb, gt_, rh_) =
        (Slot::Scratch(0), Slot::Scratch(1), Slot::Scratch(2), Slot::Scratch(3), Slot::Scratch(4), Slot::Scratch(5));
    let mut tasks = Vec::new();
    let src_fn = format!(
        "fn src_(g: u32) -> u32 {{ return select(select(select({}u, {}u, g == 2u), {}u, g == 1u), {}u, g == 0u); }}\n",
        net.src[3], net.src[2], net.src[1], net.src[0]
    );

    // 1. Pack.
    {
        let mut bindings = vec![Binding::read("r_", dt)];
        let mut slots = vec![Slot::Operand(net.r)];
        for (name, id) in [("b_", net.bias), ("rb_", net.rbias), ("pw_", net.peep)] {
            if let Some(id) = id {
                bindings.push(Binding::read(name, dt));
                slots.push(Slot::Operand(id));
            }
        }
        bindings.push(Binding::write("p_", DataType::Float32));
        slots.push(p_);
        let ld =
            |name: &str, present: bool, idx: &str| if present { wgsl::load(dt, name, idx) } else { "0.0".to_string() };
        let rb_in_x = if !net.lstm && net.reset_after { "select(rbv, 0.0, g == 2u)" } else { "rbv" };
        let body = format!(
            "if (i == {one}u) {{\n  p_[i] = 1.0;\n  return;\n}}\nlet d = i / {s}u;\nlet o = i % {s}u;\n\
             if (o < {rt_end}u) {{\n  let k = o / {gh}u;\n  let rr = o % {gh}u;\n  let g = rr / {h}u;\n  let j = rr % {h}u;\n  \
             p_[i] = {r};\n  return;\n}}\n\
             if (o < {xb_end}u) {{\n  let rr = o - {xb}u;\n  let g = rr / {h}u;\n  let j = rr % {h}u;\n  let s = d * {gh}u + src_(g) * {h}u + j;\n  \
             let bv = {bv};\n  let rbv = {rbv};\n  p_[i] = bv + {rb_in_x};\n  return;\n}}\n\
             if (o < {rbn_end}u) {{\n  let j = o - {rbn}u;\n  p_[i] = {rbn_v};\n  return;\n}}\n\
             p_[i] = {pv};",
            s = pk.stride,
            one = dirs * pk.stride,
            rt_end = pk.rt_end,
            xb_end = pk.xb_end,
            xb = pk.xb,
            rbn_end = pk.rbn_end,
            rbn = pk.rbn,
            r = wgsl::load(dt, "r_", &format!("(d * {gh}u + src_(g) * {h}u + j) * {h}u + k")),
            bv = ld("b_", net.bias.is_some(), "s"),
            rbv = ld("rb_", net.rbias.is_some(), "s"),
            rbn_v = ld("rb_", net.rbias.is_some(), &format!("d * {gh}u + {}u + j", 2 * h)),
            pv = ld("pw_", net.peep.is_some(), &format!("d * {}u + o - {}u", 3 * h, pk.peep)),
        );
        tasks.push(Task::Kernel(each(
            l,
            &format!("{label} pack"),
            &bindings,
            slots,
            &src_fn,
            &body,
            dirs * pk.stride + 1,
        )));
    }

    // 2. Input projection with bias, internal gate order.
    if m > 0 && gh > 0 {
        let (m32, n32, k32) = (m as u32, gh as u32, net.input);
        let inv = {
            let mut inv = [0u32; 4];
            for (gi, &s) in net.src.iter().enumerate().take(g as usize) {
                inv[s as usize] = gi as u32;
            }
            inv
        };
        let helpers = format!(
            "fn inv_(g: u32) -> u32 {{ return select(select(select({}u, {}u, g == 2u), {}u, g == 1u), {}u, g == 0u); }}\n",
            inv[3], inv[2], inv[1], inv[0]
        );
        let kk = net.input;
        let t = Tiled {
            label: format!("{label} input projection"),
            bindings: vec![
                Binding::read("x_", dt),
                Binding::read("w_", dt),
                Binding::read("p_", DataType::Float32),
                Binding::write("xw_", DataType::Float32),
            ],
            slots: vec![Slot::Operand(net.x), Slot::Operand(net.w), p_, xw_],
            helpers,
            batches: dirs,
            m: m32,
            n: n32,
            k: k32,
            prologue: String::new(),
            load_a: format!("v = {};", wgsl::load(dt, "x_", &format!("gm * {kk}u + gk"))),
            load_b: format!("v = {};", wgsl::load(dt, "w_", &format!("(z * {gh}u + gn) * {kk}u + gk"))),
            store: format!(
                "    let c = inv_(gn / {h}u) * {h}u + gn % {h}u;\n    xw_[(z * {m}u + gm) * {gh}u + c] = v + p_[z * {}u + {}u + c];",
                pk.stride, pk.xb
            ),
            a_k_fast: true,
            b_n_fast: false,
        };
        tasks.push(Task::Kernel(tiled(l, t)?));
    }

    // 3. Initial state and counter.
    {
        let mut bindings = Vec::new();
        let mut slots = Vec::new();
        for (name, id) in [("h0_", net.h0), ("c0_", net.c0)] {
            if let Some(id) = id {
                bindings.push(Binding::read(name, dt));
                slots.push(Slot::Operand(id));
            }
        }
        bindings.push(Binding::write("s_", DataType::Float32));
        slots.push(sa);
        let mut body = format!(
            "if (i == 0u) {{ s_[{cnt}u] = 0.0; }}\ns_[i] = {};\n",
            net.h0.map_or("0.0".to_string(), |_| wgsl::load(dt, "h0_", "i"))
        );
        if net.lstm {
            let _ = writeln!(
                body,
                "s_[{dbh}u + i] = {};",
                net.c0.map_or("0.0".to_string(), |_| wgsl::load(dt, "c0_", "i"))
            );
        }
        tasks.push(Task::Kernel(each(l, &format!("{label} init"), &bindings, slots, "", &body, dbh)));
    }

    // 4. Steps.
    let back = if dirs == 2 {
        "d == 1u"
    } else if net.backward_only {
        "true"
    } else {
        "false"
    };
    // Per (direction, batch, unit) kernels: `pre(g)` is gate g's pre-activation.
    let head = format!(
        "let j = i % {h}u;\nlet bb = i / {h}u;\nlet d = bb / {b}u;\nlet s = u32(sin_[{cnt}u]);\n\
         let t = select(s, {}u - s, {back});\nlet pb = d * {}u;\nlet xb = ((d * {steps}u + t) * {b}u + bb % {b}u) * {gh}u;\n\
         let gb = bb * {gh}u;\n",
        steps.saturating_sub(1),
        pk.stride
    );
    let pre = |gi: u64| format!("(xw_[xb + {o}u + j] + gt_[gb + {o}u + j])", o = gi * h);
    // The recurrent products of gate rows [r0, r0 + rows) with state `from`, into gt_: a
    // kernel of their own, so that no driver folds the input projection into the sum.
    let dots = |r0: u64, rows: u64, from: Slot| -> Task {
        let bindings = [
            Binding::read("p_", DataType::Float32),
            Binding::read("h_", DataType::Float32),
            Binding::write("gt_", DataType::Float32),
        ];
        // The CPU engine's summation order: sequential below 16 terms, else eight
        // interleaved partial sums combined pairwise, then the tail.
        let term = |k: &str| format!("(p_[rk + ({k}) * {gh}u] * h_[hb + {k}]) * one");
        let sum = if h < 16 {
            format!("var a: f32 = 0.0;\nfor (var k: u32 = 0u; k < {h}u; k++) {{\n  a = a + {};\n}}\n", term("k"))
        } else {
            let mut c = String::from(
                "var l0: f32 = 0.0;\nvar l1: f32 = 0.0;\nvar l2: f32 = 0.0;\nvar l3: f32 = 0.0;\n\
                 var l4: f32 = 0.0;\nvar l5: f32 = 0.0;\nvar l6: f32 = 0.0;\nvar l7: f32 = 0.0;\n",
            );
            let _ = writeln!(c, "for (var k: u32 = 0u; k < {}u; k += 8u) {{", h - h % 8);
            for q in 0..8 {
                let _ = writeln!(c, "  l{q} = l{q} + {};", term(&format!("k + {q}u")));
            }
            let _ = write!(
                c,
                "}}\nvar tail: f32 = 0.0;\nfor (var k: u32 = {}u; k < {h}u; k++) {{\n  tail = tail + {};\n}}\n\
                 let a = (((l0 + l4) + (l1 + l5)) + ((l2 + l6) + (l3 + l7))) + tail;\n",
                h - h % 8,
                term("k")
            );
            c
        };
        let body = format!(
            "let one = p_[{one}u];\nlet row = {r0}u + i % {rows}u;\nlet bb = i / {rows}u;\nlet d = bb / {b}u;\nlet hb = bb * {h}u;\n\
             let rk = d * {}u + row;\n{sum}gt_[bb * {gh}u + row] = a;",
            pk.stride,
            one = dirs * pk.stride
        );
        Task::Kernel(each(
            l,
            &format!("{label} recurrent product"),
            &bindings,
            vec![p_, from, gt_],
            "",
            &body,
            dbh * rows / h,
        ))
    };
    let [a0, a1, a2] = net.acts;
    let seq_store = net.out_seq.map(|_| wgsl::store(dt, "seq_", &format!("(t * {}u + bb) * {h}u + j", dirs * b), "hn"));
    let step = |sin: Slot, sout: Slot| -> Vec<Task> {
        let mut out = Vec::new();
        if split {
            out.push(dots(0, 2 * h, sin));
            let bindings = [
                Binding::read("xw_", DataType::Float32),
                Binding::read("gt_", DataType::Float32),
                Binding::read("sin_", DataType::Float32),
                Binding::write("rh_", DataType::Float32),
            ];
            let body = format!("{head}let r = {a0}({});\nrh_[i] = r * sin_[i];", pre(1));
            out.push(Task::Kernel(each(
                l,
                &format!("{label} reset"),
                &bindings,
                vec![xw_, gt_, sin, rh_],
                HELPERS,
                &body,
                dbh,
            )));
            out.push(dots(2 * h, h, rh_));
        } else {
            out.push(dots(0, gh, sin));
        }
        let mut bindings = vec![
            Binding::read("xw_", DataType::Float32),
            Binding::read("gt_", DataType::Float32),
            Binding::read("sin_", DataType::Float32),
            Binding::write("sout_", DataType::Float32),
        ];
        let mut slots = vec![xw_, gt_, sin, sout];
        bindings.push(Binding::read("p_", DataType::Float32));
        slots.push(p_);
        if let Some(seq) = net.out_seq {
            bindings.push(Binding::write("seq_", dt));
            slots.push(Slot::Operand(seq));
        }
        let mut body = format!("{head}let one = p_[{}u];\n", dirs * pk.stride);
        if net.lstm {
            let _ = write!(
                body,
                "let c = sin_[{dbh}u + i];\nvar pi = {};\nvar po = {};\nvar pf = {};\nlet pg = {};\n",
                pre(0),
                pre(1),
                pre(2),
                pre(3)
            );
            if net.peep.is_some() {
                let _ = write!(
                    body,
                    "pi = pi + (c * p_[pb + {p}u + j]) * one;\npo = po + (c * p_[pb + {}u + j]) * one;\n\
                     pf = pf + (c * p_[pb + {}u + j]) * one;\n",
                    pk.peep + h,
                    pk.peep + 2 * h,
                    p = pk.peep
                );
            }
            let _ = write!(
                body,
                "let ig = {a0}(pi);\nlet og = {a0}(po);\nlet fg = {a0}(pf);\nlet gg = {a1}(pg);\n\
                 let cn = (fg * c) * one + (ig * gg) * one;\nlet hn = og * {a2}(cn);\nsout_[i] = hn;\nsout_[{dbh}u + i] = cn;\n"
            );
        } else if net.reset_after {
            let _ = write!(
                body,
                "let z = {a0}({});\nlet r = {a0}({});\n\
                 let n = {a1}(xw_[xb + {}u + j] + (r * (gt_[gb + {}u + j] + p_[pb + {}u + j])) * one);\n\
                 let hp = sin_[i];\nlet hn = (z * hp) * one + (n * (1.0 - z)) * one;\nsout_[i] = hn;\n",
                pre(0),
                pre(1),
                2 * h,
                2 * h,
                pk.rbn
            );
        } else {
            let _ = write!(
                body,
                "let z = {a0}({});\nlet n = {a1}({});\nlet hp = sin_[i];\nlet hn = (z * hp) * one + (n * (1.0 - z)) * one;\nsout_[i] = hn;\n",
                pre(0),
                pre(2)
            );
        }
        if let Some(st) = &seq_store {
            let _ = writeln!(body, "{st}");
        }
        let _ = write!(body, "if (i == 0u) {{ sout_[{cnt}u] = f32(s + 1u); }}");
        out.push(Task::Kernel(each(l, &format!("{label} step"), &bindings, slots, HELPERS, &body, dbh)));
        out
    };
    for s in 0..steps {
        let (sin, sout) = if s % 2 == 0 { (sa, sb) } else { (sb, sa) };
        tasks.extend(step(sin, sout));
    }

    // 5. Final state into the outputs.
    {
        let last = if steps % 2 == 0 { sa } else { sb };
        let mut bindings = vec![Binding::read("s_", DataType::Float32), Binding::write("h_", dt)];
        let mut slots = vec![last, Slot::Operand(net.out_h)];
        let mut body = wgsl::store(dt, "h_", "i", "s_[i]");
        if let Some(c) = net.out_c {
            bindings.push(Binding::write("c_", dt));
            slots.push(Slot::Operand(c));
            let _ = write!(body, "\n{}", wgsl::store(dt, "c_", "i", &format!("s_[{dbh}u + i]")));
        }
        tasks.push(Task::Kernel(each(l, &format!("{label} final"), &bindings, slots, "", &body, dbh)));
    }
    Ok(Some(Work { scratch, tasks }))
}

#[cfg(test)]
mod tests {
    use crate::testing::{backend, data, run, time};
    use webnn_core::testing::ulp_f32;
    use webnn_core::{
        GruCellOptions, GruOptions, GruWeightLayout, LstmOptions, LstmWeightLayout, RecurrentNetworkActivation as A,
        RecurrentNetworkDirection as Dir,
    };

    /// gruCell with z ≡ relu(0) = 0, unit input weights and no recurrence: h = act(x).
    fn activation(act: A, xs: &[f32]) -> Vec<f32> {
        let gpu = backend().expect("a GPU adapter");
        let n = xs.len() as u32;
        let ins = [xs.to_vec(), vec![0.0, 0.0, 1.0], vec![0.0; 3], vec![0.0; n as usize]];
        run(gpu, &[&[n, 1], &[3, 1], &[3, 1], &[n, 1]], &ins, |g, o| {
            let opts = GruCellOptions { activations: Some(vec![A::Relu, act]), ..Default::default() };
            g.gru_cell(&o[0], &o[1], &o[2], &o[3], 1, &opts).unwrap()
        })
    }

    #[test]
    fn activations_keep_relative_accuracy() {
        if backend().is_none() {
            return;
        }
        let mut xs: Vec<f32> = (-4000..=4000).map(|i| i as f32 * 0.0025).collect();
        xs.extend((0..200).map(|i| 1e-6f32 * 1.1f32.powi(i) * if i % 2 == 0 { 1.0 } else { -1.0 }));
        xs.extend([0.0, -0.0, 30.0, -30.0, 100.0, -100.0]);
        for (act, f, bound) in
            [(A::Tanh, (|x: f64| x.tanh()) as fn(f64) -> f64, 4u64), (A::Sigmoid, |x: f64| 1.0 / (1.0 + (-x).exp()), 4)]
        {
            let got = activation(act, &xs);
            // Subnormal results (sigmoid below -87) may be flushed to zero.
            let err = |g: f32, w: f64| {
                if w.abs() < f32::MIN_POSITIVE as f64 {
                    (g.abs() > f32::MIN_POSITIVE) as u64 * 999
                } else {
                    ulp_f32(g, w)
                }
            };
            let worst = xs.iter().zip(&got).map(|(&x, &g)| (err(g, f(x as f64)), x)).max_by_key(|p| p.0).unwrap();
            eprintln!("{act:?}: worst {} ULP at x = {}", worst.0, worst.1);
            assert!(worst.0 <= bound, "{act:?}: {} ULP at x = {}", worst.0, worst.1);
        }
    }

    /// The CPU engine's gru / lstm in f64: `(output0, last output)` for one direction.
    #[allow(clippy::too_many_arguments)]
    fn reference(
        lstm: bool,
        reset_after: bool,
        src: [usize; 4],
        dirs: usize,
        steps: usize,
        batch: usize,
        inp: usize,
        hid: usize,
        v: &[Vec<f32>],
    ) -> (Vec<f64>, Vec<f64>) {
        let g = if lstm { 4 } else { 3 };
        let gh = g * hid;
        let sig = |x: f64| 1.0 / (1.0 + (-x).exp());
        let (x, w, r, b, rb) = (&v[0], &v[1], &v[2], &v[3], &v[4]);
        let mut hs = vec![0.0; dirs * batch * hid];
        let mut seq = vec![0.0; steps * dirs * batch * hid];
        for d in 0..dirs {
            for bb in 0..batch {
                let mut h: Vec<f64> = (0..hid).map(|j| v[5][(d * batch + bb) * hid + j] as f64).collect();
                let mut c: Vec<f64> =
                    if lstm { (0..hid).map(|j| v[6][(d * batch + bb) * hid + j] as f64).collect() } else { vec![] };
                for s in 0..steps {
                    let t = if d == 1 { steps - 1 - s } else { s };
                    let row = |gi: usize, j: usize| d * gh + src[gi] * hid + j;
                    let xw = |gi: usize, j: usize| -> f64 {
                        (0..inp)
                            .map(|k| x[(t * batch + bb) * inp + k] as f64 * w[row(gi, j) * inp + k] as f64)
                            .sum::<f64>()
                            + b[row(gi, j)] as f64
                    };
                    let rh = |gi: usize, j: usize, h: &[f64]| -> f64 {
                        (0..hid).map(|k| r[row(gi, j) * hid + k] as f64 * h[k]).sum::<f64>()
                    };
                    let mut nh = vec![0.0; hid];
                    if lstm {
                        let p = &v[7];
                        for j in 0..hid {
                            let pre = |gi: usize| xw(gi, j) + rb[row(gi, j)] as f64 + rh(gi, j, &h);
                            let pp = |q: usize| p[d * 3 * hid + q * hid + j] as f64 * c[j];
                            let (i, o, f, gg) =
                                (sig(pre(0) + pp(0)), sig(pre(1) + pp(1)), sig(pre(2) + pp(2)), pre(3).tanh());
                            c[j] = f * c[j] + i * gg;
                            nh[j] = o * c[j].tanh();
                        }
                    } else {
                        let rr: Vec<f64> =
                            (0..hid).map(|j| sig(xw(1, j) + rb[row(1, j)] as f64 + rh(1, j, &h))).collect();
                        let rhv: Vec<f64> = (0..hid).map(|k| rr[k] * h[k]).collect();
                        for j in 0..hid {
                            let z = sig(xw(0, j) + rb[row(0, j)] as f64 + rh(0, j, &h));
                            let n = if reset_after {
                                (xw(2, j) + rr[j] * (rh(2, j, &h) + rb[row(2, j)] as f64)).tanh()
                            } else {
                                (xw(2, j) + rb[row(2, j)] as f64 + rh(2, j, &rhv)).tanh()
                            };
                            nh[j] = z * h[j] + n * (1.0 - z);
                        }
                    }
                    h = nh;
                    seq[((t * dirs + d) * batch + bb) * hid..][..hid].copy_from_slice(&h);
                }
                hs[(d * batch + bb) * hid..][..hid].copy_from_slice(&h);
            }
        }
        (hs, seq)
    }

    fn close(what: &str, got: &[f32], want: &[f64]) {
        assert_eq!(got.len(), want.len(), "{what}: length");
        for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
            assert!((g as f64 - w).abs() <= 2e-5 * (1.0 + w.abs()), "{what}: element {i}: got {g}, want {w}");
        }
    }

    #[test]
    fn networks_match_a_f64_reference() {
        let Some(gpu) = backend() else { return };
        let (steps, batch, inp, hid, dirs) = (4u32, 3u32, 7u32, 37u32, 2u32);
        let (s, b, i, h, d) = (steps as usize, batch as usize, inp as usize, hid as usize, dirs as usize);
        let scaled = |n: usize, seed: u64| data(n, seed).iter().map(|v| v * 0.3).collect::<Vec<f32>>();
        for lstm in [false, true] {
            let g = if lstm { 4 } else { 3 };
            let mut v = vec![
                scaled(s * b * i, 1),
                scaled(d * g * h * i, 2),
                scaled(d * g * h * h, 3),
                scaled(d * g * h, 4),
                scaled(d * g * h, 5),
                scaled(d * b * h, 6),
            ];
            let mut shapes: Vec<Vec<u32>> = vec![
                vec![steps, batch, inp],
                vec![dirs, g as u32 * hid, inp],
                vec![dirs, g as u32 * hid, hid],
                vec![dirs, g as u32 * hid],
                vec![dirs, g as u32 * hid],
                vec![dirs, batch, hid],
            ];
            if lstm {
                v.push(scaled(d * b * h, 7));
                v.push(scaled(d * 3 * h, 8));
                shapes.push(vec![dirs, batch, hid]);
                shapes.push(vec![dirs, 3 * hid]);
            }
            let shape_refs: Vec<&[u32]> = shapes.iter().map(|s| s.as_slice()).collect();
            let cases: Vec<(bool, [usize; 4])> =
                if lstm { vec![(false, [0, 3, 1, 2])] } else { vec![(true, [1, 0, 2, 0]), (false, [0, 1, 2, 0])] };
            for (reset_after, src) in cases {
                let (want_h, want_seq) = reference(lstm, reset_after, src, d, s, b, i, h, &v);
                for (which, want) in [(0usize, &want_h), (1, &want_seq)] {
                    let got = run(gpu, &shape_refs, &v, |gb, o| {
                        let outs = if lstm {
                            let opts = LstmOptions {
                                bias: Some(o[3].clone()),
                                recurrent_bias: Some(o[4].clone()),
                                initial_hidden_state: Some(o[5].clone()),
                                initial_cell_state: Some(o[6].clone()),
                                peephole_weight: Some(o[7].clone()),
                                return_sequence: true,
                                direction: Dir::Both,
                                layout: LstmWeightLayout::Ifgo,
                                ..Default::default()
                            };
                            let outs = gb.lstm(&o[0], &o[1], &o[2], steps, hid, &opts).unwrap();
                            vec![outs[0].clone(), outs[2].clone()]
                        } else {
                            let opts = GruOptions {
                                bias: Some(o[3].clone()),
                                recurrent_bias: Some(o[4].clone()),
                                initial_hidden_state: Some(o[5].clone()),
                                reset_after,
                                return_sequence: true,
                                direction: Dir::Both,
                                layout: if src[0] == 1 { GruWeightLayout::Rzn } else { GruWeightLayout::Zrn },
                                ..Default::default()
                            };
                            gb.gru(&o[0], &o[1], &o[2], steps, hid, &opts).unwrap()
                        };
                        outs[which].clone()
                    });
                    close(&format!("lstm {lstm} resetAfter {reset_after} output {which}"), &got, want);
                }
            }
        }
    }

    /// Timing for information (`cargo test --release -p webnn-gpu --lib timing -- --ignored --nocapture`).
    #[test]
    #[ignore]
    fn timing_lstm() {
        let Some(gpu) = backend() else { return };
        for (steps, batch, inp, hid) in [(32u32, 16u32, 256u32, 256u32), (16, 64, 512, 512)] {
            let t = time(gpu, &[&[steps, batch, inp], &[1, 4 * hid, inp], &[1, 4 * hid, hid]], |g, o| {
                g.lstm(&o[0], &o[1], &o[2], steps, hid, &LstmOptions::default()).unwrap()[0].clone()
            });
            let flops = 2.0 * 4.0 * (steps * batch * hid) as f64 * (inp + hid) as f64;
            eprintln!(
                "lstm steps {steps} batch {batch} input {inp} hidden {hid}: {:.2} ms, {:.2} GFLOP/s ({})",
                t * 1e3,
                flops / t / 1e9,
                gpu.adapter_name()
            );
        }
    }
}
