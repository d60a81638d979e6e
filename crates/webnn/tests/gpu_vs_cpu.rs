//! Differential test of the GPU backend against the CPU engine: every op × operand × data type
//! combination that a GPU context's `opSupportLimits()` reports is built as one small graph
//! (seeded pseudo-random inputs, small odd shapes, non-default valid options), run through the
//! public API (`GraphBuilder`, `create_tensor` / `write_tensor` / `dispatch` / `read_tensor`) on
//! BOTH a GPU context and a CPU context, and the outputs compared.
//!
//! The CPU engine is the reference: every one of its op × data type combinations is verified
//! against the WPT conformance vectors and independent references (crates/webnn-cpu's own
//! tests), so a difference beyond the tolerance is a GPU bug.
//!
//! Comparison: bit-exact for integer outputs and for data-movement ops on every type (inputs
//! there hold any non-NaN bit pattern: ±0, ±∞, subnormals); value-exact (±0 equal, NaN equal
//! NaN) for exact float ops (abs, floor, max, reduceMax, ...); otherwise within a per-op ULP
//! bound taken from the WPT tolerances (../shared/wpt/README.md §6) or a small absolute bound
//! (for values near 0 where ULPs are tiny, and the WPT ATOL ops), whichever is looser.
//! Arithmetic on a GPU may flush float32 subnormals to zero (Vulkan lets drivers do so, and
//! NVIDIA's do): where the CPU's result is subnormal, a GPU result of zero with the same sign is
//! accepted (data-movement ops, compared bit by bit, must still carry subnormals unchanged).
//!
//! Which combinations run comes from the GPU context's limits: every test iterates the data
//! types of the spec's table (but int64 / uint64, which the GPU never stores); a combination
//! whose members the GPU limits do not all report is run on the CPU only (to keep the case
//! valid) and skipped (the GPU builder would reject it with a TypeError), so the set grows as
//! the GPU backend claims more. Every test prints the combinations it ran and skipped.
//! Together with the WPT vectors run with `--device gpu`, these
//! make `gpu_op_coverage` report every reported combination executed:
//!
//! ```sh
//! rm -f /tmp/gcov
//! WEBNN_GPU_OP_COVERAGE=/tmp/gcov cargo test --release -p webnn --test gpu_vs_cpu
//! WEBNN_GPU_OP_COVERAGE=/tmp/gcov cargo test --release -p webnn --test gpu_op_coverage -- --ignored --nocapture
//! ```
//!
//! Without any wgpu adapter each test prints that it was skipped; with `WEBNN_REQUIRE_GPU=1`
//! a missing adapter fails instead.

use half::f16;
use std::collections::BTreeSet;
use webnn::*;
use DataType::*;
use OpKind::*;

const NO: OperatorOptions = OperatorOptions { label: String::new() };

// ---------------------------------------------------------------------------------------------
// Seeded data

/// xorshift64*: deterministic inputs, the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform integer in [lo, hi].
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
    }
}

/// How input values are drawn.
#[derive(Clone, Copy, Debug)]
enum Gen {
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
fn int_range(dt: DataType) -> Option<(i64, i64)> {
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

fn is_float(dt: DataType) -> bool {
    matches!(dt, Float32 | Float16)
}

/// The little-endian bytes of `v` as one element of `dt` (integers saturate).
fn encode(dt: DataType, v: f64, out: &mut Vec<u8>) {
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

fn elements(shape: &[u32]) -> usize {
    shape.iter().map(|&d| d as usize).product()
}

/// `n` elements of `dt` drawn by `gen`.
fn generate(rng: &mut Rng, dt: DataType, n: usize, gen: Gen) -> Vec<u8> {
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
                    let v = if is_float(dt) { lo + (hi - lo) * rng.unit() } else { rng.int(lo as i64, hi as i64) as f64 };
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
                // Random bits, with ±0, subnormals and ±∞ one time in 16 each; never NaN.
                Float32 => {
                    let b = rng.next() as u32;
                    let b = match rng.int(0, 15) {
                        0 => b & 0x8000_0000,
                        1 => b & 0x807f_ffff,
                        2 => b & 0x8000_0000 | 0x7f80_0000,
                        _ => b,
                    };
                    let b = if b & 0x7f80_0000 == 0x7f80_0000 { b & 0xff80_0000 } else { b };
                    out.extend(b.to_le_bytes());
                }
                Float16 => {
                    let b = rng.next() as u16;
                    let b = match rng.int(0, 15) {
                        0 => b & 0x8000,
                        1 => b & 0x83ff,
                        2 => b & 0x8000 | 0x7c00,
                        _ => b,
                    };
                    let b = if b & 0x7c00 == 0x7c00 { b & 0xfc00 } else { b };
                    out.extend(b.to_le_bytes());
                }
                _ => {
                    let size = dt.byte_length_of(1);
                    out.extend(&rng.next().to_le_bytes()[..size]);
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
trait ByteLen {
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
struct Tol {
    /// Byte-exact (data movement).
    bits: bool,
    ulp32: u64,
    ulp16: u64,
    atol32: f64,
    atol16: f64,
}

impl Tol {
    /// Byte-exact.
    const BITS: Tol = Tol { bits: true, ulp32: 0, ulp16: 0, atol32: 0.0, atol16: 0.0 };
    /// Value-exact: ±0 equal, NaN equals NaN.
    const EXACT: Tol = Tol { bits: false, ulp32: 0, ulp16: 0, atol32: 0.0, atol16: 0.0 };

    /// Within `f32` / `f16` ULPs, or 1e-6 absolute (float32) near zero.
    fn ulp(f32: u64, f16: u64) -> Tol {
        Tol { bits: false, ulp32: f32, ulp16: f16, atol32: 1e-6, atol16: 0.0 }
    }

    /// Within an absolute bound (the WPT ATOL ops), or 2 ULPs.
    fn atol(f32: f64, f16: f64) -> Tol {
        Tol { bits: false, ulp32: 2, ulp16: 2, atol32: f32, atol16: f16 }
    }

    fn and_atol(mut self, f32: f64, f16: f64) -> Tol {
        self.atol32 = f32;
        self.atol16 = f16;
        self
    }
}

/// Sign-magnitude order of float bits: the ULP distance is the difference.
fn ord32(x: f32) -> i64 {
    let b = x.to_bits();
    if b & 0x8000_0000 != 0 {
        -((b & 0x7fff_ffff) as i64)
    } else {
        b as i64
    }
}

fn ord16(x: f16) -> i64 {
    let b = x.to_bits();
    if b & 0x8000 != 0 {
        -((b & 0x7fff) as i64)
    } else {
        b as i64
    }
}

/// The index and text of the first element of `gpu` that differs from `cpu` beyond `tol`, and
/// the number of such elements.
fn compare(dt: DataType, gpu: &[u8], cpu: &[u8], tol: Tol) -> Option<(usize, String, usize)> {
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
                || (ord32(a) - ord32(e)).unsigned_abs() <= tol.ulp32
                || (a - e).abs() as f64 <= tol.atol32;
            (!ok).then(|| format!("{a:e} vs {e:e} ({} ulp)", (ord32(a) - ord32(e)).unsigned_abs()))
        } else {
            let (a, e) = (f16::from_le_bytes(g.try_into().unwrap()), f16::from_le_bytes(c.try_into().unwrap()));
            let ok = a == e
                || (a.is_nan() && e.is_nan())
                || (ord16(a) - ord16(e)).unsigned_abs() <= tol.ulp16
                || (a.to_f64() - e.to_f64()).abs() <= tol.atol16;
            (!ok).then(|| format!("{a} vs {e} ({} ulp)", (ord16(a) - ord16(e)).unsigned_abs()))
        };
        if let Some(text) = bad {
            count += 1;
            first.get_or_insert((i, text));
        }
    }
    first.map(|(i, t)| (i, t, count))
}

/// One element as text.
fn show(dt: DataType, b: &[u8]) -> String {
    match dt {
        Float32 => format!("{:e} ({:#010x})", f32::from_le_bytes(b.try_into().unwrap()), u32::from_le_bytes(b.try_into().unwrap())),
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
fn preview(dt: DataType, bytes: &[u8]) -> String {
    let size = dt.byte_length_of(1);
    let shown: Vec<String> = bytes.chunks_exact(size).take(8).map(|b| show(dt, b)).collect();
    let more = if bytes.len() / size > 8 { ", ..." } else { "" };
    format!("[{}{more}]", shown.join(", "))
}

// ---------------------------------------------------------------------------------------------
// The harness

/// One operand of a case's graph: a graph input (written through a tensor) or a constant.
struct In {
    name: String,
    desc: OperandDescriptor,
    bytes: Vec<u8>,
    constant: bool,
}

type Build<'a> = &'a dyn Fn(&mut GraphBuilder, &[Operand]) -> Result<Vec<Operand>>;

/// A GPU and a CPU context, the GPU's limits, and the record of one test.
struct Suite {
    name: &'static str,
    ops: &'static [OpKind],
    gpu: Context,
    cpu: Context,
    limits: OpSupportLimits,
    rng: Rng,
    ran: Vec<String>,
    skipped: BTreeSet<String>,
    failed: Vec<String>,
}

impl Suite {
    /// The suite of one test, or None (after saying so) when there is no GPU adapter.
    fn new(name: &'static str, ops: &'static [OpKind]) -> Option<Suite> {
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
        Some(Suite { name, ops, gpu, cpu, limits, rng: Rng(seed | 1), ran: vec![], skipped: BTreeSet::new(), failed: vec![] })
    }

    /// The data types the spec's table allows for `op`'s `member`, but int64 / uint64 (which
    /// the GPU never stores). [`Suite::run`] skips the cases of those the GPU limits leave out
    /// (after checking them on the CPU).
    fn types(&self, op: OpKind, member: &str) -> Vec<DataType> {
        let spec = webnn_core::limits::member_limits(op, member).map(|l| l.data_types).unwrap_or(&[]);
        spec.iter().copied().filter(|t| !matches!(t, Int64 | Uint64)).collect()
    }

    /// True if the GPU limits report `dt` for `op`'s `member`.
    fn allows(&self, op: OpKind, member: &str, dt: DataType) -> bool {
        self.limits.op(op).iter().any(|(m, l)| *m == member && l.data_types.contains(&dt))
    }

    /// A graph input named `name` of `dt` and `shape`, drawn by `gen`.
    fn input(&mut self, name: &str, dt: DataType, shape: &[u32], gen: Gen) -> In {
        let bytes = generate(&mut self.rng, dt, elements(shape), gen);
        In { name: name.to_string(), desc: OperandDescriptor::new(dt, shape.to_vec()), bytes, constant: false }
    }

    /// A constant operand of `dt` and `shape`, drawn by `gen`.
    fn constant(&mut self, dt: DataType, shape: &[u32], gen: Gen) -> In {
        In { constant: true, ..self.input("", dt, shape, gen) }
    }

    /// Runs one case: `build` applied to `inputs` (in order) on both contexts, if the GPU limits
    /// report every `(member, data type)` of `members` for `op`; compares every output.
    fn run(
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
    fn finish(self) {
        println!("gpu_vs_cpu {}: {} cases ran on {}", self.name, self.ran.len(), self.gpu.adapter_name().unwrap_or_default());
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
fn execute(context: &Context, inputs: &[In], build: Build) -> Result<Vec<(OperandDescriptor, Vec<u8>)>> {
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
        bound_out.push((name.as_str(), context.create_tensor(&TensorDescriptor::new(d.data_type, d.shape).readable(true))?));
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

/// `[(member, dt)]` for members sharing one data type.
fn same(members: &[&'static str], dt: DataType) -> Vec<(&'static str, DataType)> {
    members.iter().map(|m| (*m, dt)).collect()
}

/// The reduced-element count, for size-dependent tolerances.
fn count(shape: &[u32], axes: &[u32]) -> u64 {
    axes.iter().map(|&a| shape[a as usize] as u64).product()
}

// ---------------------------------------------------------------------------------------------
// The ops of each test (checked to cover OpKind::ALL)

const BINARY_OPS: &[OpKind] = &[Add, Sub, Mul, Div, Max, Min, Pow];
const COMPARISON_OPS: &[OpKind] = &[Equal, NotEqual, Greater, GreaterOrEqual, Lesser, LesserOrEqual];
const LOGICAL_OPS: &[OpKind] = &[LogicalNot, LogicalAnd, LogicalOr, LogicalXor, IsNaN, IsInfinite];
const UNARY_OPS: &[OpKind] = &[
    Abs, Ceil, Cos, Erf, Exp, Floor, Identity, Log, Neg, Reciprocal, RoundEven, Sin, Sign, Sqrt, Tan,
];
const ACTIVATION_OPS: &[OpKind] =
    &[Elu, Gelu, HardSigmoid, HardSwish, LeakyRelu, Linear, Relu, Sigmoid, Softplus, Softsign, Tanh, Softmax, Prelu];
const CAST_CLAMP_OPS: &[OpKind] = &[Cast, Clamp];
const MATMUL_OPS: &[OpKind] = &[Matmul, Gemm];
const CONV_OPS: &[OpKind] = &[Conv2d, ConvTranspose2d];
const POOL_OPS: &[OpKind] = &[AveragePool2d, L2Pool2d, MaxPool2d, Resample2d];
const REDUCE_OPS: &[OpKind] = &[
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
const NORMALIZATION_OPS: &[OpKind] = &[BatchNormalization, InstanceNormalization, LayerNormalization];
const MOVEMENT_OPS: &[OpKind] =
    &[Concat, Expand, Pad, Reshape, Reverse, Slice, Split, Tile, Transpose, Triangular, Where];
const GATHER_OPS: &[OpKind] = &[Gather, GatherElements, GatherNd, ScatterElements, ScatterNd];
const QUANTIZE_OPS: &[OpKind] = &[QuantizeLinear, DequantizeLinear];
const RECURRENT_OPS: &[OpKind] = &[Gru, GruCell, Lstm, LstmCell];

#[test]
fn every_op_has_a_differential_case() {
    let lists = [
        BINARY_OPS,
        COMPARISON_OPS,
        LOGICAL_OPS,
        UNARY_OPS,
        ACTIVATION_OPS,
        CAST_CLAMP_OPS,
        MATMUL_OPS,
        CONV_OPS,
        POOL_OPS,
        REDUCE_OPS,
        NORMALIZATION_OPS,
        MOVEMENT_OPS,
        GATHER_OPS,
        QUANTIZE_OPS,
        RECURRENT_OPS,
    ];
    let listed: BTreeSet<OpKind> = lists.iter().flat_map(|l| l.iter().copied()).collect();
    let missing: Vec<&OpKind> = OpKind::ALL.iter().filter(|op| !listed.contains(op)).collect();
    assert!(missing.is_empty(), "ops without a differential case: {missing:?}");
    assert_eq!(lists.iter().map(|l| l.len()).sum::<usize>(), OpKind::ALL.len(), "an op is listed twice");
}

// ---------------------------------------------------------------------------------------------
// Element-wise

#[test]
fn binary_arithmetic() {
    let Some(mut s) = Suite::new("binary_arithmetic", BINARY_OPS) else { return };
    for &op in BINARY_OPS {
        for dt in s.types(op, "a") {
            let float = is_float(dt);
            let (ga, gb) = match op {
                Add | Sub => (Gen::Range(-300.0, 300.0), Gen::Range(-300.0, 300.0)),
                Mul => (Gen::Range(-11.0, 11.0), Gen::Range(-11.0, 11.0)),
                Div => (Gen::Range(-100.0, 100.0), Gen::NonZero(-9.0, 9.0)),
                Max | Min => (Gen::Few, Gen::Range(-3.0, 3.0)),
                _ if float => (Gen::Range(0.1, 3.0), Gen::Range(-3.0, 3.0)),
                _ => (Gen::Range(-4.0, 4.0), Gen::Range(-1.0, 3.0)),
            };
            let tol = match op {
                Add | Sub | Mul => Tol::ulp(1, 1),
                Div => Tol::ulp(2, 2),
                Max | Min => Tol::EXACT,
                _ => Tol::ulp(32, 2),
            };
            let m = same(&["a", "b", "output"], dt);
            let f = move |b: &mut GraphBuilder, x: &[Operand]| Ok(vec![b.binary(op, &x[0], &x[1], &NO)?]);
            let ins = vec![s.input("a", dt, &[2, 3, 5], ga), s.input("b", dt, &[3, 5], gb)];
            s.run(op, &m, "[2,3,5] by [3,5]", ins, tol, f);
            let ins = vec![s.input("a", dt, &[3, 1], ga), s.constant(dt, &[2, 1, 5], gb)];
            s.run(op, &m, "[3,1] by constant [2,1,5]", ins, tol, f);
            let ins = vec![s.input("a", dt, &[], ga), s.input("b", dt, &[2, 3, 5], gb)];
            s.run(op, &m, "scalar by [2,3,5]", ins, tol, f);
            if !float && matches!(op, Add | Sub | Mul) {
                // Integer arithmetic wraps (the CPU engine's definition).
                let ins = vec![s.input("a", dt, &[2, 3, 5], Gen::Bits), s.input("b", dt, &[2, 3, 5], Gen::Bits)];
                s.run(op, &m, "[2,3,5] whole range (wrapping)", ins, tol, f);
            }
            if op == Pow && float {
                // Negative bases with integer exponents.
                let ins = vec![s.input("a", dt, &[2, 3, 5], Gen::Range(-3.0, 3.0)), s.input("b", dt, &[2, 3, 5], Gen::Ints(-3, 3))];
                s.run(op, &m, "negative bases, integer exponents", ins, tol, f);
            }
            if op == Div && !float {
                // Truncation towards zero on both signs.
                let ins = vec![
                    s.input("a", dt, &[7, 5], Gen::Range(-1000.0, 1000.0)),
                    s.input("b", dt, &[5], Gen::NonZero(-40.0, 40.0)),
                ];
                s.run(op, &m, "[7,5] by [5], wide", ins, tol, f);
            }
        }
    }
    s.finish();
}

#[test]
fn comparisons() {
    let Some(mut s) = Suite::new("comparisons", COMPARISON_OPS) else { return };
    for &op in COMPARISON_OPS {
        for dt in s.types(op, "a") {
            let m = [("a", dt), ("b", dt), ("output", Uint8)];
            let ins = vec![s.input("a", dt, &[2, 3, 5], Gen::Few), s.input("b", dt, &[3, 5], Gen::Few)];
            s.run(op, &m, "[2,3,5] by [3,5]", ins, Tol::BITS, move |b, x| Ok(vec![b.binary(op, &x[0], &x[1], &NO)?]));
            let g = if is_float(dt) { Gen::Special } else { Gen::Bits };
            let ins = vec![s.input("a", dt, &[4, 7], g), s.input("b", dt, &[4, 7], g)];
            s.run(op, &m, "[4,7] specials / whole range", ins, Tol::BITS, move |b, x| Ok(vec![b.binary(op, &x[0], &x[1], &NO)?]));
        }
    }
    s.finish();
}

#[test]
fn logical_and_predicates() {
    let Some(mut s) = Suite::new("logical_and_predicates", LOGICAL_OPS) else { return };
    const BOOLS: &[f64] = &[0.0, 1.0, 2.0, 0.0, 255.0, 1.0, 0.0];
    for &op in LOGICAL_OPS {
        for dt in s.types(op, "a") {
            let out = Uint8;
            match op {
                LogicalNot | IsNaN | IsInfinite => {
                    let g = if op == LogicalNot { Gen::Values(BOOLS) } else { Gen::Special };
                    let ins = vec![s.input("a", dt, &[3, 7], g)];
                    s.run(op, &[("a", dt), ("output", out)], "[3,7]", ins, Tol::BITS, move |b, x| Ok(vec![b.unary(op, &x[0], &NO)?]));
                }
                _ => {
                    let ins = vec![
                        s.input("a", dt, &[2, 3, 5], Gen::Values(BOOLS)),
                        s.input("b", dt, &[3, 5], Gen::Values(&[0.0, 1.0, 3.0])),
                    ];
                    let m = [("a", dt), ("b", dt), ("output", out)];
                    s.run(op, &m, "[2,3,5] by [3,5]", ins, Tol::BITS, move |b, x| Ok(vec![b.binary(op, &x[0], &x[1], &NO)?]));
                }
            }
        }
    }
    s.finish();
}

/// The inputs and tolerance of each unary op.
fn unary_case(op: OpKind, dt: DataType) -> (Gen, Tol) {
    let atol = Tol::atol(1.0 / 1024.0, 1.0 / 512.0);
    match op {
        Abs | Neg | Ceil | Floor => (if is_float(dt) { Gen::Range(-8.0, 8.0) } else { Gen::Range(-100.0, 100.0) }, Tol::EXACT),
        Sign => (Gen::Few, Tol::EXACT),
        RoundEven => (Gen::Halves(-8.0, 8.0), Tol::EXACT),
        Identity => (Gen::Bits, Tol::BITS),
        Cos | Sin => (Gen::Range(-6.0, 6.0), atol),
        Tan => (Gen::Range(-1.3, 1.3), atol),
        Erf => (Gen::Range(-3.0, 3.0), atol),
        Exp => (Gen::Range(-6.0, 6.0), Tol::ulp(32, 2)),
        Log => (Gen::Range(0.01, 100.0), Tol::atol(1.0 / 1024.0, 1.0 / 1024.0)),
        Reciprocal => (Gen::NonZero(-8.0, 8.0), Tol::ulp(2, 2)),
        Sqrt => (Gen::Range(0.0, 100.0), Tol::ulp(1, 1)),
        _ => unreachable!("{op}"),
    }
}

#[test]
fn unary() {
    let Some(mut s) = Suite::new("unary", UNARY_OPS) else { return };
    for &op in UNARY_OPS {
        for dt in s.types(op, "input") {
            let (g, tol) = unary_case(op, dt);
            let ins = vec![s.input("x", dt, &[2, 3, 5], g)];
            s.run(op, &same(&["input", "output"], dt), "[2,3,5]", ins, tol, move |b, x| Ok(vec![b.unary(op, &x[0], &NO)?]));
            if matches!(op, Abs | Neg | Ceil | Floor | Sign | RoundEven | Sqrt | Reciprocal | Exp | Log) && is_float(dt) {
                // NaN, ±∞, ±0 propagate as on the CPU.
                let ins = vec![s.input("x", dt, &[3, 7], Gen::Special)];
                s.run(op, &same(&["input", "output"], dt), "[3,7] specials", ins, tol, move |b, x| Ok(vec![b.unary(op, &x[0], &NO)?]));
            }
        }
    }
    s.finish();
}

#[test]
fn activations() {
    let Some(mut s) = Suite::new("activations", ACTIVATION_OPS) else { return };
    for &op in ACTIVATION_OPS {
        for dt in s.types(op, "input") {
            let io = same(&["input", "output"], dt);
            let x = s.input("x", dt, &[2, 3, 5], if is_float(dt) { Gen::Range(-5.0, 5.0) } else { Gen::Range(-50.0, 50.0) });
            let tol = match op {
                Elu | Gelu | Softplus => Tol::ulp(18, 18),
                HardSigmoid | Linear => Tol::ulp(2, 2),
                HardSwish => Tol::ulp(4, 4),
                LeakyRelu => Tol::ulp(1, 2),
                Relu => Tol::EXACT,
                Sigmoid => Tol::ulp(34, 10),
                Softsign => Tol::ulp(3, 3),
                Tanh => Tol::atol(1.0 / 1024.0, 1.0 / 512.0),
                Softmax => Tol::ulp(5 * 3 + 3, 5 * 3 + 3),
                _ => Tol::ulp(1, 1), // prelu
            };
            match op {
                Elu => s.run(op, &io, "alpha 0.7", vec![x], tol, |b, x| {
                    Ok(vec![b.elu(&x[0], &EluOptions { alpha: 0.7, ..Default::default() })?])
                }),
                HardSigmoid => s.run(op, &io, "alpha 0.3 beta 0.4", vec![x], tol, |b, x| {
                    Ok(vec![b.hard_sigmoid(&x[0], &HardSigmoidOptions { alpha: 0.3, beta: 0.4, ..Default::default() })?])
                }),
                LeakyRelu => s.run(op, &io, "alpha 0.15", vec![x], tol, |b, x| {
                    Ok(vec![b.leaky_relu(&x[0], &LeakyReluOptions { alpha: 0.15, ..Default::default() })?])
                }),
                Linear => s.run(op, &io, "alpha 1.5 beta -0.25", vec![x], tol, |b, x| {
                    Ok(vec![b.linear(&x[0], &LinearOptions { alpha: 1.5, beta: -0.25, ..Default::default() })?])
                }),
                Softmax => {
                    s.run(op, &io, "axis 2", vec![x], tol, |b, x| Ok(vec![b.softmax(&x[0], 2, &NO)?]));
                    let x = s.input("x", dt, &[2, 5, 3], Gen::Range(-8.0, 8.0));
                    s.run(op, &io, "[2,5,3] axis 1", vec![x], tol, |b, x| Ok(vec![b.softmax(&x[0], 1, &NO)?]));
                    let x = s.input("x", dt, &[3, 1000], Gen::Range(-8.0, 8.0));
                    let tol = Tol::ulp(3003, 3003).and_atol(1e-7, 1e-5);
                    s.run(op, &io, "[3,1000] axis 1", vec![x], tol, |b, x| Ok(vec![b.softmax(&x[0], 1, &NO)?]));
                }
                Prelu => {
                    let slope = s.input("slope", dt, &[3, 5], Gen::Range(-2.0, 2.0));
                    let m = [("input", dt), ("slope", dt), ("output", dt)];
                    s.run(op, &m, "slope [3,5]", vec![x, slope], tol, |b, x| Ok(vec![b.prelu(&x[0], &x[1], &NO)?]));
                    let slope = s.constant(dt, &[2, 1, 1], Gen::Range(-2.0, 2.0));
                    let x = s.input("x", dt, &[5], Gen::Range(-5.0, 5.0));
                    s.run(op, &m, "[5] by constant slope [2,1,1]", vec![x, slope], tol, |b, x| Ok(vec![b.prelu(&x[0], &x[1], &NO)?]));
                }
                _ => s.run(op, &io, "", vec![x], tol, move |b, x| Ok(vec![b.activation(op, &x[0], &NO)?])),
            }
        }
    }
    s.finish();
}

#[test]
fn cast_and_clamp() {
    let Some(mut s) = Suite::new("cast_and_clamp", CAST_CLAMP_OPS) else { return };
    for from in s.types(Cast, "input") {
        for to in s.types(Cast, "output") {
            // Values every type of the pair represents (conversions out of range are
            // implementation-defined), with fractions for float inputs.
            let (lo, hi) = [from, to].iter().fold((-100.0f64, 200.0f64), |(lo, hi), &t| match int_range(t) {
                Some((a, b)) => (lo.max(a as f64), hi.min(b as f64)),
                None => (lo, hi),
            });
            let tol = if is_float(to) { Tol::ulp(1, 1) } else { Tol::EXACT };
            let ins = vec![s.input("x", from, &[2, 3, 5], Gen::Range(lo, hi))];
            s.run(Cast, &[("input", from), ("output", to)], "[2,3,5]", ins, tol, move |b, x| Ok(vec![b.cast(&x[0], to, &NO)?]));
        }
    }
    for dt in s.types(Clamp, "input") {
        let io = same(&["input", "output"], dt);
        let (min, max) = if int_range(dt).is_some_and(|r| r.0 == 0) { (3.0, 20.0) } else { (-5.0, 20.0) };
        let ins = vec![s.input("x", dt, &[2, 3, 5], Gen::Range(-30.0, 30.0))];
        s.run(Clamp, &io, "min/max", ins, Tol::BITS, move |b, x| {
            Ok(vec![b.clamp(&x[0], &ClampOptions { min_value: Some(min.into()), max_value: Some(max.into()), ..Default::default() })?])
        });
        let ins = vec![s.input("x", dt, &[4, 7], Gen::Bits)];
        s.run(Clamp, &io, "min only, whole range", ins, Tol::EXACT, move |b, x| {
            Ok(vec![b.clamp(&x[0], &ClampOptions { min_value: Some(min.into()), ..Default::default() })?])
        });
    }
    s.finish();
}

// ---------------------------------------------------------------------------------------------
// Matmul, gemm, convolutions, pooling

#[test]
fn matmul_and_gemm() {
    let Some(mut s) = Suite::new("matmul_and_gemm", MATMUL_OPS) else { return };
    for dt in s.types(Matmul, "a") {
        let m = same(&["a", "b", "output"], dt);
        let r = Gen::Range(-2.0, 2.0);
        let ins = vec![s.input("a", dt, &[2, 3, 13], r), s.input("b", dt, &[13, 7], r)];
        s.run(Matmul, &m, "[2,3,13] x [13,7]", ins, Tol::ulp(26, 26).and_atol(1e-5, 2e-3), |b, x| {
            Ok(vec![b.matmul(&x[0], &x[1], &NO)?])
        });
        let ins = vec![s.input("a", dt, &[3, 1, 4, 6], r), s.constant(dt, &[2, 6, 5], r)];
        s.run(Matmul, &m, "[3,1,4,6] x constant [2,6,5]", ins, Tol::ulp(12, 12).and_atol(1e-5, 2e-3), |b, x| {
            Ok(vec![b.matmul(&x[0], &x[1], &NO)?])
        });
        let ins = vec![s.input("a", dt, &[37, 70], r), s.input("b", dt, &[70, 33], r)];
        s.run(Matmul, &m, "[37,70] x [70,33]", ins, Tol::ulp(140, 140).and_atol(1e-4, 1e-2), |b, x| {
            Ok(vec![b.matmul(&x[0], &x[1], &NO)?])
        });
    }
    for dt in s.types(Gemm, "a") {
        let m = same(&["a", "b", "c", "output"], dt);
        let r = Gen::Range(-2.0, 2.0);
        let ins = vec![s.input("a", dt, &[4, 6], r), s.input("b", dt, &[6, 5], r), s.input("c", dt, &[5], r)];
        s.run(Gemm, &m, "[4,6] x [6,5] + c [5], alpha 0.5 beta 2", ins, Tol::ulp(15, 15).and_atol(1e-5, 2e-3), |b, x| {
            Ok(vec![b.gemm(&x[0], &x[1], &GemmOptions { c: Some(x[2].clone()), alpha: 0.5, beta: 2.0, ..Default::default() })?])
        });
        let ins = vec![s.input("a", dt, &[6, 4], r), s.input("b", dt, &[5, 6], r), s.constant(dt, &[4, 5], r)];
        s.run(Gemm, &m, "transposed [6,4]ᵀ x [5,6]ᵀ + constant c [4,5]", ins, Tol::ulp(14, 14).and_atol(1e-5, 2e-3), |b, x| {
            let o = GemmOptions { c: Some(x[2].clone()), a_transpose: true, b_transpose: true, ..Default::default() };
            Ok(vec![b.gemm(&x[0], &x[1], &o)?])
        });
        let ins = vec![s.input("a", dt, &[3, 9], r), s.input("b", dt, &[9, 4], r), s.input("c", dt, &[], r)];
        s.run(Gemm, &m, "[3,9] x [9,4] + scalar c, beta 0.5", ins, Tol::ulp(21, 21).and_atol(1e-5, 2e-3), |b, x| {
            Ok(vec![b.gemm(&x[0], &x[1], &GemmOptions { c: Some(x[2].clone()), beta: 0.5, ..Default::default() })?])
        });
    }
    s.finish();
}

#[test]
fn convolutions() {
    let Some(mut s) = Suite::new("convolutions", CONV_OPS) else { return };
    let r = Gen::Range(-1.0, 1.0);
    for dt in s.types(Conv2d, "input") {
        let m = same(&["input", "filter", "bias", "output"], dt);
        // KH·KW·Cin/groups·2 ULPs (the WPT bound), and an absolute floor for cancellation.
        let tol = |n: u64| Tol::ulp(n, n).and_atol(1e-5, 4e-3);
        let ins = vec![s.input("x", dt, &[1, 4, 5, 7], r), s.input("w", dt, &[6, 2, 3, 3], r), s.input("bias", dt, &[6], r)];
        s.run(Conv2d, &m, "nchw oihw groups 2, pads, strides [1,2], bias", ins, tol(36), |b, x| {
            let o = Conv2dOptions {
                groups: 2,
                padding: Some(vec![1, 0, 1, 2]),
                strides: Some(vec![1, 2]),
                bias: Some(x[2].clone()),
                ..Conv2dOptions::new()
            };
            Ok(vec![b.conv2d(&x[0], &x[1], &o)?])
        });
        let ins = vec![s.input("x", dt, &[2, 5, 7, 4], r), s.constant(dt, &[3, 2, 2, 4], r), s.constant(dt, &[3], r)];
        s.run(Conv2d, &m, "nhwc ohwi dilations [2,1], constant filter and bias", ins, tol(32), |b, x| {
            let o = Conv2dOptions {
                input_layout: InputOperandLayout::Nhwc,
                filter_layout: Conv2dFilterOperandLayout::Ohwi,
                dilations: Some(vec![2, 1]),
                bias: Some(x[2].clone()),
                ..Conv2dOptions::new()
            };
            Ok(vec![b.conv2d(&x[0], &x[1], &o)?])
        });
        let ins = vec![s.input("x", dt, &[1, 4, 6, 5], r), s.input("w", dt, &[4, 1, 3, 3], r), s.input("bias", dt, &[4], r)];
        s.run(Conv2d, &m, "depthwise groups 4, same padding", ins, tol(18), |b, x| {
            let o = Conv2dOptions { groups: 4, padding: Some(vec![1, 1, 1, 1]), bias: Some(x[2].clone()), ..Conv2dOptions::new() };
            Ok(vec![b.conv2d(&x[0], &x[1], &o)?])
        });
        let ins = vec![s.input("x", dt, &[1, 3, 6, 5], r), s.input("w", dt, &[3, 3, 3, 8], r), s.input("bias", dt, &[8], r)];
        s.run(Conv2d, &m, "hwio strides 2 padding", ins, tol(54), |b, x| {
            let o = Conv2dOptions {
                filter_layout: Conv2dFilterOperandLayout::Hwio,
                strides: Some(vec![2, 2]),
                padding: Some(vec![1, 1, 0, 1]),
                bias: Some(x[2].clone()),
                ..Conv2dOptions::new()
            };
            Ok(vec![b.conv2d(&x[0], &x[1], &o)?])
        });
    }
    for dt in s.types(Conv2d, "input") {
        let m = same(&["input", "filter", "output"], dt);
        let ins = vec![s.input("x", dt, &[2, 16, 9, 11], r), s.input("w", dt, &[24, 16, 3, 3], r)];
        s.run(Conv2d, &m, "[2,16,9,11] * [24,16,3,3] pads 1 (larger tiles)", ins, Tol::ulp(288, 288).and_atol(1e-4, 2e-2), |b, x| {
            Ok(vec![b.conv2d(&x[0], &x[1], &Conv2dOptions { padding: Some(vec![1, 1, 1, 1]), ..Conv2dOptions::new() })?])
        });
    }
    for dt in s.types(ConvTranspose2d, "input") {
        let m = same(&["input", "filter", "bias", "output"], dt);
        let tol = |n: u64| Tol::ulp(n, n).and_atol(1e-5, 4e-3);
        let ins = vec![s.input("x", dt, &[1, 4, 3, 5], r), s.input("w", dt, &[4, 3, 3, 3], r), s.input("bias", dt, &[3], r)];
        s.run(ConvTranspose2d, &m, "iohw strides 2, pads, output padding, bias", ins, tol(72), |b, x| {
            let o = ConvTranspose2dOptions {
                strides: Some(vec![2, 2]),
                padding: Some(vec![1, 1, 0, 1]),
                output_padding: Some(vec![1, 0]),
                bias: Some(x[2].clone()),
                ..ConvTranspose2dOptions::new()
            };
            Ok(vec![b.conv_transpose2d(&x[0], &x[1], &o)?])
        });
        let ins = vec![s.input("x", dt, &[2, 4, 3, 3], r), s.input("w", dt, &[4, 3, 2, 3], r), s.input("bias", dt, &[6], r)];
        s.run(ConvTranspose2d, &m, "groups 2, dilations [1,2]", ins, tol(24), |b, x| {
            let o = ConvTranspose2dOptions {
                groups: 2,
                dilations: Some(vec![1, 2]),
                bias: Some(x[2].clone()),
                ..ConvTranspose2dOptions::new()
            };
            Ok(vec![b.conv_transpose2d(&x[0], &x[1], &o)?])
        });
        let ins = vec![s.input("x", dt, &[1, 3, 4, 5], r), s.constant(dt, &[2, 3, 3, 5], r), s.constant(dt, &[2], r)];
        s.run(ConvTranspose2d, &m, "nhwc ohwi strides [2,1], output sizes, constants", ins, tol(90), |b, x| {
            let o = ConvTranspose2dOptions {
                input_layout: InputOperandLayout::Nhwc,
                filter_layout: ConvTranspose2dFilterOperandLayout::Ohwi,
                strides: Some(vec![2, 1]),
                output_sizes: Some(vec![8, 6]),
                bias: Some(x[2].clone()),
                ..ConvTranspose2dOptions::new()
            };
            Ok(vec![b.conv_transpose2d(&x[0], &x[1], &o)?])
        });
    }
    s.finish();
}

#[test]
fn pooling_and_resample() {
    let Some(mut s) = Suite::new("pooling_and_resample", POOL_OPS) else { return };
    for &op in &[AveragePool2d, L2Pool2d, MaxPool2d] {
        for dt in s.types(op, "input") {
            let io = same(&["input", "output"], dt);
            let g = if is_float(dt) { Gen::Range(-4.0, 4.0) } else { Gen::Bits };
            // window H·W + 2 ULPs (WPT); max is exact.
            let tol = |n: u64| if op == MaxPool2d { Tol::EXACT } else { Tol::ulp(n + 2, n + 2).and_atol(1e-6, 1e-3) };
            let x = s.input("x", dt, &[1, 3, 7, 9], g);
            s.run(op, &io, "window [3,3] strides 2 pads", vec![x], tol(9), move |b, x| {
                let o = Pool2dOptions {
                    window_dimensions: Some(vec![3, 3]),
                    strides: Some(vec![2, 2]),
                    padding: Some(vec![1, 1, 0, 1]),
                    ..Default::default()
                };
                Ok(vec![b.pool2d(op, &x[0], &o)?])
            });
            let x = s.input("x", dt, &[2, 6, 7, 3], g);
            s.run(op, &io, "nhwc window [2,3] dilations [1,2] ceil rounding", vec![x], tol(6), move |b, x| {
                let o = Pool2dOptions {
                    window_dimensions: Some(vec![2, 3]),
                    strides: Some(vec![2, 1]),
                    dilations: Some(vec![1, 2]),
                    layout: InputOperandLayout::Nhwc,
                    output_shape_rounding: RoundingType::Ceil,
                    ..Default::default()
                };
                Ok(vec![b.pool2d(op, &x[0], &o)?])
            });
            let x = s.input("x", dt, &[1, 2, 5, 6], g);
            s.run(op, &io, "global", vec![x], tol(30), move |b, x| Ok(vec![b.pool2d(op, &x[0], &Pool2dOptions::default())?]));
        }
    }
    for dt in s.types(Resample2d, "input") {
        let io = same(&["input", "output"], dt);
        let g = if is_float(dt) { Gen::Range(-4.0, 4.0) } else { Gen::Bits };
        let x = s.input("x", dt, &[1, 2, 4, 5], g);
        s.run(Resample2d, &io, "nearest scales [2,1.5]", vec![x], Tol::BITS, |b, x| {
            Ok(vec![b.resample2d(&x[0], &Resample2dOptions { scales: Some(vec![2.0, 1.5]), ..Default::default() })?])
        });
        let x = s.input("x", dt, &[1, 2, 4, 5], g);
        s.run(Resample2d, &io, "linear sizes [7,9]", vec![x], Tol::ulp(84, 10).and_atol(1e-5, 2e-3), |b, x| {
            let o = Resample2dOptions { mode: InterpolationMode::Linear, sizes: Some(vec![7, 9]), ..Default::default() };
            Ok(vec![b.resample2d(&x[0], &o)?])
        });
        let x = s.input("x", dt, &[3, 4, 5, 2], g);
        s.run(Resample2d, &io, "linear axes [1,2] scales [0.5,1.7]", vec![x], Tol::ulp(84, 10).and_atol(1e-5, 2e-3), |b, x| {
            let o = Resample2dOptions {
                mode: InterpolationMode::Linear,
                scales: Some(vec![0.5, 1.7]),
                axes: Some(vec![1, 2]),
                ..Default::default()
            };
            Ok(vec![b.resample2d(&x[0], &o)?])
        });
    }
    s.finish();
}

// ---------------------------------------------------------------------------------------------
// Reductions

/// Integer rows whose product does not overflow: mostly 1, one 2 and one 3 per 250 elements
/// (and one -1 in the signed one).
const PRODUCT_ROW: [f64; 250] = {
    let mut a = [1.0; 250];
    a[7] = 2.0;
    a[201] = 3.0;
    a
};
const SIGNED_PRODUCT_ROW: [f64; 250] = {
    let mut a = PRODUCT_ROW;
    a[100] = -1.0;
    a
};

#[test]
fn reductions() {
    let Some(mut s) = Suite::new("reductions", REDUCE_OPS) else { return };
    let shape = [2u32, 3, 5];
    for &op in &REDUCE_OPS[..10] {
        for dt in s.types(op, "input") {
            let io = same(&["input", "output"], dt);
            let float = is_float(dt);
            let g = match op {
                ReduceLogSum => Gen::Range(0.1, 4.0),
                ReduceLogSumExp => Gen::Range(-4.0, 4.0),
                ReduceProduct if float => Gen::Range(0.5, 1.5),
                ReduceProduct => Gen::Range(-2.0, 3.0),
                ReduceMax | ReduceMin if !float => Gen::Bits,
                ReduceSumSquare | ReduceL1 if !float => Gen::Range(-100.0, 100.0),
                ReduceSum if !float => Gen::Range(-1000.0, 1000.0),
                ReduceSum | ReduceMean | ReduceL1 | ReduceL2 | ReduceSumSquare if dt == Float16 => Gen::Range(-1.0, 1.0),
                _ => Gen::Range(-4.0, 4.0),
            };
            let tol = |r: u64| {
                let n = match op {
                    ReduceL1 | ReduceSum | ReduceProduct => r,
                    ReduceL2 => 2 * r + 1,
                    ReduceLogSum => r + 18,
                    ReduceLogSumExp => 2 * r + 18,
                    ReduceMean => r + 2,
                    ReduceSumSquare => 2 * r,
                    _ => return Tol::EXACT,
                };
                Tol::ulp(n, n).and_atol(1e-5, 2e-3)
            };
            for (axes, keep) in [(Some(vec![0u32, 2]), false), (None, true), (Some(vec![1]), true), (Some(vec![]), false)] {
                let r = axes.as_deref().map_or(30, |a| count(&shape, a));
                let what = format!("[2,3,5] axes {axes:?} keepDimensions {keep}");
                let ins = vec![s.input("x", dt, &shape, g)];
                s.run(op, &io, &what, ins, tol(r), move |b, x| {
                    let o = ReduceOptions { axes: axes.clone(), keep_dimensions: keep, ..Default::default() };
                    Ok(vec![b.reduce(op, &x[0], &o)?])
                });
            }
            let ins = vec![s.input("x", dt, &[40, 37], g)];
            s.run(op, &io, "[40,37] axes [0]", ins, tol(40), move |b, x| {
                Ok(vec![b.reduce(op, &x[0], &ReduceOptions { axes: Some(vec![0]), ..Default::default() })?])
            });
            // Rows longer than a workgroup.
            let g = match op {
                ReduceProduct if float => Gen::Range(0.95, 1.05),
                ReduceProduct if dt == Int32 => Gen::Values(&SIGNED_PRODUCT_ROW),
                ReduceProduct => Gen::Values(&PRODUCT_ROW),
                _ => g,
            };
            let ins = vec![s.input("x", dt, &[3, 1000], g)];
            s.run(op, &io, "[3,1000] axes [1]", ins, tol(1000), move |b, x| {
                Ok(vec![b.reduce(op, &x[0], &ReduceOptions { axes: Some(vec![1]), ..Default::default() })?])
            });
        }
    }
    for &op in &[ArgMin, ArgMax] {
        for dt in s.types(op, "input") {
            for out in s.types(op, "output") {
                let m = [("input", dt), ("output", out)];
                // Distinct values (ties are implementation-dependent); the long rows hold at
                // most 240 elements in all, so that 8-bit types hold them.
                for (sh, axis, keep) in [(&shape[..], 1u32, false), (&shape, 2, true), (&shape, 0, false), (&[2, 120], 1, false)] {
                    let ins = vec![s.input("x", dt, sh, Gen::Distinct)];
                    s.run(op, &m, &format!("{sh:?} axis {axis} keepDimensions {keep}"), ins, Tol::EXACT, move |b, x| {
                        let o = ArgMinMaxOptions { keep_dimensions: keep, output_data_type: out, ..Default::default() };
                        Ok(vec![b.arg_min_max(op, &x[0], axis, &o)?])
                    });
                }
                if !matches!(dt, Int8 | Uint8) {
                    let ins = vec![s.input("x", dt, &[3, 1000], Gen::Distinct)];
                    s.run(op, &m, "[3,1000] axis 1", ins, Tol::EXACT, move |b, x| {
                        let o = ArgMinMaxOptions { output_data_type: out, ..Default::default() };
                        Ok(vec![b.arg_min_max(op, &x[0], 1, &o)?])
                    });
                }
            }
        }
    }
    for dt in s.types(CumulativeSum, "input") {
        let io = same(&["input", "output"], dt);
        let g = if is_float(dt) { Gen::Range(-4.0, 4.0) } else { Gen::Range(-1000.0, 1000.0) };
        for (axis, exclusive, reversed) in [(2u32, false, false), (1, true, false), (0, false, true), (2, true, true)] {
                let ins = vec![s.input("x", dt, &shape, g)];
            let n = shape[axis as usize] as u64;
            let what = format!("[2,3,5] axis {axis} exclusive {exclusive} reversed {reversed}");
            s.run(CumulativeSum, &io, &what, ins, Tol::ulp(n, n).and_atol(1e-5, 2e-3), move |b, x| {
                Ok(vec![b.cumulative_sum(&x[0], axis, &CumulativeSumOptions { exclusive, reversed, ..Default::default() })?])
            });
        }
        let g = if is_float(dt) { Gen::Range(-1.0, 1.0) } else { g };
        let ins = vec![s.input("x", dt, &[2, 700], g)];
        s.run(CumulativeSum, &io, "[2,700] axis 1", ins, Tol::ulp(700, 700).and_atol(1e-4, 2e-2), move |b, x| {
            Ok(vec![b.cumulative_sum(&x[0], 1, &CumulativeSumOptions::default())?])
        });
    }
    s.finish();
}

// ---------------------------------------------------------------------------------------------
// Normalization

#[test]
fn normalization() {
    let Some(mut s) = Suite::new("normalization", NORMALIZATION_OPS) else { return };
    let r = Gen::Range(-3.0, 3.0);
    for dt in s.types(BatchNormalization, "input") {
        let m = same(&["input", "mean", "variance", "scale", "bias", "output"], dt);
        let ins = vec![
            s.input("x", dt, &[2, 3, 5], r),
            s.input("mean", dt, &[3], r),
            s.input("var", dt, &[3], Gen::Range(0.1, 2.0)),
            s.input("scale", dt, &[3], r),
            s.input("bias", dt, &[3], r),
        ];
        s.run(BatchNormalization, &m, "[2,3,5] axis 1 scale bias epsilon 1e-3", ins, Tol::ulp(6, 6).and_atol(1e-5, 2e-3), |b, x| {
            let o = BatchNormalizationOptions { scale: Some(x[3].clone()), bias: Some(x[4].clone()), epsilon: 1e-3, ..Default::default() };
            Ok(vec![b.batch_normalization(&x[0], &x[1], &x[2], &o)?])
        });
        let ins = vec![s.input("x", dt, &[2, 3, 5, 4], r), s.constant(dt, &[4], r), s.constant(dt, &[4], Gen::Range(0.1, 2.0))];
        s.run(BatchNormalization, &m[..3], "[2,3,5,4] axis 3, constant mean/variance", ins, Tol::ulp(6, 6).and_atol(1e-5, 2e-3), |b, x| {
            Ok(vec![b.batch_normalization(&x[0], &x[1], &x[2], &BatchNormalizationOptions { axis: 3, ..Default::default() })?])
        });
    }
    for dt in s.types(InstanceNormalization, "input") {
        let m = same(&["input", "scale", "bias", "output"], dt);
        let tol = Tol::ulp(840, 8400).and_atol(1e-5, 4e-3);
        let ins = vec![s.input("x", dt, &[2, 3, 5, 7], r), s.input("scale", dt, &[3], r), s.input("bias", dt, &[3], r)];
        s.run(InstanceNormalization, &m, "nchw [2,3,5,7] scale bias", ins, tol, |b, x| {
            let o = InstanceNormalizationOptions { scale: Some(x[1].clone()), bias: Some(x[2].clone()), ..Default::default() };
            Ok(vec![b.instance_normalization(&x[0], &o)?])
        });
        let ins = vec![s.input("x", dt, &[2, 5, 7, 3], r), s.input("scale", dt, &[3], r), s.input("bias", dt, &[3], r)];
        s.run(InstanceNormalization, &m, "nhwc [2,5,7,3] scale bias epsilon 1e-2", ins, tol, |b, x| {
            let o = InstanceNormalizationOptions {
                scale: Some(x[1].clone()),
                bias: Some(x[2].clone()),
                layout: InputOperandLayout::Nhwc,
                epsilon: 1e-2,
                ..Default::default()
            };
            Ok(vec![b.instance_normalization(&x[0], &o)?])
        });
    }
    for dt in s.types(LayerNormalization, "input") {
        let m = same(&["input", "scale", "bias", "output"], dt);
        let tol = Tol::ulp(14, 14).and_atol(1e-5, 4e-3);
        let ins = vec![s.input("x", dt, &[2, 3, 5], r), s.input("scale", dt, &[3, 5], r), s.input("bias", dt, &[3, 5], r)];
        s.run(LayerNormalization, &m, "[2,3,5] default axes, scale bias", ins, tol, |b, x| {
            let o = LayerNormalizationOptions { scale: Some(x[1].clone()), bias: Some(x[2].clone()), ..Default::default() };
            Ok(vec![b.layer_normalization(&x[0], &o)?])
        });
        let ins = vec![s.input("x", dt, &[2, 3, 5], r), s.input("scale", dt, &[5, 2], r), s.input("bias", dt, &[5, 2], r)];
        s.run(LayerNormalization, &m, "[2,3,5] axes [2,0]", ins, tol, |b, x| {
            let o = LayerNormalizationOptions {
                scale: Some(x[1].clone()),
                bias: Some(x[2].clone()),
                axes: Some(vec![2, 0]),
                ..Default::default()
            };
            Ok(vec![b.layer_normalization(&x[0], &o)?])
        });
        let ins = vec![s.input("x", dt, &[3, 700], r)];
        s.run(LayerNormalization, &m[..1], "[3,700] axes [1]", ins, tol.and_atol(1e-5, 4e-3), |b, x| {
            Ok(vec![b.layer_normalization(&x[0], &LayerNormalizationOptions { axes: Some(vec![1]), ..Default::default() })?])
        });
    }
    s.finish();
}

// ---------------------------------------------------------------------------------------------
// Data movement (bit-exact on every type)

#[test]
fn data_movement() {
    let Some(mut s) = Suite::new("data_movement", MOVEMENT_OPS) else { return };
    let io = |dt| same(&["input", "output"], dt);
    let g = Gen::Bits;
    for dt in s.types(Concat, "inputs") {
        let ins = vec![s.input("a", dt, &[2, 3, 5], g), s.input("b", dt, &[2, 1, 5], g), s.constant(dt, &[2, 2, 5], g)];
        s.run(Concat, &same(&["inputs", "output"], dt), "axis 1, three inputs", ins, Tol::BITS, |b, x| {
            Ok(vec![b.concat(&[&x[0], &x[1], &x[2]], 1, &NO)?])
        });
        let ins = vec![s.input("a", dt, &[3, 1], g), s.input("b", dt, &[3, 4], g)];
        s.run(Concat, &same(&["inputs", "output"], dt), "axis 1, last axis", ins, Tol::BITS, |b, x| {
            Ok(vec![b.concat(&[&x[0], &x[1]], 1, &NO)?])
        });
    }
    for dt in s.types(Expand, "input") {
        let ins = vec![s.input("x", dt, &[3, 1], g)];
        s.run(Expand, &io(dt), "[3,1] to [2,3,5]", ins, Tol::BITS, |b, x| Ok(vec![b.expand(&x[0], &[2, 3, 5], &NO)?]));
    }
    for dt in s.types(Pad, "input") {
        for (mode, what) in [(PaddingMode::Constant, "constant 3"), (PaddingMode::Edge, "edge"), (PaddingMode::Reflection, "reflection")] {
            let ins = vec![s.input("x", dt, &[2, 3, 5], g)];
            s.run(Pad, &io(dt), what, ins, Tol::BITS, move |b, x| {
                Ok(vec![b.pad(&x[0], &[1, 0, 2], &[0, 2, 1], &PadOptions { mode, value: 3.0.into(), ..Default::default() })?])
            });
        }
    }
    for dt in s.types(Reshape, "input") {
        let ins = vec![s.input("x", dt, &[2, 3, 5], g)];
        s.run(Reshape, &io(dt), "[2,3,5] to [5,6]", ins, Tol::BITS, |b, x| Ok(vec![b.reshape(&x[0], &[5, 6], &NO)?]));
    }
    for dt in s.types(Reverse, "input") {
        let ins = vec![s.input("x", dt, &[2, 3, 5], g)];
        s.run(Reverse, &io(dt), "axes [0,2]", ins, Tol::BITS, |b, x| {
            Ok(vec![b.reverse(&x[0], &ReverseOptions { axes: Some(vec![0, 2]), ..Default::default() })?])
        });
    }
    for dt in s.types(Slice, "input") {
        let ins = vec![s.input("x", dt, &[2, 3, 7], g)];
        s.run(Slice, &io(dt), "starts [0,1,1] sizes [2,2,5] strides [1,1,2]", ins, Tol::BITS, |b, x| {
            Ok(vec![b.slice(&x[0], &[0, 1, 1], &[2, 2, 5], &SliceOptions { strides: Some(vec![1, 1, 2]), ..Default::default() })?])
        });
    }
    for dt in s.types(Split, "input") {
        let m = [("input", dt), ("outputs", dt)];
        let ins = vec![s.input("x", dt, &[2, 3, 5], g)];
        s.run(Split, &m, "sizes [2,3] axis 2", ins, Tol::BITS, |b, x| {
            b.split(&x[0], &Splits::Sizes(vec![2, 3]), &SplitOptions { axis: 2, ..Default::default() })
        });
        let ins = vec![s.input("x", dt, &[2, 3, 5], g)];
        s.run(Split, &m, "count 3 axis 1", ins, Tol::BITS, |b, x| {
            b.split(&x[0], &Splits::Count(3), &SplitOptions { axis: 1, ..Default::default() })
        });
    }
    for dt in s.types(Tile, "input") {
        let ins = vec![s.input("x", dt, &[2, 3, 5], g)];
        s.run(Tile, &io(dt), "repetitions [1,2,3]", ins, Tol::BITS, |b, x| Ok(vec![b.tile(&x[0], &[1, 2, 3], &NO)?]));
    }
    for dt in s.types(Transpose, "input") {
        let ins = vec![s.input("x", dt, &[2, 3, 5], g)];
        s.run(Transpose, &io(dt), "permutation [2,0,1]", ins, Tol::BITS, |b, x| {
            Ok(vec![b.transpose(&x[0], &TransposeOptions { permutation: Some(vec![2, 0, 1]), ..Default::default() })?])
        });
        let ins = vec![s.input("x", dt, &[1, 2, 5, 7], g)];
        s.run(Transpose, &io(dt), "[1,2,5,7] default permutation", ins, Tol::BITS, |b, x| {
            Ok(vec![b.transpose(&x[0], &TransposeOptions::default())?])
        });
    }
    for dt in s.types(Triangular, "input") {
        for (upper, diagonal) in [(true, 1), (false, -1), (false, 2)] {
            let ins = vec![s.input("x", dt, &[2, 4, 5], g)];
            s.run(Triangular, &io(dt), &format!("upper {upper} diagonal {diagonal}"), ins, Tol::BITS, move |b, x| {
                Ok(vec![b.triangular(&x[0], &TriangularOptions { upper, diagonal, ..Default::default() })?])
            });
        }
    }
    for dt in s.types(Where, "trueValue") {
        let m = [("condition", Uint8), ("trueValue", dt), ("falseValue", dt), ("output", dt)];
        let ins = vec![
            s.input("c", Uint8, &[2, 3, 5], Gen::Values(&[0.0, 1.0, 2.0, 0.0, 0.0, 255.0, 1.0])),
            s.input("t", dt, &[3, 5], g),
            s.input("f", dt, &[2, 1, 5], g),
        ];
        s.run(Where, &m, "condition [2,3,5], values [3,5] and [2,1,5]", ins, Tol::BITS, |b, x| {
            Ok(vec![b.where_(&x[0], &x[1], &x[2], &NO)?])
        });
    }
    s.finish();
}

// ---------------------------------------------------------------------------------------------
// Gather and scatter

/// Scatter indices along `axis` of an input of extent `n`: for each position of the other
/// axes, `k` distinct values (negative half the time where `dt` is signed), so that the
/// result does not depend on the order of the writes.
fn distinct_indices(rng: &mut Rng, dt: DataType, shape: &[u32], axis: usize, n: u32) -> Vec<u8> {
    let k = shape[axis] as usize;
    let mut values = vec![0f64; elements(shape)];
    let inner: usize = shape[axis + 1..].iter().map(|&d| d as usize).product();
    let outer: usize = shape[..axis].iter().map(|&d| d as usize).product();
    for o in 0..outer {
        for i in 0..inner {
            let mut pick: Vec<i64> = (0..n as i64).collect();
            rng.shuffle(&mut pick);
            for (j, &p) in pick.iter().take(k).enumerate() {
                let v = if dt != Uint32 && rng.int(0, 1) == 1 { p - n as i64 } else { p };
                values[(o * k + j) * inner + i] = v as f64;
            }
        }
    }
    let mut out = vec![];
    for v in values {
        encode(dt, v, &mut out);
    }
    out
}

#[test]
fn gather_and_scatter() {
    let Some(mut s) = Suite::new("gather_and_scatter", GATHER_OPS) else { return };
    let g = Gen::Bits;
    for &op in GATHER_OPS {
        for dt in s.types(op, "input") {
            for it in s.types(op, "indices") {
                let idx = |s: &mut Suite, shape: &[u32], n: u32| s.input("i", it, shape, Gen::Index(n));
                match op {
                    Gather => {
                        let m = [("input", dt), ("indices", it), ("output", dt)];
                        let ins = vec![s.input("x", dt, &[4, 3, 5], g), idx(&mut s, &[2, 3], 4)];
                        s.run(op, &m, "[4,3,5] axis 0 indices [2,3]", ins, Tol::BITS, |b, x| {
                            Ok(vec![b.gather(&x[0], &x[1], &GatherOptions::default())?])
                        });
                        let ins = vec![s.input("x", dt, &[4, 3, 5], g), idx(&mut s, &[], 5)];
                        s.run(op, &m, "[4,3,5] axis 2 scalar index", ins, Tol::BITS, |b, x| {
                            Ok(vec![b.gather(&x[0], &x[1], &GatherOptions { axis: 2, ..Default::default() })?])
                        });
                    }
                    GatherElements => {
                        let m = [("input", dt), ("indices", it), ("output", dt)];
                        let ins = vec![s.input("x", dt, &[4, 3, 5], g), idx(&mut s, &[4, 2, 5], 3)];
                        s.run(op, &m, "[4,3,5] axis 1 indices [4,2,5]", ins, Tol::BITS, |b, x| {
                            Ok(vec![b.gather_elements(&x[0], &x[1], &GatherOptions { axis: 1, ..Default::default() })?])
                        });
                    }
                    GatherNd => {
                        let m = [("input", dt), ("indices", it), ("output", dt)];
                        // Index tuples [i0 < 4, i1 < 3].
                        let mut bytes = vec![];
                        for k in 0..6 {
                            let (lo0, lo1) = if it == Uint32 { (0, 0) } else { (-4, -3) };
                            let v = if k % 2 == 0 { s.rng.int(lo0, 3) } else { s.rng.int(lo1, 2) };
                            encode(it, v as f64, &mut bytes);
                        }
                        let i = In { name: "i".into(), desc: OperandDescriptor::new(it, [3u32, 2]), bytes, constant: false };
                        let ins = vec![s.input("x", dt, &[4, 3, 5], g), i];
                        s.run(op, &m, "[4,3,5] indices [3,2]", ins, Tol::BITS, |b, x| Ok(vec![b.gather_nd(&x[0], &x[1], &NO)?]));
                    }
                    ScatterElements => {
                        let m = [("input", dt), ("indices", it), ("updates", dt), ("output", dt)];
                        let bytes = distinct_indices(&mut s.rng, it, &[2, 3, 5], 0, 4);
                        let i = In { name: "i".into(), desc: OperandDescriptor::new(it, [2u32, 3, 5]), bytes, constant: false };
                        let ins = vec![s.input("x", dt, &[4, 3, 5], g), i, s.input("u", dt, &[2, 3, 5], g)];
                        s.run(op, &m, "[4,3,5] axis 0 indices [2,3,5]", ins, Tol::BITS, |b, x| {
                            Ok(vec![b.scatter_elements(&x[0], &x[1], &x[2], &ScatterOptions::default())?])
                        });
                        let bytes = distinct_indices(&mut s.rng, it, &[4, 3, 2], 2, 5);
                        let i = In { name: "i".into(), desc: OperandDescriptor::new(it, [4u32, 3, 2]), bytes, constant: false };
                        let ins = vec![s.input("x", dt, &[4, 3, 5], g), i, s.input("u", dt, &[4, 3, 2], g)];
                        s.run(op, &m, "[4,3,5] axis 2 indices [4,3,2]", ins, Tol::BITS, |b, x| {
                            Ok(vec![b.scatter_elements(&x[0], &x[1], &x[2], &ScatterOptions { axis: 2, ..Default::default() })?])
                        });
                    }
                    _ => {
                        let m = [("input", dt), ("indices", it), ("updates", dt), ("output", dt)];
                        // Rows 2 and 0 (written as -4 where signed) of a [4,3,5] input.
                        let rows: &[f64] = if it == Uint32 { &[2.0, 0.0] } else { &[2.0, -4.0] };
                        let i = s.input("i", it, &[2, 1], Gen::Values(rows));
                        let ins = vec![s.input("x", dt, &[4, 3, 5], g), i, s.input("u", dt, &[2, 3, 5], g)];
                        s.run(op, &m, "[4,3,5] indices [2,1] updates [2,3,5]", ins, Tol::BITS, |b, x| {
                            Ok(vec![b.scatter_nd(&x[0], &x[1], &x[2], &NO)?])
                        });
                        // Cells (1,2), (3,0), (0,1) of the [4,3] leading axes.
                        let cells: &[f64] =
                            if it == Uint32 { &[1.0, 2.0, 3.0, 0.0, 0.0, 1.0] } else { &[1.0, -1.0, 3.0, 0.0, -4.0, 1.0] };
                        let i = s.input("i", it, &[3, 2], Gen::Values(cells));
                        let ins = vec![s.input("x", dt, &[4, 3, 5], g), i, s.input("u", dt, &[3, 5], g)];
                        s.run(op, &m, "[4,3,5] indices [3,2] updates [3,5]", ins, Tol::BITS, |b, x| {
                            Ok(vec![b.scatter_nd(&x[0], &x[1], &x[2], &NO)?])
                        });
                    }
                }
            }
        }
    }
    s.finish();
}

// ---------------------------------------------------------------------------------------------
// Quantization

#[test]
fn quantization() {
    let Some(mut s) = Suite::new("quantization", QUANTIZE_OPS) else { return };
    for ft in s.types(QuantizeLinear, "input") {
        for qt in s.types(QuantizeLinear, "zeroPoint") {
            let m = [("input", ft), ("scale", ft), ("zeroPoint", qt), ("output", qt)];
            let zp = if int_range(qt).is_some_and(|r| r.0 == 0) { Gen::Range(0.0, 20.0) } else { Gen::Range(-10.0, 10.0) };
            let ins = vec![
                s.input("x", ft, &[2, 3, 5], Gen::Range(-40.0, 40.0)),
                s.input("scale", ft, &[2, 1, 5], Gen::Range(0.05, 0.6)),
                s.input("zp", qt, &[2, 1, 5], zp),
            ];
            s.run(QuantizeLinear, &m, "[2,3,5] blockwise scale [2,1,5] (saturating)", ins, Tol::EXACT, |b, x| {
                Ok(vec![b.quantize_linear(&x[0], &x[1], &x[2], &NO)?])
            });
            let ins = vec![
                s.input("x", ft, &[3, 4], Gen::Halves(-30.0, 30.0)),
                s.constant(ft, &[1, 1], Gen::Values(&[0.5])),
                s.constant(qt, &[1, 1], Gen::Values(&[3.0])),
            ];
            s.run(QuantizeLinear, &m, "[3,4] ties, constant scale 0.5", ins, Tol::EXACT, |b, x| {
                Ok(vec![b.quantize_linear(&x[0], &x[1], &x[2], &NO)?])
            });
        }
    }
    for qt in s.types(DequantizeLinear, "input") {
        for ft in s.types(DequantizeLinear, "scale") {
            let m = [("input", qt), ("scale", ft), ("zeroPoint", qt), ("output", ft)];
            let ins = vec![
                s.input("x", qt, &[2, 3, 5], Gen::Range(-1000.0, 1000.0)),
                s.input("scale", ft, &[1, 3, 5], Gen::Range(0.05, 0.6)),
                s.input("zp", qt, &[1, 3, 5], Gen::Range(-10.0, 10.0)),
            ];
            s.run(DequantizeLinear, &m, "[2,3,5] scale [1,3,5]", ins, Tol::ulp(1, 1), |b, x| {
                Ok(vec![b.dequantize_linear(&x[0], &x[1], &x[2], &NO)?])
            });
            let ins = vec![
                s.input("x", qt, &[4, 6], Gen::Range(-1000.0, 1000.0)),
                s.input("scale", ft, &[2, 3], Gen::Range(0.05, 0.6)),
                s.input("zp", qt, &[2, 3], Gen::Range(-10.0, 10.0)),
            ];
            s.run(DequantizeLinear, &m, "[4,6] blocks [2,2]", ins, Tol::ulp(1, 1), |b, x| {
                Ok(vec![b.dequantize_linear(&x[0], &x[1], &x[2], &NO)?])
            });
        }
    }
    s.finish();
}

// ---------------------------------------------------------------------------------------------
// Recurrent networks

#[test]
fn recurrent() {
    let Some(mut s) = Suite::new("recurrent", RECURRENT_OPS) else { return };
    let r = Gen::Range(-0.8, 0.8);
    let (steps, batch, input, hidden) = (3u32, 2u32, 4u32, 5u32);
    for dt in s.types(Gru, "input") {
        let m = same(
            &["input", "weight", "recurrentWeight", "bias", "recurrentBias", "initialHiddenState", "output0", "output1"],
            dt,
        );
        for (dirs, direction, reset_after, layout) in [
            (1, RecurrentNetworkDirection::Forward, true, GruWeightLayout::Zrn),
            (2, RecurrentNetworkDirection::Both, false, GruWeightLayout::Rzn),
        ] {
            let ins = vec![
                s.input("x", dt, &[steps, batch, input], r),
                s.input("w", dt, &[dirs, 3 * hidden, input], r),
                s.input("rw", dt, &[dirs, 3 * hidden, hidden], r),
                s.input("b", dt, &[dirs, 3 * hidden], r),
                s.input("rb", dt, &[dirs, 3 * hidden], r),
                s.input("h0", dt, &[dirs, batch, hidden], r),
            ];
            let what = format!("{direction:?} resetAfter {reset_after} {layout:?} returnSequence");
            s.run(Gru, &m, &what, ins, Tol::ulp(6, 6).and_atol(1e-5, 2e-3), move |b, x| {
                let o = GruOptions {
                    bias: Some(x[3].clone()),
                    recurrent_bias: Some(x[4].clone()),
                    initial_hidden_state: Some(x[5].clone()),
                    reset_after,
                    return_sequence: true,
                    direction,
                    layout,
                    ..Default::default()
                };
                b.gru(&x[0], &x[1], &x[2], steps, hidden, &o)
            });
        }
    }
    for dt in s.types(GruCell, "input") {
        let m = same(&["input", "weight", "recurrentWeight", "hiddenState", "bias", "recurrentBias", "output"], dt);
        let ins = vec![
            s.input("x", dt, &[batch, input], r),
            s.input("w", dt, &[3 * hidden, input], r),
            s.input("rw", dt, &[3 * hidden, hidden], r),
            s.input("h", dt, &[batch, hidden], r),
            s.input("b", dt, &[3 * hidden], r),
            s.input("rb", dt, &[3 * hidden], r),
        ];
        s.run(GruCell, &m, "bias, recurrentBias, resetAfter false", ins, Tol::ulp(3, 3).and_atol(1e-5, 2e-3), move |b, x| {
            let o = GruCellOptions { bias: Some(x[4].clone()), recurrent_bias: Some(x[5].clone()), reset_after: false, ..Default::default() };
            Ok(vec![b.gru_cell(&x[0], &x[1], &x[2], &x[3], hidden, &o)?])
        });
    }
    for dt in s.types(Lstm, "input") {
        let m = same(
            &[
                "input",
                "weight",
                "recurrentWeight",
                "bias",
                "recurrentBias",
                "peepholeWeight",
                "initialHiddenState",
                "initialCellState",
                "output0",
                "output1",
                "output2",
            ],
            dt,
        );
        for (dirs, direction, layout) in
            [(1, RecurrentNetworkDirection::Backward, LstmWeightLayout::Iofg), (2, RecurrentNetworkDirection::Both, LstmWeightLayout::Ifgo)]
        {
            let ins = vec![
                s.input("x", dt, &[steps, batch, input], r),
                s.input("w", dt, &[dirs, 4 * hidden, input], r),
                s.input("rw", dt, &[dirs, 4 * hidden, hidden], r),
                s.input("b", dt, &[dirs, 4 * hidden], r),
                s.input("rb", dt, &[dirs, 4 * hidden], r),
                s.input("p", dt, &[dirs, 3 * hidden], r),
                s.input("h0", dt, &[dirs, batch, hidden], r),
                s.input("c0", dt, &[dirs, batch, hidden], r),
            ];
            let what = format!("{direction:?} {layout:?} returnSequence, every option");
            s.run(Lstm, &m, &what, ins, Tol::ulp(3, 3).and_atol(1e-5, 2e-3), move |b, x| {
                let o = LstmOptions {
                    bias: Some(x[3].clone()),
                    recurrent_bias: Some(x[4].clone()),
                    peephole_weight: Some(x[5].clone()),
                    initial_hidden_state: Some(x[6].clone()),
                    initial_cell_state: Some(x[7].clone()),
                    return_sequence: true,
                    direction,
                    layout,
                    ..Default::default()
                };
                b.lstm(&x[0], &x[1], &x[2], steps, hidden, &o)
            });
        }
    }
    for dt in s.types(LstmCell, "input") {
        let m = same(
            &[
                "input",
                "weight",
                "recurrentWeight",
                "hiddenState",
                "cellState",
                "bias",
                "recurrentBias",
                "peepholeWeight",
                "output0",
                "output1",
            ],
            dt,
        );
        let ins = vec![
            s.input("x", dt, &[batch, input], r),
            s.input("w", dt, &[4 * hidden, input], r),
            s.input("rw", dt, &[4 * hidden, hidden], r),
            s.input("h", dt, &[batch, hidden], r),
            s.input("c", dt, &[batch, hidden], r),
            s.input("b", dt, &[4 * hidden], r),
            s.input("rb", dt, &[4 * hidden], r),
            s.input("p", dt, &[3 * hidden], r),
        ];
        s.run(LstmCell, &m, "every option", ins, Tol::ulp(1, 2).and_atol(1e-5, 2e-3), move |b, x| {
            let o = LstmCellOptions {
                bias: Some(x[5].clone()),
                recurrent_bias: Some(x[6].clone()),
                peephole_weight: Some(x[7].clone()),
                ..Default::default()
            };
            b.lstm_cell(&x[0], &x[1], &x[2], &x[3], &x[4], hidden, &o)
        });
    }
    s.finish();
}
