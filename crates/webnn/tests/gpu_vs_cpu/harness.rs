//! The harness of the gpu_vs_cpu test: seeded inputs, comparison rules, and one case run on both contexts.

use super::*;

pub(crate) const NO: OperatorOptions = OperatorOptions { label: String::new() };

// ---------------------------------------------------------------------------------------------
// Seeded data (`webnn_core::testing::Rng`: the same inputs on every run)

/// How input values are drawn.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Gen {
    /// Uniform in [lo, hi]: reals for float types, integers for integer types (clipped to the
    /// type's range).
    Range(f64, f64),
    /// Like `Range` without values near zero (|x| ≥ 0.25 for floats, ≠ 0 for integers).
    NonZero(f64, f64),
    /// Integers in [lo, hi] for every type (floats too).
    Ints(i64, i64),
    /// Multiples of 0.5 in [lo, hi] (round-half-even ties).
    Halves(f64, f64),
    /// A few values, so that equal elements are common: {-2, -1, -0.5, 0, 0.5, 1, 2} (clipped
    /// to integers and to the type's range).
    Few,
    /// Distinct values (a shuffled arithmetic sequence): no ties for argMin / argMax.
    Distinct,
    /// Any bit pattern except NaN (so ±0, ±∞, subnormals); the whole range of integer types.
    Bits,
    /// NaN, ±∞, ±0 and ordinary values.
    Special,
    /// Indices into an axis of `n` elements: [-n, n) for signed types, [0, n) for unsigned.
    Index(u32),
    /// These values, in order, cycled.
    Values(&'static [f64]),
}

/// The range of values of an integer type (None for float types).
pub(crate) fn int_range(dt: DataType) -> Option<(i64, i64)> {
    match dt {
        Int8 => Some((-128, 127)),
        Uint8 => Some((0, 255)),
        Int32 => Some((i32::MIN as i64, i32::MAX as i64)),
        Uint32 => Some((0, u32::MAX as i64)),
        Int64 => Some((i64::MIN, i64::MAX)),
        Uint64 => Some((0, i64::MAX)),
        Float32 | Float16 => None,
    }
}

pub(crate) fn is_float(dt: DataType) -> bool {
    matches!(dt, Float32 | Float16)
}

/// The little-endian bytes of `v` as one element of `dt` (integers saturate).
pub(crate) fn encode(dt: DataType, v: f64, out: &mut Vec<u8>) {
    match dt {
        Float32 => out.extend((v as f32).to_le_bytes()),
        Float16 => out.extend(f16::from_f64(v).to_bits().to_le_bytes()),
        Int32 => out.extend((v as i32).to_le_bytes()),
        Uint32 => out.extend((v as u32).to_le_bytes()),
        Int64 => out.extend((v as i64).to_le_bytes()),
        Uint64 => out.extend((v as u64).to_le_bytes()),
        Int8 => out.push(v as i8 as u8),
        Uint8 => out.push(v as u8),
    }
}

pub(crate) fn elements(shape: &[u32]) -> usize {
    shape.iter().map(|&d| d as usize).product()
}

/// Random bits of a float format whose sign bit is `sign` and exponent bits are `exponent`
/// (the value in the low bits), with ±0, subnormals and ±∞ one time in 16 each; never NaN.
fn random_float_bits(rng: &mut Rng, sign: u64, exponent: u64) -> u64 {
    let mantissa = sign - 1 - exponent;
    let b = rng.next_u64() & (sign | (sign - 1));
    let b = match rng.int(0, 15) {
        0 => b & sign,
        1 => b & (sign | mantissa),
        2 => b & sign | exponent,
        _ => b,
    };
    if b & exponent == exponent {
        b & (sign | exponent)
    } else {
        b
    }
}

/// `n` elements of `dt` drawn by `gen`.
pub(crate) fn generate(rng: &mut Rng, dt: DataType, n: usize, gen: Gen) -> Vec<u8> {
    let mut out = Vec::with_capacity(n * 4);
    let clip = |lo: f64, hi: f64| match int_range(dt) {
        Some((a, b)) => (lo.ceil().max(a as f64), hi.floor().min(b as f64)),
        None => (lo, hi),
    };
    let mut distinct: Vec<i64> = (0..n as i64).collect();
    rng.shuffle(&mut distinct);
    for i in 0..n {
        match gen {
            Gen::Range(lo, hi) | Gen::NonZero(lo, hi) => {
                let (lo, hi) = clip(lo, hi);
                let v = loop {
                    let v =
                        if is_float(dt) { lo + (hi - lo) * rng.unit() } else { rng.int(lo as i64, hi as i64) as f64 };
                    let zero = if is_float(dt) { v.abs() < 0.25 } else { v == 0.0 };
                    if !matches!(gen, Gen::NonZero(..)) || !zero {
                        break v;
                    }
                };
                encode(dt, v, &mut out);
            }
            Gen::Ints(lo, hi) => {
                let (lo, hi) = clip(lo as f64, hi as f64);
                encode(dt, rng.int(lo as i64, hi as i64) as f64, &mut out);
            }
            Gen::Halves(lo, hi) => encode(dt, rng.int((lo * 2.0) as i64, (hi * 2.0) as i64) as f64 / 2.0, &mut out),
            Gen::Few => {
                let few: &[f64] =
                    if is_float(dt) { &[-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0] } else { &[-2.0, -1.0, 0.0, 1.0, 2.0] };
                let mut v = few[rng.int(0, few.len() as i64 - 1) as usize];
                if int_range(dt).is_some_and(|(lo, _)| lo == 0) {
                    v = v.abs();
                }
                encode(dt, v, &mut out);
            }
            Gen::Distinct => {
                let k = distinct[i] as f64;
                let v = match int_range(dt) {
                    Some((0, _)) => k,
                    Some(_) => k - (n / 2) as f64,
                    None => (k - (n / 2) as f64) * 0.375,
                };
                encode(dt, v, &mut out);
            }
            Gen::Bits => match dt {
                Float32 => out.extend((random_float_bits(rng, 0x8000_0000, 0x7f80_0000) as u32).to_le_bytes()),
                Float16 => out.extend((random_float_bits(rng, 0x8000, 0x7c00) as u16).to_le_bytes()),
                _ => {
                    let size = dt.byte_length_of(1);
                    out.extend(&rng.next_u64().to_le_bytes()[..size]);
                }
            },
            Gen::Special => {
                let special = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 1.5, -3.25, 65504.0, 1e-3];
                encode(dt, special[rng.int(0, special.len() as i64 - 1) as usize], &mut out);
            }
            Gen::Index(n) => {
                let lo = if matches!(dt, Uint32 | Uint64) { 0 } else { -(n as i64) };
                encode(dt, rng.int(lo, n as i64 - 1) as f64, &mut out);
            }
            Gen::Values(values) => encode(dt, values[i % values.len()], &mut out),
        }
    }
    out
}

/// The byte size of one element.
pub(crate) trait ByteLen {
    fn byte_length_of(self, n: usize) -> usize;
}

impl ByteLen for DataType {
    fn byte_length_of(self, n: usize) -> usize {
        OperandDescriptor::new(self, [n as u32]).byte_length() as usize
    }
}

// ---------------------------------------------------------------------------------------------
// Tolerances

/// How float outputs are compared (integer outputs are always compared exactly).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tol {
    /// Byte-exact (data movement).
    bits: bool,
    ulp32: u64,
    ulp16: u64,
    atol32: f64,
    atol16: f64,
}

impl Tol {
    /// Byte-exact.
    pub(crate) const BITS: Tol = Tol { bits: true, ulp32: 0, ulp16: 0, atol32: 0.0, atol16: 0.0 };
    /// Value-exact: ±0 equal, NaN equals NaN.
    pub(crate) const EXACT: Tol = Tol { bits: false, ulp32: 0, ulp16: 0, atol32: 0.0, atol16: 0.0 };

    /// Within `f32` / `f16` ULPs, or 1e-6 absolute (float32) near zero.
    pub(crate) fn ulp(f32: u64, f16: u64) -> Tol {
        Tol { bits: false, ulp32: f32, ulp16: f16, atol32: 1e-6, atol16: 0.0 }
    }

    /// Within an absolute bound (the WPT ATOL ops), or 2 ULPs.
    pub(crate) fn atol(f32: f64, f16: f64) -> Tol {
        Tol { bits: false, ulp32: 2, ulp16: 2, atol32: f32, atol16: f16 }
    }

    pub(crate) fn and_atol(mut self, f32: f64, f16: f64) -> Tol {
        self.atol32 = f32;
        self.atol16 = f16;
        self
    }
}

/// The index and text of the first element of `gpu` that differs from `cpu` beyond `tol`, and
/// the number of such elements.
pub(crate) fn compare(dt: DataType, gpu: &[u8], cpu: &[u8], tol: Tol) -> Option<(usize, String, usize)> {
    if gpu.len() != cpu.len() {
        return Some((0, format!("{} bytes, expected {}", gpu.len(), cpu.len()), 1));
    }
    let size = dt.byte_length_of(1);
    let mut first = None;
    let mut count = 0;
    for (i, (g, c)) in gpu.chunks_exact(size).zip(cpu.chunks_exact(size)).enumerate() {
        let bad = if tol.bits || !is_float(dt) {
            (g != c).then(|| format!("{} vs {}", show(dt, g), show(dt, c)))
        } else if dt == Float32 {
            let (a, e) = (f32::from_le_bytes(g.try_into().unwrap()), f32::from_le_bytes(c.try_into().unwrap()));
            let flushed = a == 0.0 && e.is_subnormal() && a.is_sign_negative() == e.is_sign_negative();
            let ok = a == e
                || flushed
                || (a.is_nan() && e.is_nan())
                || ulp_f32(a, e) <= tol.ulp32
                || (a - e).abs() as f64 <= tol.atol32;
            (!ok).then(|| format!("{a:e} vs {e:e} ({} ulp)", ulp_f32(a, e)))
        } else {
            let (a, e) = (f16::from_le_bytes(g.try_into().unwrap()), f16::from_le_bytes(c.try_into().unwrap()));
            let ok = a == e
                || (a.is_nan() && e.is_nan())
                || ulp_f16(a, e) <= tol.ulp16
                || (a.to_f64() - e.to_f64()).abs() <= tol.atol16;
            (!ok).then(|| format!("{a} vs {e} ({} ulp)", ulp_f16(a, e)))
        };
        if let Some(text) = bad {
            count += 1;
            first.get_or_insert((i, text));
        }
    }
    first.map(|(i, t)| (i, t, count))
}

/// One element as text.
pub(crate) fn show(dt: DataType, b: &[u8]) -> String {
    match dt {
        Float32 => format!(
            "{:e} ({:#010x})",
            f32::from_le_bytes(b.try_into().unwrap()),
            u32::from_le_bytes(b.try_into().unwrap())
        ),
        Float16 => {
            let h = f16::from_le_bytes(b.try_into().unwrap());
            format!("{h} ({:#06x})", h.to_bits())
        }
        Int32 => i32::from_le_bytes(b.try_into().unwrap()).to_string(),
        Uint32 => u32::from_le_bytes(b.try_into().unwrap()).to_string(),
        Int64 => i64::from_le_bytes(b.try_into().unwrap()).to_string(),
        Uint64 => u64::from_le_bytes(b.try_into().unwrap()).to_string(),
        Int8 => (b[0] as i8).to_string(),
        Uint8 => b[0].to_string(),
    }
}

/// The first elements of an input, as text (for failure reports).
pub(crate) fn preview(dt: DataType, bytes: &[u8]) -> String {
    let size = dt.byte_length_of(1);
    let shown: Vec<String> = bytes.chunks_exact(size).take(8).map(|b| show(dt, b)).collect();
    let more = if bytes.len() / size > 8 { ", ..." } else { "" };
    format!("[{}{more}]", shown.join(", "))
}

// ---------------------------------------------------------------------------------------------
// The harness

/// One operand of a case's graph: a graph input (written through a tensor) or a constant.
pub(crate) struct In {
    pub(crate) name: String,
    pub(crate) desc: OperandDescriptor,
    pub(crate) bytes: Vec<u8>,
    pub(crate) constant: bool,
}

pub(crate) type Build<'a> = &'a dyn Fn(&mut GraphBuilder, &[Operand]) -> Result<Vec<Operand>>;

/// A GPU and a CPU context, the GPU's limits, and the record of one test.
pub(crate) struct Suite {
    name: &'static str,
    ops: &'static [OpKind],
    gpu: Context,
    cpu: Context,
    limits: OpSupportLimits,
    pub(crate) rng: Rng,
    ran: Vec<String>,
    skipped: BTreeSet<String>,
    failed: Vec<String>,
}

impl Suite {
    /// The suite of one test, or None (after saying so) when there is no GPU adapter.
    pub(crate) fn new(name: &'static str, ops: &'static [OpKind]) -> Option<Suite> {
        let gpu = match ml().create_context(&ContextOptions { device: DeviceChoice::Gpu, ..Default::default() }) {
            Ok(c) => c,
            Err(e) => {
                assert_eq!(e.kind, ErrorKind::NotSupported, "{e}");
                assert!(std::env::var("WEBNN_REQUIRE_GPU").is_err(), "WEBNN_REQUIRE_GPU is set but: {e}");
                eprintln!("SKIPPED {name}: no wgpu adapter: {e}");
                return None;
            }
        };
        let cpu = ml()
            .create_context(&ContextOptions { device: DeviceChoice::Cpu, threads: Some(1), ..Default::default() })
            .expect("a CPU context");
        let limits = gpu.op_support_limits();
        // A different stream per test, the same on every run.
        let seed = name.bytes().fold(0x9E37_79B9_7F4A_7C15u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01B3));
        Some(Suite {
            name,
            ops,
            gpu,
            cpu,
            limits,
            rng: Rng::from_state(seed | 1),
            ran: vec![],
            skipped: BTreeSet::new(),
            failed: vec![],
        })
    }

    /// The data types the spec's table allows for `op`'s `member`, but int64 / uint64 (which
    /// the GPU never stores). [`Suite::run`] skips the cases of those the GPU limits leave out
    /// (after checking them on the CPU).
    pub(crate) fn types(&self, op: OpKind, member: &str) -> Vec<DataType> {
        let spec = webnn_core::limits::member_limits(op, member).map(|l| l.data_types).unwrap_or(&[]);
        spec.iter().copied().filter(|t| !matches!(t, Int64 | Uint64)).collect()
    }

    /// True if the GPU limits report `dt` for `op`'s `member`.
    pub(crate) fn allows(&self, op: OpKind, member: &str, dt: DataType) -> bool {
        self.limits.op(op).iter().any(|(m, l)| *m == member && l.data_types.contains(&dt))
    }

    /// A graph input named `name` of `dt` and `shape`, drawn by `gen`.
    pub(crate) fn input(&mut self, name: &str, dt: DataType, shape: &[u32], gen: Gen) -> In {
        let bytes = generate(&mut self.rng, dt, elements(shape), gen);
        In { name: name.to_string(), desc: OperandDescriptor::new(dt, shape.to_vec()), bytes, constant: false }
    }

    /// A constant operand of `dt` and `shape`, drawn by `gen`.
    pub(crate) fn constant(&mut self, dt: DataType, shape: &[u32], gen: Gen) -> In {
        In { constant: true, ..self.input("", dt, shape, gen) }
    }

    /// Runs one case: `build` applied to `inputs` (in order) on both contexts, if the GPU limits
    /// report every `(member, data type)` of `members` for `op`; compares every output.
    pub(crate) fn run(
        &mut self,
        op: OpKind,
        members: &[(&'static str, DataType)],
        what: &str,
        inputs: Vec<In>,
        tol: Tol,
        build: impl Fn(&mut GraphBuilder, &[Operand]) -> Result<Vec<Operand>>,
    ) {
        let combo: Vec<String> = members.iter().map(|(m, t)| format!("{m}={t}")).collect();
        let label = format!("{op} {} {what}", combo.join(" "));
        let cpu = match execute(&self.cpu, &inputs, &build) {
            Ok(r) => r,
            Err(e) => {
                self.failed.push(format!("{label}: the CPU reference failed (a bad case): {e}"));
                return;
            }
        };
        // Checked on the CPU even when skipped, so that the case is ready for the day the GPU
        // claims it.
        if let Some((m, t)) = members.iter().find(|(m, t)| !self.allows(op, m, *t)) {
            self.skipped.insert(format!("{op} {m}={t}"));
            return;
        }
        let gpu = match execute(&self.gpu, &inputs, &build) {
            Ok(r) => r,
            Err(e) => {
                self.failed.push(format!("{label}: GPU error: {e}"));
                return;
            }
        };
        let mut problems = vec![];
        for (k, ((gd, g), (cd, c))) in gpu.iter().zip(&cpu).enumerate() {
            if gd != cd {
                problems.push(format!("output {k}: GPU descriptor {gd:?}, CPU {cd:?}"));
                continue;
            }
            if let Some((i, text, count)) = compare(gd.data_type, g, c, tol) {
                problems.push(format!(
                    "output {k} {:?}: {count} of {} elements differ; first at {i}: GPU {text} (CPU)",
                    gd.shape,
                    elements(&gd.shape)
                ));
            }
        }
        if problems.is_empty() {
            self.ran.push(label);
        } else {
            let shown: Vec<String> = inputs
                .iter()
                .map(|i| format!("{} {:?} = {}", i.desc.data_type, i.desc.shape, preview(i.desc.data_type, &i.bytes)))
                .collect();
            self.failed.push(format!("{label}: {}\n      inputs: {}", problems.join("; "), shown.join("; ")));
        }
    }

    /// Prints what ran and was skipped, and fails with every difference found.
    pub(crate) fn finish(self) {
        println!(
            "gpu_vs_cpu {}: {} cases ran on {}",
            self.name,
            self.ran.len(),
            self.gpu.adapter_name().unwrap_or_default()
        );
        for r in &self.ran {
            println!("  ran     {r}");
        }
        for s in &self.skipped {
            println!("  skipped {s} (not in the GPU limits)");
        }
        // What the spec's table allows and the GPU does not execute (so nothing here runs it),
        // but int64 / uint64, which the GPU never stores.
        for &op in self.ops {
            let gpu = self.limits.op(op);
            for (member, spec) in webnn_core::limits::op_limits(op) {
                let claimed = gpu.iter().find(|(m, _)| *m == member).map(|(_, l)| l.data_types).unwrap_or(&[]);
                let left: Vec<&str> = spec
                    .data_types
                    .iter()
                    .filter(|t| !claimed.contains(t) && !matches!(t, Int64 | Uint64))
                    .map(|t| t.as_str())
                    .collect();
                if !left.is_empty() {
                    println!("  not in the GPU limits: {op} {member}: {}", left.join(", "));
                }
            }
        }
        for f in &self.failed {
            println!("  FAILED  {f}");
        }
        let (name, n) = (self.name, self.failed.len());
        assert!(self.failed.is_empty(), "{name}: {n} GPU results differ from the CPU:\n{}", self.failed.join("\n"));
    }
}

/// Builds, compiles and dispatches one graph on `context`: each output's descriptor and bytes.
pub(crate) fn execute(context: &Context, inputs: &[In], build: Build) -> Result<Vec<(OperandDescriptor, Vec<u8>)>> {
    let mut b = GraphBuilder::new(context)?;
    let mut operands = vec![];
    for (k, i) in inputs.iter().enumerate() {
        operands.push(if i.constant {
            b.constant(&i.desc, &i.bytes)?
        } else {
            assert!(!i.name.is_empty() && inputs[..k].iter().all(|j| j.name != i.name), "input names must be unique");
            b.input(&i.name, &i.desc)?
        });
    }
    let outputs = build(&mut b, &operands)?;
    let names: Vec<String> = (0..outputs.len()).map(|k| format!("out{k}")).collect();
    let named: Vec<(&str, &Operand)> = names.iter().map(String::as_str).zip(&outputs).collect();
    let graph = b.build(&named)?;
    let mut bound_in = vec![];
    for i in inputs.iter().filter(|i| !i.constant) {
        let t = context.create_tensor(&TensorDescriptor::new(i.desc.data_type, i.desc.shape.clone()).writable(true))?;
        context.write_tensor(&t, &i.bytes)?;
        bound_in.push((i.name.as_str(), t));
    }
    let mut bound_out = vec![];
    for (name, o) in names.iter().zip(&outputs) {
        let d = o.descriptor().clone();
        bound_out
            .push((name.as_str(), context.create_tensor(&TensorDescriptor::new(d.data_type, d.shape).readable(true))?));
    }
    let ins: Vec<(&str, &Tensor)> = bound_in.iter().map(|(n, t)| (*n, t)).collect();
    let outs: Vec<(&str, &Tensor)> = bound_out.iter().map(|(n, t)| (*n, t)).collect();
    context.dispatch(&graph, &ins, &outs)?;
    let mut results = vec![];
    for (o, (_, t)) in outputs.iter().zip(&bound_out) {
        results.push((o.descriptor().clone(), context.read_tensor(t).wait()?));
    }
    Ok(results)
}

/// Every member of `op`'s limits dictionary (inputs, then outputs) at `dt`.
pub(crate) fn every_member(op: OpKind, dt: DataType) -> Vec<(&'static str, DataType)> {
    op.limits_kind().members().map(|m| (m, dt)).collect()
}

/// `[(member, dt)]` for members sharing one data type.
pub(crate) fn same(members: &[&'static str], dt: DataType) -> Vec<(&'static str, DataType)> {
    members.iter().map(|m| (*m, dt)).collect()
}

/// The reduced-element count, for size-dependent tolerances.
pub(crate) fn count(shape: &[u32], axes: &[u32]) -> u64 {
    axes.iter().map(|&a| shape[a as usize] as u64).product()
}

// ---------------------------------------------------------------------------------------------
// The ops of each test (checked to cover OpKind::ALL)

pub(crate) const BINARY_OPS: &[OpKind] = &[Add, Sub, Mul, Div, Max, Min, Pow];
pub(crate) const COMPARISON_OPS: &[OpKind] = &[Equal, NotEqual, Greater, GreaterOrEqual, Lesser, LesserOrEqual];
pub(crate) const LOGICAL_OPS: &[OpKind] = &[LogicalNot, LogicalAnd, LogicalOr, LogicalXor, IsNaN, IsInfinite];
pub(crate) const UNARY_OPS: &[OpKind] =
    &[Abs, Ceil, Cos, Erf, Exp, Floor, Identity, Log, Neg, Reciprocal, RoundEven, Sin, Sign, Sqrt, Tan];
pub(crate) const ACTIVATION_OPS: &[OpKind] =
    &[Elu, Gelu, HardSigmoid, HardSwish, LeakyRelu, Linear, Relu, Sigmoid, Softplus, Softsign, Tanh, Softmax, Prelu];
pub(crate) const CAST_CLAMP_OPS: &[OpKind] = &[Cast, Clamp];
pub(crate) const MATMUL_OPS: &[OpKind] = &[Matmul, Gemm];
pub(crate) const CONV_OPS: &[OpKind] = &[Conv2d, ConvTranspose2d];
pub(crate) const POOL_OPS: &[OpKind] = &[AveragePool2d, L2Pool2d, MaxPool2d, Resample2d];
pub(crate) const REDUCE_OPS: &[OpKind] = &[
    ReduceL1,
    ReduceL2,
    ReduceLogSum,
    ReduceLogSumExp,
    ReduceMax,
    ReduceMean,
    ReduceMin,
    ReduceProduct,
    ReduceSum,
    ReduceSumSquare,
    ArgMin,
    ArgMax,
    CumulativeSum,
];
pub(crate) const NORMALIZATION_OPS: &[OpKind] = &[BatchNormalization, InstanceNormalization, LayerNormalization];
pub(crate) const MOVEMENT_OPS: &[OpKind] =
    &[Concat, Expand, Pad, Reshape, Reverse, Slice, Split, Tile, Transpose, Triangular, Where];
pub(crate) const GATHER_OPS: &[OpKind] = &[Gather, GatherElements, GatherNd, ScatterElements, ScatterNd];
pub(crate) const QUANTIZE_OPS: &[OpKind] = &[QuantizeLinear, DequantizeLinear];
pub(crate) const RECURRENT_OPS: &[OpKind] = &[Gru, GruCell, Lstm, LstmCell];
