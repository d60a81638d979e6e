//! The memory of a GPU context's `MLTensor`: one wgpu buffer, read and written on the
//! context's timeline ([`webnn_core::backend::TensorMemory`]).

use crate::device::Gpu;
use std::any::Any;
use std::sync::Arc;
use webnn_core::backend::TensorMemory;
use webnn_core::{Error, Result};

/// A tensor's `[[data]]` on the GPU: a storage buffer (STORAGE | COPY_SRC | COPY_DST) of the
/// tensor's byte length padded to a 4-byte word, zero-filled at creation.
pub struct GpuTensor {
    pub(crate) gpu: Arc<Gpu>,
    pub(crate) buffer: wgpu::Buffer,
    len: usize,
}

impl std::fmt::Debug for GpuTensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuTensor").field("len", &self.len).finish()
    }
}

impl GpuTensor {
    pub(crate) fn new(gpu: Arc<Gpu>, len: usize) -> Result<GpuTensor> {
        let buffer = gpu.buffer("createTensor", len as u64, wgpu::BufferUsages::empty())?;
        Ok(GpuTensor { gpu, buffer, len })
    }

    /// The buffer (for interop: the caller's wgpu passes may use it while it is rented).
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// The device the buffer lives on.
    pub fn device(&self) -> &wgpu::Device {
        &self.gpu.device
    }
}

impl TensorMemory for GpuTensor {
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        if bytes.len() != self.len {
            return Err(Error::unknown(format!("writeTensor: {} bytes for a tensor of {}", bytes.len(), self.len)));
        }
        self.gpu.upload(&self.buffer, bytes)
    }

    fn read(&self, out: &mut [u8]) -> Result<()> {
        if out.len() != self.len {
            return Err(Error::unknown(format!("readTensor: {} bytes for a tensor of {}", out.len(), self.len)));
        }
        self.gpu.download(&self.buffer, out)
    }

    fn len(&self) -> usize {
        self.len
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
