//! # webnn-gpu
//!
//! The GPU backend of the WebNN engine, on [wgpu] (Vulkan, Metal, DX12 and GL through one
//! API): the backend of `accelerated` contexts and of contexts created from a `wgpu::Device`
//! (the spec's `createContext(GPUDevice)`,
//! [spec](https://www.w3.org/TR/webnn/#api-mlcontextoptions)).
//!
//! A graph is compiled once (`program`): each operation becomes WGSL compute kernels
//! specialised to its shapes and data types (`kernels`, one file per op family), every
//! operand gets a buffer (intermediates share buffers once dead), and the bind groups are
//! made at build, so a dispatch records one command buffer. Tensors are wgpu buffers
//! ([`GpuTensor`]) that a caller holding the same device can use in its own passes.
//!
//! The context's `opSupportLimits()` is exactly what the kernels execute
//! ([`GpuBackend::op_support_limits`]): float32, int32 and uint32 where an op's kernel handles
//! them, float16 where the adapter has `SHADER_F16`; WGSL has no 8- or 64-bit integers, so
//! int8, uint8, int64 and uint64 are left out.

#![warn(missing_docs)]

mod device;
pub mod interop;
mod kernels;
mod memory;
mod program;
#[cfg(test)]
mod testing;
mod wgsl;

pub use device::{find_adapter, AdapterChoice};
pub use memory::GpuTensor;
pub use wgpu;

use device::Gpu;
use program::{GpuProgram, PipelineCache};
use std::sync::Arc;
use webnn_core::backend::{Backend, CompiledGraph, TensorMemory};
use webnn_core::graph::Graph;
use webnn_core::limits::OpSupportLimits;
use webnn_core::{DataType, InputOperandLayout, Result, TensorDescriptor};

/// The data types graph inputs, constants and outputs may have on the GPU.
fn io_types(f16: bool) -> Vec<DataType> {
    let mut t = vec![DataType::Float32, DataType::Int32, DataType::Uint32, DataType::Int8, DataType::Uint8];
    if f16 {
        t.push(DataType::Float16);
    }
    t
}

/// A constant-folding pass run before compiling: the graph with the results of operations
/// whose inputs are all constants turned into constants, or None when nothing folds.
pub type ConstantFolder = fn(&Graph) -> Option<Graph>;

/// A wgpu device as a WebNN backend.
pub struct GpuBackend {
    gpu: Arc<Gpu>,
    pipelines: PipelineCache,
    fold: Option<ConstantFolder>,
}

impl std::fmt::Debug for GpuBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuBackend").field("adapter", &self.gpu.name).finish()
    }
}

impl GpuBackend {
    /// A backend on the best adapter `choice` allows (discrete GPUs first when
    /// `high_performance`, integrated ones first otherwise). NotSupportedError if none.
    pub fn new(choice: AdapterChoice, high_performance: bool) -> Result<GpuBackend> {
        Ok(GpuBackend::on(Gpu::new(choice, high_performance)?))
    }

    /// A backend on the caller's device and queue (`createContext(GPUDevice)`). `info`
    /// names the adapter in messages; it decides nothing.
    pub fn from_wgpu(device: wgpu::Device, queue: wgpu::Queue, info: &wgpu::AdapterInfo) -> GpuBackend {
        GpuBackend::on(Gpu::from_device(device, queue, info))
    }

    fn on(gpu: Gpu) -> GpuBackend {
        GpuBackend { gpu: Arc::new(gpu), pipelines: PipelineCache::default(), fold: None }
    }

    /// Folds constant subgraphs with `fold` before compiling (the façade passes the CPU
    /// engine's `fold_constants`, so weights that arrive as `transpose(constant)` or
    /// `dequantizeLinear(constant, ...)` are computed once at build, not on every dispatch).
    pub fn with_constant_folding(mut self, fold: ConstantFolder) -> GpuBackend {
        self.fold = Some(fold);
        self
    }

    /// The adapter's name and graphics API, e.g. "llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan)".
    pub fn adapter_name(&self) -> &str {
        &self.gpu.name
    }

    /// True if the adapter is a software rasterizer (Mesa's lavapipe, WARP).
    pub fn is_software(&self) -> bool {
        self.gpu.software
    }

    /// The device.
    pub fn device(&self) -> &wgpu::Device {
        &self.gpu.device
    }

    /// The queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.gpu.queue
    }
}

impl Backend for GpuBackend {
    fn name(&self) -> &str {
        "gpu"
    }

    /// What the kernels execute: the spec's table narrowed per op, member and data type.
    fn op_support_limits(&self) -> OpSupportLimits {
        let f16 = self.gpu.f16;
        OpSupportLimits::restricted(InputOperandLayout::Nchw, self.gpu.max_binding, &io_types(f16), |op, member, dt| {
            kernels::executes(op, member, dt, f16)
        })
    }

    fn compile(&self, graph: &Graph) -> Result<Box<dyn CompiledGraph>> {
        let folded = self.fold.and_then(|fold| fold(graph));
        Ok(Box::new(GpuProgram::compile(&self.gpu, &self.pipelines, folded.as_ref().unwrap_or(graph))?))
    }

    fn accelerated(&self) -> bool {
        true
    }

    fn adapter_name(&self) -> Option<String> {
        Some(self.gpu.name.clone())
    }

    fn create_tensor_memory(&self, descriptor: &TensorDescriptor) -> Result<Box<dyn TensorMemory>> {
        Ok(Box::new(GpuTensor::new(self.gpu.clone(), descriptor.byte_length() as usize)?))
    }
}
