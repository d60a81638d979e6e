//! Lowering of a validated graph to a flat plan: one step per operation with its kernel
//! prepared at build time, constants shared with the graph (not copied), intermediates in one
//! arena placed by [`crate::memory::plan_arena`]. The arena is allocated (fallibly) at the
//! first dispatch and freed with the graph. `execute` binds the caller's buffers and runs the
//! steps in order; after the first dispatch it allocates nothing.

use crate::compile::{NodeKind, Program};
use crate::kernels::{self, In, Kernel, Out};
use crate::memory::{plan_arena, AlignedBuf, Lifetime};
use crate::profile::{self, Profile};
use smallvec::SmallVec;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use webnn_core::backend::CompiledGraph;
use webnn_core::coverage::{Coverage, Record};
use webnn_core::{Error, Graph, OperandDescriptor, OperandId, Result, SharedBytes};

/// Where an operand's bytes live during a dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Location {
    /// The caller's input buffer `i`.
    Input(usize),
    /// The caller's output buffer `i`.
    Output(usize),
    /// Constant storage `i`.
    Constant(usize),
    /// The arena, at this byte offset.
    Arena(usize),
    /// The bytes of operand `i` (never itself an alias) from this byte offset on: a reshape's
    /// output (offset 0), whose step is dropped, or an input of a concat written in place
    /// ([`place_concat_inputs`]).
    Alias(usize, usize),
    /// Never read or written (an unused output of a multi-output op gets arena space instead).
    Unused,
}

/// One step: a prepared kernel and the operands it reads and writes.
struct Step {
    kernel: Box<dyn Kernel>,
    inputs: Vec<Option<OperandId>>,
    outputs: Vec<OperandId>,
    /// The op kind and a short description (label, shapes), for profiles.
    name: (String, String),
}

/// A compiled graph: steps, constant storage and the memory plan.
pub struct Plan {
    descriptors: Vec<OperandDescriptor>,
    locations: Vec<Location>,
    constants: Vec<SharedBytes>,
    steps: Vec<Step>,
    arena_size: usize,
    input_count: usize,
    /// (output index, operand) pairs whose operand's home is another output: copied at the end.
    output_copies: Vec<(usize, usize)>,
    /// (alias, operand, byte offset): `Location::Alias` operands and where their bytes lie.
    aliases: Vec<(usize, usize, usize)>,
    output_count: usize,
    /// What `WEBNN_OP_COVERAGE` records of this graph.
    coverage: Coverage,
    /// Bytes the steps read and write in one dispatch (each step's operands), a cost estimate.
    touched_bytes: usize,
}

/// Plans that touch at most this many bytes per dispatch take microseconds: the timeline runs
/// them on the dispatching thread ([`CompiledGraph::runs_inline`]).
const INLINE_MAX_BYTES: usize = 1 << 16;

impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plan").field("steps", &self.steps.len()).field("arena_size", &self.arena_size).finish()
    }
}

impl Plan {
    /// Lowers a validated graph. Fails with an OperationError if an op cannot be lowered.
    pub fn compile(original: &Graph) -> Result<Plan> {
        Plan::compile_with(original, crate::compile::Passes::from_env())
    }

    /// [`Plan::compile`] with the optional passes of `passes`.
    pub fn compile_with(original: &Graph, passes: crate::compile::Passes) -> Result<Plan> {
        // Kernels are lowered against the graph the passes hand on (folded results are
        // constants there); coverage records the caller's operations.
        let (graph, program) = Program::compile_with(original, passes);
        let graph: &Graph = &graph;
        let n = graph.operands.len();
        let descriptors: Vec<OperandDescriptor> = graph.operands.iter().map(|o| o.descriptor.clone()).collect();
        let mut locations = vec![Location::Unused; n];
        for (i, (_, id)) in graph.inputs.iter().enumerate() {
            locations[id.index()] = Location::Input(i);
        }
        let mut constants = Vec::with_capacity(graph.constants.len());
        for c in &graph.constants {
            locations[c.operand.index()] = Location::Constant(constants.len());
            constants.push(c.bytes.clone());
        }
        let mut output_copies = Vec::new();
        for (i, (_, id)) in graph.outputs.iter().enumerate() {
            match locations[id.index()] {
                Location::Output(home) => output_copies.push((i, home)),
                _ => locations[id.index()] = Location::Output(i),
            }
        }

        let in_place = place_concat_inputs(graph, &program.nodes, &mut locations);
        let in_place_count = in_place.iter().filter(|&&p| p).count();
        let mut steps = Vec::with_capacity(program.nodes.len());
        let root_of = |locations: &[Location], id: OperandId| match locations[id.index()] {
            Location::Alias(root, offset) => (root, offset),
            _ => (id.index(), 0),
        };
        for (node, in_place) in program.nodes.into_iter().zip(in_place) {
            if in_place {
                continue;
            }
            let op = &graph.operations[node.op];
            // A reshape reinterprets its input's bytes: unless its result must land in a
            // caller's output buffer, it reads them where they are and runs no step (kernels
            // take shapes from the graph, and `In::desc` is the reshape's own descriptor).
            if let (NodeKind::Op, webnn_core::OpKind::Reshape, [Some(input)], [output]) =
                (&node.kind, op.kind, node.inputs.as_slice(), node.outputs.as_slice())
            {
                if locations[output.index()] == Location::Unused {
                    let (root, offset) = root_of(&locations, *input);
                    locations[output.index()] = Location::Alias(root, offset);
                    continue;
                }
            }
            let kernel = match &node.kind {
                NodeKind::Op => kernels::lower(op, graph),
                NodeKind::Activation(act) => {
                    Ok(kernels::activation::lower_fused(*act, graph.descriptor(node.outputs[0]).data_type))
                }
                NodeKind::WithEpilogue(epilogue) => kernels::lower_with_epilogue(op, graph, epilogue.clone()),
                NodeKind::Quantized(q) => kernels::quantized::lower(op, graph, &node.inputs, q),
                NodeKind::QuantizedElementwise(e) => {
                    kernels::quantized_elementwise::lower(graph, &node.inputs, &node.outputs, e)
                }
            }
            .map_err(|e| {
                Error::operation(format!(
                    "{}{}: cannot compile for the CPU: {}",
                    label(&op.label),
                    node.name,
                    e.message
                ))
            })?;
            let (_, what) = describe(op, &descriptors);
            steps.push(Step { kernel, inputs: node.inputs, outputs: node.outputs, name: (node.name, what) });
        }

        // Lifetimes of the intermediates: from the first step writing their bytes (an in-place
        // concat's are written by its inputs' producers) to the last reader.
        let mut first = vec![usize::MAX; n];
        let mut last = vec![0usize; n];
        for (s, step) in steps.iter().enumerate() {
            for &o in &step.outputs {
                let (i, _) = root_of(&locations, o);
                first[i] = first[i].min(s);
                last[i] = last[i].max(s);
            }
            // An alias keeps the bytes it shares alive as long as it is read.
            for &o in step.inputs.iter().flatten() {
                let (i, _) = root_of(&locations, o);
                last[i] = last[i].max(s);
            }
        }
        let mut arena_values = Vec::new();
        let mut arena_ids = Vec::new();
        for (i, loc) in locations.iter().enumerate() {
            if *loc == Location::Unused && first[i] != usize::MAX {
                arena_values.push(Lifetime {
                    size: descriptors[i].byte_length() as usize,
                    first: first[i],
                    last: last[i],
                });
                arena_ids.push(i);
            }
        }
        let touched_bytes = steps
            .iter()
            .flat_map(|s| s.inputs.iter().flatten().chain(&s.outputs))
            .map(|id| descriptors[id.index()].byte_length() as usize)
            .fold(0usize, usize::saturating_add);
        let aliases = (0..n)
            .filter_map(|i| match locations[i] {
                Location::Alias(root, offset) => Some((i, root, offset)),
                _ => None,
            })
            .collect();
        let (offsets, arena_size) = plan_arena(&arena_values);
        if crate::compile::dump_requested() {
            eprintln!(
                "arena: {arena_size} bytes for {} intermediates; {in_place_count} concat(s) written in place \
                 by their inputs' producers (no step)",
                arena_values.len()
            );
        }
        for (k, &i) in arena_ids.iter().enumerate() {
            locations[i] = Location::Arena(offsets[k]);
        }
        Ok(Plan {
            descriptors,
            locations,
            constants,
            steps,
            arena_size,
            input_count: graph.inputs.len(),
            output_copies,
            aliases,
            output_count: graph.outputs.len(),
            coverage: Coverage::new(Record::Cpu, original),
            touched_bytes,
        })
    }

    /// Bytes of arena the plan needs for intermediates.
    pub fn arena_size(&self) -> usize {
        self.arena_size
    }

    /// Number of steps.
    pub fn step_count(&self) -> usize {
        self.steps.len()
    }
}

/// Concats written in place: where a concat's inputs are one contiguous run each of its output
/// (every dimension before the axis is 1: channels of a batch-1 NCHW tensor), and every input
/// is an intermediate written by a step of its own, the producers write straight into the
/// output's bytes and the concat runs no step (SqueezeNet 1.1's eight concats copied 0.5 ms of
/// its 10). The inputs become [`Location::Alias`]es of the output (at their byte offsets), so
/// the output's bytes live from the first producer to the last reader of any of them.
/// All inputs or none: a kept concat step never reads bytes inside its own output.
///
/// Nodes are visited last to first, so that a concat whose output is itself an input of a
/// later in-place concat places its inputs inside that one's output. Returns, per node,
/// whether it runs no step.
fn place_concat_inputs(graph: &Graph, nodes: &[crate::compile::Node], locations: &mut [Location]) -> Vec<bool> {
    let mut produced_by_step = vec![false; locations.len()];
    for node in nodes {
        let is_reshape =
            matches!(node.kind, NodeKind::Op) && graph.operations[node.op].kind == webnn_core::OpKind::Reshape;
        for &o in &node.outputs {
            produced_by_step[o.index()] = !is_reshape;
        }
    }
    let mut in_place = vec![false; nodes.len()];
    for (k, node) in nodes.iter().enumerate().rev() {
        let op = &graph.operations[node.op];
        let webnn_core::graph::Attrs::Axis { axis } = op.attrs else { continue };
        if !matches!(node.kind, NodeKind::Op) || op.kind != webnn_core::OpKind::Concat {
            continue;
        }
        let [output] = node.outputs[..] else { continue };
        let (root, base) = match locations[output.index()] {
            Location::Unused | Location::Output(_) => (output.index(), 0),
            Location::Alias(root, offset) => (root, offset),
            _ => continue,
        };
        let shape = &graph.descriptor(output).shape;
        if shape.iter().take(axis as usize).any(|&d| d != 1) {
            continue;
        }
        let ids: Vec<OperandId> = node.inputs.iter().flatten().copied().collect();
        let eligible = |(i, id): (usize, &OperandId)| {
            locations[id.index()] == Location::Unused
                && produced_by_step[id.index()]
                && !ids[..i].contains(id)
                && !ids[i + 1..].contains(id)
        };
        if ids.len() != node.inputs.len() || !ids.iter().enumerate().all(eligible) {
            continue;
        }
        let mut offset = base;
        for id in ids {
            locations[id.index()] = Location::Alias(root, offset);
            offset += graph.descriptor(id).byte_length() as usize;
        }
        in_place[k] = true;
    }
    in_place
}

/// `[label] shapes -> shapes` of an operation, for profiles.
fn describe(op: &webnn_core::graph::Operation, descriptors: &[OperandDescriptor]) -> (String, String) {
    let shape = |id: &OperandId| {
        let d = &descriptors[id.index()];
        let dims: Vec<String> = d.shape.iter().map(|v| v.to_string()).collect();
        format!("{}[{}]", d.data_type.as_str(), dims.join("x"))
    };
    let ins: Vec<String> = op.inputs.iter().flatten().map(shape).collect();
    let outs: Vec<String> = op.outputs.iter().map(shape).collect();
    (op.kind.to_string(), format!("{}{} -> {}", label(&op.label), ins.join(" "), outs.join(" ")))
}

fn label(label: &str) -> String {
    webnn_core::error::label_prefix(label)
}

/// Runs one step on the operands at `addresses` (see `execute`).
fn run_step(step: &Step, descriptors: &[OperandDescriptor], addresses: &[(usize, usize)]) -> Result<()> {
    let ins: SmallVec<[Option<In<'_>>; 8]> = step
        .inputs
        .iter()
        .map(|o| {
            o.map(|id| {
                let (addr, len) = addresses[id.index()];
                // SAFETY: the address table points into buffers that outlive this call
                // (caller's slices, constant storage, the locked arena); `len` is the
                // operand's byte length, checked against the caller's buffers in `execute`.
                // Inputs of a step are only read while the step runs.
                let bytes = unsafe { std::slice::from_raw_parts(addr as *const u8, len) };
                In { desc: &descriptors[id.index()], bytes }
            })
        })
        .collect();
    let mut outs: SmallVec<[Out<'_>; 4]> = step
        .outputs
        .iter()
        .map(|id| {
            let (addr, len) = addresses[id.index()];
            // SAFETY: an output of a step is written by this step only; the memory plan
            // never places it over a value live during the step (its inputs included),
            // and graph outputs are distinct caller buffers.
            let bytes = unsafe { std::slice::from_raw_parts_mut(addr as *mut u8, len) };
            Out { desc: &descriptors[id.index()], bytes }
        })
        .collect();
    step.kernel.run(&ins, &mut outs)
}

/// Per-dispatch state reused across dispatches: the arena and the operand address table.
struct ExecState {
    arena: AlignedBuf,
    addresses: Vec<(usize, usize)>,
}

/// A [`Plan`] bound to a thread pool: the `[[implementation]]` of an MLGraph.
pub struct CompiledPlan {
    plan: Plan,
    pool: Arc<rayon::ThreadPool>,
    state: Mutex<ExecState>,
    /// Step timings when `WEBNN_PROFILE` is set.
    profile: Option<Mutex<Profile>>,
    /// Steps before this index run on the dispatching thread, the rest inside the pool (one
    /// handoff): the first step whose loops entered the pool ([`crate::par`]), learned at the
    /// first dispatch (`usize::MAX` until then). Kernels decide from shapes alone, so later
    /// dispatches make the same choices.
    first_in_pool: AtomicUsize,
}

impl CompiledPlan {
    /// Binds a plan to the pool it runs on. Its arena is allocated at the first dispatch, so
    /// graphs that are built but never dispatched hold no memory for intermediates.
    pub fn new(plan: Plan, pool: Arc<rayon::ThreadPool>) -> Self {
        let state = ExecState { arena: AlignedBuf::default(), addresses: vec![(0, 0); plan.locations.len()] };
        let profile =
            profile::enabled().then(|| Mutex::new(Profile::new(plan.steps.iter().map(|s| s.name.clone()).collect())));
        CompiledPlan { plan, pool, state: Mutex::new(state), profile, first_in_pool: AtomicUsize::new(usize::MAX) }
    }
}

impl Drop for CompiledPlan {
    fn drop(&mut self) {
        if let Some(mut profile) = self.profile.as_ref().and_then(|p| p.lock().ok()) {
            let first = self.first_in_pool.load(Ordering::Relaxed);
            profile.set_first_in_pool((first < self.plan.steps.len()).then_some(first));
            eprint!("{}", profile.report());
        }
    }
}

impl CompiledGraph for CompiledPlan {
    fn execute(&self, inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> Result<()> {
        let plan = &self.plan;
        if inputs.len() != plan.input_count || outputs.len() != plan.output_count {
            return Err(Error::unknown("CPU backend: wrong number of bound buffers"));
        }
        let mut guard = self.state.lock().map_err(|_| Error::unknown("CPU backend: a previous dispatch panicked"))?;
        let state = &mut *guard;
        if state.arena.len() < plan.arena_size {
            // Fails with an UnknownError (the context is lost) rather than aborting.
            state.arena = AlignedBuf::try_zeroed(plan.arena_size, "dispatch: the intermediate values of the graph")?;
        }
        let arena_ptr = state.arena.as_mut_ptr() as usize;
        for (i, loc) in plan.locations.iter().enumerate() {
            let len = plan.descriptors[i].byte_length() as usize;
            let addr = match *loc {
                Location::Input(k) => inputs[k].as_ptr() as usize,
                Location::Output(k) => outputs[k].as_mut_ptr() as usize,
                Location::Constant(k) => plan.constants[k].as_ptr() as usize,
                Location::Arena(off) => arena_ptr + off,
                // Set below, once the operand it shares has its address.
                Location::Alias(..) | Location::Unused => 0,
            };
            if let Location::Input(k) = *loc {
                if inputs[k].len() != len {
                    return Err(Error::unknown("CPU backend: input buffer size mismatch"));
                }
            }
            if let Location::Output(k) = *loc {
                if outputs[k].len() != len {
                    return Err(Error::unknown("CPU backend: output buffer size mismatch"));
                }
            }
            state.addresses[i] = (addr, len);
        }
        for &(alias, root, offset) in &plan.aliases {
            state.addresses[alias].0 = state.addresses[root].0 + offset;
        }
        let addresses = &state.addresses;
        let mut times: SmallVec<[Duration; 64]> = SmallVec::new();
        let timing = self.profile.is_some();
        let run = |steps: &[Step], times: &mut SmallVec<[Duration; 64]>| -> Result<()> {
            for step in steps {
                let start = timing.then(Instant::now);
                run_step(step, &plan.descriptors, addresses)?;
                if let Some(start) = start {
                    times.push(start.elapsed());
                }
            }
            Ok(())
        };
        // On this thread until a step's loops want the pool's threads, then the rest in it.
        let steps = &plan.steps[..];
        let learned = self.first_in_pool.load(Ordering::Relaxed);
        let mut next = 0;
        {
            let caller = crate::par::on_caller(&self.pool);
            if learned != usize::MAX {
                next = learned.min(steps.len());
                run(&steps[..next], &mut times)?;
            } else {
                // The first dispatch: find the first step that enters the pool (none: every
                // step runs here from now on).
                let mut first = steps.len();
                while next < steps.len() {
                    run(&steps[next..next + 1], &mut times)?;
                    next += 1;
                    if caller.wanted_pool() {
                        first = next - 1;
                        break;
                    }
                }
                self.first_in_pool.store(first, Ordering::Relaxed);
            }
        }
        if next < steps.len() {
            self.pool.install(|| run(&steps[next..], &mut times))?;
        }
        if let Some(profile) = &self.profile {
            if let Ok(mut p) = profile.lock() {
                p.record(&times);
            }
        }
        for &(dst, src) in &plan.output_copies {
            let (a, b) = if dst < src {
                let (lo, hi) = outputs.split_at_mut(src);
                (&mut lo[dst], &hi[0])
            } else {
                let (lo, hi) = outputs.split_at_mut(dst);
                (&mut hi[0], &lo[src])
            };
            a.copy_from_slice(b);
        }
        plan.coverage.executed();
        Ok(())
    }

    fn memory_bytes(&self) -> usize {
        self.plan.constants.iter().map(|c| c.len()).sum::<usize>() + self.plan.arena_size
    }

    fn runs_inline(&self) -> bool {
        self.plan.touched_bytes <= INLINE_MAX_BYTES
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::graphs::*;

    /// relu on a small input, then an add on a large one (its loop splits), then a small neg.
    fn small_large_small() -> Graph {
        let mut b = builder();
        let x = b.input("x", &f32_desc(&[8])).unwrap();
        let big = b.input("big", &f32_desc(&[1 << 20])).unwrap();
        let r = b.relu(&x, &opts()).unwrap();
        let s = b.add(&big, &big, &opts()).unwrap();
        let n = b.neg(&r, &opts()).unwrap();
        b.build(&[("n", &n), ("s", &s)]).unwrap()
    }

    fn dispatch(plan: &CompiledPlan, graph: &Graph) -> Vec<Vec<f32>> {
        let x = f32_bytes(&[-1., 2., -3., 4., -5., 6., -7., 8.]);
        let big = f32_bytes(&(0..1 << 20).map(|i| i as f32).collect::<Vec<_>>());
        let inputs: Vec<&[u8]> =
            graph.inputs.iter().map(|(name, _)| if name == "x" { &x[..] } else { &big[..] }).collect();
        let mut outs: Vec<Vec<u8>> =
            graph.outputs.iter().map(|(_, id)| vec![0u8; graph.descriptor(*id).byte_length() as usize]).collect();
        let mut slices: Vec<&mut [u8]> = outs.iter_mut().map(|o| o.as_mut_slice()).collect();
        plan.execute(&inputs, &mut slices).unwrap();
        outs.iter().map(|o| f32_values(o)).collect()
    }

    #[test]
    fn reshapes_read_their_input_in_place_unless_they_are_outputs() {
        // t = neg(x) lives in the arena; r = reshape(reshape(t)) reads it after u = relu(x),
        // an arena value created later that must not take t's place while r is still read.
        // rx = reshape(x) aliases a caller's input; `out` = reshape(v) is a graph output (copied).
        let mut b = builder();
        let x = b.input("x", &f32_desc(&[2, 4])).unwrap();
        let t = b.neg(&x, &opts()).unwrap();
        let r = b.reshape(&t, &[4, 2], &opts()).unwrap();
        let r = b.reshape(&r, &[8], &opts()).unwrap();
        let u = b.relu(&x, &opts()).unwrap();
        let u = b.reshape(&u, &[8], &opts()).unwrap();
        let v = b.add(&r, &u, &opts()).unwrap();
        let rx = b.reshape(&x, &[8], &opts()).unwrap();
        let w = b.mul(&v, &rx, &opts()).unwrap();
        let out = b.reshape(&w, &[4, 2], &opts()).unwrap();
        let graph = b.build(&[("w", &w), ("out", &out)]).unwrap();
        let plan =
            CompiledPlan::new(Plan::compile(&graph).unwrap(), Arc::new(crate::pool::build_pool(Some(1)).unwrap()));
        let names: Vec<&str> = plan.plan.steps.iter().map(|s| s.name.0.as_str()).collect();
        assert_eq!(names, ["neg", "relu", "add", "mul", "reshape"]);
        let outs = dispatch(&plan, &graph);
        let xs = [-1f32, 2., -3., 4., -5., 6., -7., 8.];
        let want: Vec<f32> = xs.iter().map(|&x| (-x + x.max(0.0)) * x).collect();
        assert_eq!(outs[0], want);
        assert_eq!(outs[1], want);
    }

    /// Per step name, how often the plan runs it.
    fn step_names(plan: &CompiledPlan) -> Vec<&str> {
        plan.plan.steps.iter().map(|s| s.name.0.as_str()).collect()
    }

    fn compile_on_one_thread(graph: &Graph) -> CompiledPlan {
        CompiledPlan::new(Plan::compile(graph).unwrap(), Arc::new(crate::pool::build_pool(Some(1)).unwrap()))
    }

    #[test]
    fn concats_are_written_in_place_by_their_inputs_producers() {
        // x: [1, 2, 4] (values -1, 2, -3, 4, -5, 6, -7, 8). a = neg(x), c = relu(x) along axis
        // 1 into ac: [1, 4, 4]; ac and e = abs(x) into the outer concat along axis 1 (nested:
        // a and c land inside the outer output). `c` is also read by a later step (sum), after
        // the concat: its bytes stay where the concat put them.
        let mut b = builder();
        let x = b.input("x", &f32_desc(&[1, 2, 4])).unwrap();
        let a = b.neg(&x, &opts()).unwrap();
        let c = b.relu(&x, &opts()).unwrap();
        let ac = b.concat(&[&a, &c], 1, &opts()).unwrap();
        let e = b.abs(&x, &opts()).unwrap();
        let outer = b.concat(&[&ac, &e], 1, &opts()).unwrap();
        let doubled = b.add(&outer, &outer, &opts()).unwrap();
        let t = b.add(&c, &c, &opts()).unwrap();
        let graph = b.build(&[("doubled", &doubled), ("t", &t), ("outer", &outer)]).unwrap();
        let plan = compile_on_one_thread(&graph);
        assert_eq!(step_names(&plan), ["neg", "relu", "abs", "add", "add"]);
        let outs = dispatch(&plan, &graph);
        let xs = [-1f32, 2., -3., 4., -5., 6., -7., 8.];
        let want_outer: Vec<f32> =
            xs.iter().map(|&v| -v).chain(xs.iter().map(|&v| v.max(0.0))).chain(xs.iter().map(|&v| v.abs())).collect();
        assert_eq!(outs[2], want_outer);
        assert_eq!(outs[0], want_outer.iter().map(|v| v + v).collect::<Vec<_>>());
        assert_eq!(outs[1], xs.iter().map(|&v| 2.0 * v.max(0.0)).collect::<Vec<_>>());
    }

    /// Builds a concat from the graph input `x` and `a = neg(x)`.
    type MakeConcat =
        fn(&mut webnn_core::GraphBuilder, &webnn_core::Operand, &webnn_core::Operand) -> webnn_core::Operand;

    #[test]
    fn concats_copy_when_an_input_is_not_theirs_to_place() {
        let xs = [-1f32, 2., -3., 4., -5., 6., -7., 8.];
        let neg: Vec<f32> = xs.iter().map(|&v| -v).collect();
        // A caller's input, a graph output, one operand twice, a dimension before the axis
        // that is not 1, a reshape's output: each keeps the concat's step (and its copy).
        let cases: [(&str, MakeConcat, Vec<f32>); 4] = [
            ("input", |b, x, a| b.concat(&[x, a], 1, &opts()).unwrap(), xs.iter().chain(&neg).copied().collect()),
            ("twice", |b, _, a| b.concat(&[a, a], 1, &opts()).unwrap(), neg.iter().chain(&neg).copied().collect()),
            (
                "axis 2",
                |b, x, a| {
                    let r = b.relu(x, &opts()).unwrap();
                    b.concat(&[a, &r], 2, &opts()).unwrap()
                },
                [&neg[..4], &[0., 2., 0., 4.], &neg[4..], &[0., 6., 0., 8.]].concat(),
            ),
            (
                "reshape",
                |b, x, a| {
                    let r = b.relu(x, &opts()).unwrap();
                    let r = b.reshape(&r, &[1, 2, 4], &opts()).unwrap();
                    b.concat(&[a, &r], 1, &opts()).unwrap()
                },
                neg.iter().copied().chain(xs.iter().map(|&v| v.max(0.0))).collect(),
            ),
        ];
        for (what, concat, want) in cases {
            let mut b = builder();
            let x = b.input("x", &f32_desc(&[1, 2, 4])).unwrap();
            let a = b.neg(&x, &opts()).unwrap();
            let y = concat(&mut b, &x, &a);
            let graph = b.build(&[("y", &y)]).unwrap();
            let plan = compile_on_one_thread(&graph);
            assert!(step_names(&plan).contains(&"concat"), "{what}: {:?}", step_names(&plan));
            assert_eq!(dispatch(&plan, &graph)[0], want, "{what}");
        }
        // An input that is a graph output too.
        let mut b = builder();
        let x = b.input("x", &f32_desc(&[1, 2, 4])).unwrap();
        let a = b.neg(&x, &opts()).unwrap();
        let r = b.relu(&x, &opts()).unwrap();
        let y = b.concat(&[&a, &r], 1, &opts()).unwrap();
        let graph = b.build(&[("y", &y), ("a", &a)]).unwrap();
        let plan = compile_on_one_thread(&graph);
        assert_eq!(step_names(&plan), ["neg", "relu", "concat"]);
        let outs = dispatch(&plan, &graph);
        assert_eq!(outs[0], neg.iter().copied().chain(xs.iter().map(|&v| v.max(0.0))).collect::<Vec<_>>());
        assert_eq!(outs[1], neg);
    }

    #[test]
    fn steps_run_on_the_caller_until_one_wants_the_pool() {
        let graph = small_large_small();
        for threads in [1, 2] {
            let plan = CompiledPlan::new(
                Plan::compile(&graph).unwrap(),
                Arc::new(crate::pool::build_pool(Some(threads)).unwrap()),
            );
            assert!(!plan.runs_inline(), "8 MiB of operands");
            let big_step = plan.plan.steps.iter().position(|s| s.name.0 == "add").unwrap();
            for _ in 0..3 {
                let outs = dispatch(&plan, &graph);
                let n = &outs[graph.outputs.iter().position(|(name, _)| name == "n").unwrap()];
                let s = &outs[graph.outputs.iter().position(|(name, _)| name == "s").unwrap()];
                assert_eq!(n, &[-0., -2., -0., -4., -0., -6., -0., -8.]);
                assert!(s.iter().enumerate().all(|(i, &v)| v == 2.0 * i as f32));
                // Learned at the first dispatch: the add's loop splits on two threads; on one,
                // every step stays on the calling thread.
                let first = plan.first_in_pool.load(Ordering::Relaxed);
                assert_eq!(first, if threads == 1 { plan.plan.steps.len() } else { big_step }, "{threads} threads");
            }
        }
    }

    #[test]
    fn small_plans_run_inline() {
        let mut b = builder();
        let x = b.input("x", &f32_desc(&[1, 4])).unwrap();
        let y = b.add(&x, &x, &opts()).unwrap();
        let plan = CompiledPlan::new(
            Plan::compile(&b.build(&[("y", &y)]).unwrap()).unwrap(),
            Arc::new(crate::pool::build_pool(Some(2)).unwrap()),
        );
        assert!(plan.runs_inline());
    }
}
