//! WebNN ↔ WebGPU interop (the MLTensor explainer's `importExternalBuffer`): lending a
//! tensor's memory to a wgpu device, and taking it back.
//!
//! A tensor of a GPU context on the same device is lent as its own buffer (zero copy). Any
//! other tensor — of a CPU context, or of a GPU context on another device — is lent as a new
//! buffer on the caller's device holding a copy of its bytes, and the buffer's bytes are
//! copied back into the tensor when the rental ends. Either way the buffer has the usages
//! STORAGE | COPY_SRC | COPY_DST and is the tensor's bytes padded to a 4-byte word, so WGSL
//! sees it as an `array<T>` (int8/uint8 as `array<u32>`, float16 as `array<f16>`).

use crate::device::{buffer_with, download};
use crate::memory::GpuTensor;
use webnn_core::backend::TensorMemory;
use webnn_core::{Error, Result};

/// A tensor's memory while lent to a wgpu device.
#[derive(Debug)]
pub struct Lent {
    buffer: wgpu::Buffer,
    /// For a copy: the device and queue to read the buffer back from.
    copy: Option<(wgpu::Device, wgpu::Queue)>,
}

impl Lent {
    /// The buffer the caller's passes may use.
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// True if the buffer is the tensor's own (no copy was made).
    pub fn is_zero_copy(&self) -> bool {
        self.copy.is_none()
    }
}

/// Lends `memory` to `device`: its own buffer when it is a GPU tensor on that device, else a
/// copy of its bytes in a new buffer on `device`. The caller's work on `device` must be
/// submitted to `queue`.
pub fn lend(memory: &dyn TensorMemory, device: &wgpu::Device, queue: &wgpu::Queue) -> Result<Lent> {
    if let Some(gpu) = memory.as_any().downcast_ref::<GpuTensor>() {
        if gpu.device() == device {
            return Ok(Lent { buffer: gpu.buffer().clone(), copy: None });
        }
    }
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(memory.len())
        .map_err(|_| Error::unknown(format!("importExternalBuffer: cannot allocate {} bytes", memory.len())))?;
    bytes.resize(memory.len(), 0);
    memory.read(&mut bytes)?;
    let buffer = buffer_with(device, queue, "importExternalBuffer", &bytes)?;
    Ok(Lent { buffer, copy: Some((device.clone(), queue.clone())) })
}

/// Ends a rental: a copy's bytes (after everything the caller submitted) go back into
/// `memory`; a zero-copy rental needs nothing (the caller's work and WebNN's later work are
/// ordered on the same queue).
pub fn take_back(lent: Lent, memory: &mut dyn TensorMemory) -> Result<()> {
    let Some((device, queue)) = lent.copy else { return Ok(()) };
    let mut bytes = vec![0u8; memory.len()];
    download(&device, &queue, &lent.buffer, &mut bytes)?;
    lent.buffer.destroy();
    memory.write(&bytes)
}
