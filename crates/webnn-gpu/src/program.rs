//! A compiled graph on the GPU: every operand in a buffer (constants uploaded at build,
//! intermediates sharing buffers once their last reader has run), every operation lowered to
//! compute pipelines with their bind groups made at build, so that a dispatch only records
//! one command buffer: copy the input tensors in, run the passes, copy the outputs out.

use crate::device::{padded, Gpu};
use crate::kernels::{self, Lowering, Slot, Task};
use crate::memory::GpuTensor;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use webnn_core::backend::{CompiledGraph, TensorMemory};
use webnn_core::coverage::{Coverage, Record};
use webnn_core::graph::{Graph, OperandSource, Operation};
use webnn_core::{Error, Result};

/// Compiled pipelines by WGSL source, shared by the graphs of one backend.
pub(crate) type PipelineCache = Mutex<HashMap<String, wgpu::ComputePipeline>>;

enum Step {
    Pass { label: String, pipeline: wgpu::ComputePipeline, bind_group: wgpu::BindGroup, workgroups: [u32; 3] },
    Copy { from: usize, to: usize, bytes: u64 },
}

/// The `[[implementation]]` of an `MLGraph` on the GPU.
pub(crate) struct GpuProgram {
    gpu: Arc<Gpu>,
    buffers: Vec<wgpu::Buffer>,
    /// Buffer and byte length of each graph input, in the graph's order.
    inputs: Vec<(usize, u64)>,
    /// Buffer and byte length of each graph output, in the graph's order.
    outputs: Vec<(usize, u64)>,
    steps: Vec<Step>,
    bytes: usize,
    /// What the first dispatch records for the op-coverage check (`WEBNN_GPU_OP_COVERAGE`).
    coverage: Coverage,
}

/// Buffers handed out for intermediates and reused once free (smallest that fits).
struct Arena {
    sizes: Vec<u64>,
    free: Vec<usize>,
}

impl Arena {
    fn take(&mut self, size: u64) -> usize {
        let best =
            self.free.iter().enumerate().filter(|(_, &b)| self.sizes[b] >= size).min_by_key(|(_, &b)| self.sizes[b]);
        if let Some((at, &b)) = best {
            self.free.swap_remove(at);
            return b;
        }
        self.sizes.push(size);
        self.sizes.len() - 1
    }
    /// A buffer nobody else will ever share.
    fn own(&mut self, size: u64) -> usize {
        self.sizes.push(size);
        self.sizes.len() - 1
    }
}

impl GpuProgram {
    pub fn compile(gpu: &Arc<Gpu>, pipelines: &PipelineCache, graph: &Graph) -> Result<GpuProgram> {
        let lowering = Lowering { graph, max_workgroups: gpu.max_workgroups, epilogue: None };
        let fused = fuse_activations(graph);
        let n_ops = graph.operations.len();
        // The last operation reading each operand (graph outputs live to the end).
        let mut last_use = vec![None::<usize>; graph.operands.len()];
        for (i, op) in graph.operations.iter().enumerate() {
            for id in op.inputs.iter().flatten() {
                last_use[id.index()] = Some(i);
            }
        }
        for (_, id) in &graph.outputs {
            last_use[id.index()] = Some(n_ops);
        }
        let size = |id: webnn_core::OperandId| padded(graph.descriptor(id).byte_length());
        // Operations whose outputs are all constants were folded before compiling (see
        // `GpuBackend::with_constant_folding`): they run no kernel; constants only they read
        // need no buffer.
        let is_constant =
            |id: &webnn_core::OperandId| matches!(graph.operands[id.index()].source, OperandSource::Constant(_));
        let folded: Vec<bool> = graph.operations.iter().map(|op| op.outputs.iter().all(is_constant)).collect();
        let mut read = vec![false; graph.operands.len()];
        for (op, _) in graph.operations.iter().zip(&folded).filter(|(_, &f)| !f) {
            for id in op.inputs.iter().flatten() {
                read[id.index()] = true;
            }
        }
        let mut arena = Arena { sizes: Vec::new(), free: Vec::new() };
        let mut buffer_of: Vec<Option<usize>> = vec![None; graph.operands.len()];
        let mut constant_uploads = Vec::new();
        for (index, node) in graph.operands.iter().enumerate() {
            match node.source {
                OperandSource::Input(_) => buffer_of[index] = Some(arena.own(padded(node.descriptor.byte_length()))),
                OperandSource::Constant(c) if read[index] => {
                    let b = arena.own(padded(node.descriptor.byte_length()));
                    buffer_of[index] = Some(b);
                    constant_uploads.push((b, c));
                }
                OperandSource::Constant(_) | OperandSource::Operation { .. } => {}
            }
        }
        // Lower every op and assign buffers in order.
        let mut planned: Vec<(Vec<Task>, Vec<usize>)> = Vec::with_capacity(n_ops);
        for (i, op) in graph.operations.iter().enumerate() {
            // Folded at build, or run by its producer's epilogue: no work of its own.
            if folded[i] || matches!(fused[i], Fused::IntoProducer) {
                planned.push((Vec::new(), Vec::new()));
                continue;
            }
            // A producer with a fused activation writes the activation's output.
            let producer;
            let (op, l) = match &fused[i] {
                Fused::Epilogue { consumer, expression } => {
                    producer = Operation { outputs: graph.operations[*consumer].outputs.clone(), ..op.clone() };
                    (&producer, Lowering { epilogue: Some(expression.clone()), ..lowering.clone() })
                }
                Fused::No | Fused::IntoProducer => (op, lowering.clone()),
            };
            let work = kernels::lower(op, &l).map_err(|e| prefix(op, e))?;
            for &out in &op.outputs {
                let is_output = graph.outputs.iter().any(|(_, o)| *o == out);
                buffer_of[out.index()] = Some(if is_output { arena.own(size(out)) } else { arena.take(size(out)) });
            }
            let scratch: Vec<usize> = work.scratch.iter().map(|&bytes| arena.take(padded(bytes))).collect();
            arena.free.extend(scratch.iter().copied());
            for id in op.inputs.iter().flatten().chain(op.outputs.iter()) {
                let dead = last_use[id.index()].is_none_or(|u| u == i);
                let produced_here = op.outputs.contains(id);
                let source_is_op = matches!(graph.operands[id.index()].source, OperandSource::Operation { .. });
                if dead && source_is_op && (produced_here || op.inputs.contains(&Some(*id))) {
                    if let Some(b) = buffer_of[id.index()] {
                        if !arena.free.contains(&b) {
                            arena.free.push(b);
                        }
                    }
                }
            }
            planned.push((work.tasks, scratch));
        }
        // Make the buffers, upload the constants.
        let mut buffers = Vec::with_capacity(arena.sizes.len());
        for &bytes in &arena.sizes {
            buffers.push(gpu.buffer("build", bytes, wgpu::BufferUsages::empty())?);
        }
        for (b, c) in constant_uploads {
            gpu.upload(&buffers[b], graph.constants[c].bytes.as_ref())?;
        }
        let resolve = |slot: Slot, scratch: &[usize]| -> Result<usize> {
            match slot {
                Slot::Operand(id) => {
                    buffer_of[id.index()].ok_or_else(|| Error::unknown("build: an operand has no buffer"))
                }
                Slot::Scratch(k) => {
                    scratch.get(k).copied().ok_or_else(|| Error::unknown("build: unknown scratch buffer"))
                }
            }
        };
        let mut steps = Vec::new();
        for (tasks, scratch) in planned {
            for task in tasks {
                match task {
                    Task::Copy { from, to, bytes } => {
                        steps.push(Step::Copy { from: resolve(from, &scratch)?, to: resolve(to, &scratch)?, bytes })
                    }
                    Task::Kernel(k) => {
                        let pipeline = pipeline(gpu, pipelines, &k.label, &k.wgsl)?;
                        let layout = pipeline.get_bind_group_layout(0);
                        let mut entries = Vec::with_capacity(k.slots.len());
                        for (i, &slot) in k.slots.iter().enumerate() {
                            let b = resolve(slot, &scratch)?;
                            entries.push(wgpu::BindGroupEntry {
                                binding: i as u32,
                                resource: buffers[b].as_entire_binding(),
                            });
                        }
                        let bind_group = gpu.checked(&format!("build: {}", k.label), || {
                            gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                                label: Some(&k.label),
                                layout: &layout,
                                entries: &entries,
                            })
                        })?;
                        steps.push(Step::Pass { label: k.label, pipeline, bind_group, workgroups: k.workgroups });
                    }
                }
            }
        }
        let io = |list: &[(String, webnn_core::OperandId)]| -> Result<Vec<(usize, u64)>> {
            list.iter()
                .map(|(_, id)| Ok((resolve(Slot::Operand(*id), &[])?, graph.descriptor(*id).byte_length())))
                .collect()
        };
        let inputs = io(&graph.inputs)?;
        let outputs = io(&graph.outputs)?;
        let bytes = arena.sizes.iter().sum::<u64>() as usize;
        // The record names what ran on the GPU: not the folded operations.
        let ran = Graph {
            operations: graph.operations.iter().zip(&folded).filter(|(_, &f)| !f).map(|(op, _)| op.clone()).collect(),
            ..Graph::default()
        };
        let coverage = Coverage::new(Record::Gpu, &Graph { operands: graph.operands.clone(), ..ran });
        Ok(GpuProgram { gpu: gpu.clone(), buffers, inputs, outputs, steps, bytes, coverage })
    }
}

/// What the compile does with one operation.
enum Fused {
    /// Lowered on its own.
    No,
    /// A conv / matmul / gemm whose single consumer (operation `consumer`, a float activation)
    /// runs as its epilogue: lowered writing the consumer's output.
    Epilogue { consumer: usize, expression: String },
    /// An activation run by its producer's epilogue: nothing to do.
    IntoProducer,
}

/// Finds the conv / matmul / gemm outputs read only by one float activation (and not graph
/// outputs): the activation becomes the producer's epilogue, saving a pass and a buffer.
fn fuse_activations(graph: &Graph) -> Vec<Fused> {
    let mut readers = vec![0usize; graph.operands.len()];
    for op in &graph.operations {
        for id in op.inputs.iter().flatten() {
            readers[id.index()] += 1;
        }
    }
    for (_, id) in &graph.outputs {
        readers[id.index()] += 1;
    }
    let mut producer_of = vec![None; graph.operands.len()];
    for (i, op) in graph.operations.iter().enumerate() {
        for out in &op.outputs {
            producer_of[out.index()] = Some(i);
        }
    }
    let mut fused: Vec<Fused> = graph.operations.iter().map(|_| Fused::No).collect();
    let constant = |id: &webnn_core::OperandId| matches!(graph.operands[id.index()].source, OperandSource::Constant(_));
    for (j, op) in graph.operations.iter().enumerate() {
        let Some(x) = op.input(0) else { continue };
        if constant(&x) || op.outputs.iter().any(constant) {
            continue;
        }
        let Some(&y) = op.outputs.first() else { continue };
        let (dt, output) = (graph.descriptor(x).data_type, graph.descriptor(y).data_type);
        let Some(expression) = kernels::fusable_activation(op, dt, output) else { continue };
        let Some(i) = producer_of[x.index()] else { continue };
        let producer = &graph.operations[i];
        if readers[x.index()] == 1 && kernels::takes_epilogue(producer.kind) && matches!(fused[i], Fused::No) {
            fused[i] = Fused::Epilogue { consumer: j, expression };
            fused[j] = Fused::IntoProducer;
        }
    }
    fused
}

fn prefix(op: &webnn_core::graph::Operation, e: Error) -> Error {
    if op.label.is_empty() {
        e
    } else {
        Error { kind: e.kind, message: format!("[{}] {}", op.label, e.message) }
    }
}

/// The compute pipeline of a WGSL module, compiled once per backend.
fn pipeline(gpu: &Gpu, cache: &PipelineCache, label: &str, wgsl: &str) -> Result<wgpu::ComputePipeline> {
    if let Some(p) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(wgsl) {
        return Ok(p.clone());
    }
    let p = gpu.checked(&format!("build: the {label} shader"), || {
        let module = gpu.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(wgsl.into()),
        });
        gpu.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(label),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        })
    })?;
    cache.lock().unwrap_or_else(|e| e.into_inner()).insert(wgsl.to_string(), p.clone());
    Ok(p)
}

fn gpu_tensor(memory: &dyn TensorMemory) -> Result<&GpuTensor> {
    memory
        .as_any()
        .downcast_ref::<GpuTensor>()
        .ok_or_else(|| Error::unknown("dispatch: a tensor's memory is not on this GPU"))
}

impl CompiledGraph for GpuProgram {
    fn execute(&self, inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> Result<()> {
        // Host buffers: upload, run, read back (for callers without tensors, e.g. the CLI).
        for (&(b, _), bytes) in self.inputs.iter().zip(inputs) {
            self.gpu.upload(&self.buffers[b], bytes)?;
        }
        self.record(None, None)?;
        for (&(b, _), out) in self.outputs.iter().zip(outputs.iter_mut()) {
            self.gpu.download(&self.buffers[b], out)?;
        }
        self.coverage.executed();
        Ok(())
    }

    fn dispatch(&self, inputs: &[&dyn TensorMemory], outputs: &mut [&mut dyn TensorMemory]) -> Result<()> {
        let ins: Vec<&GpuTensor> = inputs.iter().map(|m| gpu_tensor(*m)).collect::<Result<_>>()?;
        let outs: Vec<&GpuTensor> = outputs.iter().map(|m| gpu_tensor(&**m)).collect::<Result<_>>()?;
        self.record(Some(&ins), Some(&outs))?;
        self.coverage.executed();
        Ok(())
    }

    fn memory_bytes(&self) -> usize {
        self.bytes
    }
}

impl GpuProgram {
    /// Records and submits one command buffer: inputs copied in, the passes, outputs out.
    fn record(&self, inputs: Option<&[&GpuTensor]>, outputs: Option<&[&GpuTensor]>) -> Result<()> {
        self.gpu.checked("dispatch", || {
            let mut encoder = self
                .gpu
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("webnn dispatch") });
            if let Some(inputs) = inputs {
                for (&(b, len), t) in self.inputs.iter().zip(inputs) {
                    encoder.copy_buffer_to_buffer(&t.buffer, 0, &self.buffers[b], 0, padded(len));
                }
            }
            let mut i = 0;
            while i < self.steps.len() {
                match &self.steps[i] {
                    Step::Copy { from, to, bytes } => {
                        encoder.copy_buffer_to_buffer(&self.buffers[*from], 0, &self.buffers[*to], 0, *bytes);
                        i += 1;
                    }
                    Step::Pass { .. } => {
                        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                            label: Some("webnn"),
                            timestamp_writes: None,
                        });
                        while let Some(Step::Pass { label, pipeline, bind_group, workgroups }) = self.steps.get(i) {
                            pass.push_debug_group(label);
                            pass.set_pipeline(pipeline);
                            pass.set_bind_group(0, bind_group, &[]);
                            pass.dispatch_workgroups(workgroups[0], workgroups[1], workgroups[2]);
                            pass.pop_debug_group();
                            i += 1;
                        }
                    }
                }
            }
            if let Some(outputs) = outputs {
                for (&(b, len), t) in self.outputs.iter().zip(outputs) {
                    encoder.copy_buffer_to_buffer(&self.buffers[b], 0, &t.buffer, 0, padded(len));
                }
            }
            self.gpu.queue.submit([encoder.finish()]);
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::AdapterChoice;
    use std::sync::atomic::AtomicBool;
    use webnn_core::graph::Constant;
    use webnn_core::{
        ContextLink, DataType, GraphBuilder, OpKind, OperandDescriptor, OperatorOptions, SharedBytes, TransposeOptions,
    };

    fn f32_bytes(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// A folder for the test: the transposes of 2-D float32 constants, computed here.
    fn fold_transposes(graph: &Graph) -> Option<Graph> {
        let mut g = graph.clone();
        let mut any = false;
        for op in &graph.operations {
            let Some(x) = op.input(0) else { continue };
            let OperandSource::Constant(c) = g.operands[x.index()].source else { continue };
            if op.kind != OpKind::Transpose || graph.descriptor(x).shape.len() != 2 {
                continue;
            }
            let (r, k) = (graph.descriptor(x).shape[0] as usize, graph.descriptor(x).shape[1] as usize);
            let v: Vec<f32> = g.constants[c]
                .bytes
                .as_ref()
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            let t: Vec<f32> = (0..r * k).map(|i| v[(i % r) * k + i / r]).collect();
            let y = op.outputs[0];
            g.operands[y.index()].source = OperandSource::Constant(g.constants.len());
            g.constants.push(Constant {
                operand: y,
                bytes: SharedBytes::try_copy_from(&f32_bytes(&t)).ok()?,
                tensor_destroyed: None,
            });
            any = true;
        }
        any.then_some(g)
    }

    #[test]
    fn folded_operations_run_no_kernel_and_their_only_inputs_get_no_buffer() {
        let Ok(gpu) = Gpu::new(AdapterChoice::Any, false) else {
            eprintln!("SKIPPED: no wgpu adapter");
            return;
        };
        let gpu = Arc::new(gpu);
        let mut b =
            GraphBuilder::new(ContextLink { id: 1, lost: Arc::new(AtomicBool::new(false)), limits: None }).unwrap();
        let x = b.input("x", &OperandDescriptor::new(DataType::Float32, [2, 3])).unwrap();
        let w: Vec<f32> = (0..6).map(|i| i as f32 * 10.0).collect(); // [3, 2]
        let c = b.constant(&OperandDescriptor::new(DataType::Float32, [3, 2]), &f32_bytes(&w)).unwrap();
        let t = b.transpose(&c, &TransposeOptions::default()).unwrap();
        let y = b.add(&x, &t, &OperatorOptions::default()).unwrap();
        let graph = b.build(&[("y", &y)]).unwrap();
        let cache = PipelineCache::default();
        let plain = GpuProgram::compile(&gpu, &cache, &graph).unwrap();
        let folded_graph = fold_transposes(&graph).unwrap();
        let folded = GpuProgram::compile(&gpu, &cache, &folded_graph).unwrap();
        assert_eq!((plain.steps.len(), folded.steps.len()), (2, 1));
        // x, the transposed constant and y; not the original constant.
        assert_eq!(folded.buffers.len(), 3);
        let xs = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
        for program in [&plain, &folded] {
            let mut out = vec![0u8; 24];
            program.execute(&[&f32_bytes(&xs)], &mut [&mut out]).unwrap();
            assert_eq!(out, f32_bytes(&[1.0, 22.0, 43.0, 14.0, 35.0, 56.0]));
        }
    }
}
