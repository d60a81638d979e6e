//! The wgpu device a GPU context runs on: adapter choice, features, and the helpers every
//! other module uses to make buffers and to turn wgpu's errors into the spec's.
//!
//! wgpu reports validation and out-of-memory errors through error scopes (an uncaptured one
//! would panic in its default handler), so every call that can fail on a caller's input runs
//! inside [`Gpu::checked`], and the device gets an uncaptured-error handler that records
//! instead of panicking.

use std::sync::{Arc, Mutex};
use webnn_core::{Error, Result};

/// Every buffer's size is a multiple of this (wgpu's `COPY_BUFFER_ALIGNMENT`, and the size of
/// one storage word).
pub(crate) const ALIGN: u64 = 4;

/// Bytes rounded up to whole words (at least one word: wgpu binds no empty buffer).
pub(crate) fn padded(len: u64) -> u64 {
    len.div_ceil(ALIGN).max(1) * ALIGN
}

/// Which adapters a GPU context may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdapterChoice {
    /// Only hardware GPUs (integrated, discrete or virtual): what `accelerated: true` means.
    Hardware,
    /// Any adapter, software rasterizers (Mesa's lavapipe, WARP) included: for tests and CI.
    Any,
}

/// The device, its queue and what it can do.
pub(crate) struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    /// `SHADER_F16`: float16 storage and arithmetic in shaders.
    pub f16: bool,
    /// The largest buffer one binding may see.
    pub max_binding: u64,
    /// `maxComputeWorkgroupsPerDimension`.
    pub max_workgroups: u32,
    /// A name for messages, e.g. "NVIDIA H100 (Vulkan)".
    pub name: String,
    /// Whether the adapter is a software rasterizer.
    pub software: bool,
    /// An error wgpu reported outside any error scope (the device is unusable after it).
    pub uncaptured: Arc<Mutex<Option<String>>>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu").field("name", &self.name).field("f16", &self.f16).finish()
    }
}

/// A new wgpu instance and its adapters (enumerating loads the drivers). Vulkan, Metal and DX12
/// by default; `WGPU_BACKEND` (e.g. "gl") chooses others.
fn enumerate() -> (wgpu::Instance, Vec<wgpu::Adapter>) {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::PRIMARY);
    let adapters = pollster::block_on(instance.enumerate_adapters(backends));
    (instance, adapters)
}

/// The adapters GPU contexts open, found once. The instance lives as long as the process (a
/// GL adapter's EGL display dies with its instance); it is made only when a GPU context is.
fn adapters() -> &'static [wgpu::Adapter] {
    static ADAPTERS: std::sync::OnceLock<(wgpu::Instance, Vec<wgpu::Adapter>)> = std::sync::OnceLock::new();
    &ADAPTERS.get_or_init(enumerate).1
}

fn is_software(info: &wgpu::AdapterInfo) -> bool {
    info.device_type == wgpu::DeviceType::Cpu
}

/// A description of the adapter a GPU context with `choice` would use, or None. Asking for
/// [`AdapterChoice::Hardware`] before any GPU context exists (what every `accelerated`
/// context creation does) probes with an instance of its own that is dropped again, so a
/// process that ends up with CPU contexts only keeps no driver state (software drivers'
/// threads) alive; the answer is remembered.
pub fn find_adapter(choice: AdapterChoice, high_performance: bool) -> Option<wgpu::AdapterInfo> {
    static HARDWARE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if choice == AdapterChoice::Hardware {
        let exists = *HARDWARE.get_or_init(|| {
            let (_instance, adapters) = enumerate();
            pick_from(&adapters, choice, high_performance).is_some()
        });
        if !exists {
            return None;
        }
    }
    pick(choice, high_performance).map(|a| a.get_info())
}

fn pick(choice: AdapterChoice, high_performance: bool) -> Option<&'static wgpu::Adapter> {
    pick_from(adapters(), choice, high_performance)
}

fn pick_from(adapters: &[wgpu::Adapter], choice: AdapterChoice, high_performance: bool) -> Option<&wgpu::Adapter> {
    let rank = |a: &wgpu::Adapter| {
        let info = a.get_info();
        let kind = match info.device_type {
            wgpu::DeviceType::DiscreteGpu => {
                if high_performance {
                    0
                } else {
                    1
                }
            }
            wgpu::DeviceType::IntegratedGpu => {
                if high_performance {
                    1
                } else {
                    0
                }
            }
            wgpu::DeviceType::VirtualGpu => 2,
            wgpu::DeviceType::Other => 3,
            wgpu::DeviceType::Cpu => 4,
        };
        // Vulkan, Metal and DX12 before GL.
        (kind, info.backend == wgpu::Backend::Gl)
    };
    adapters
        .iter()
        .filter(|a| a.get_downlevel_capabilities().flags.contains(wgpu::DownlevelFlags::COMPUTE_SHADERS))
        .filter(|a| choice == AdapterChoice::Any || !is_software(&a.get_info()))
        .min_by_key(|a| rank(a))
}

impl Gpu {
    /// A device on the best adapter allowed by `choice`; NotSupportedError if there is none.
    pub fn new(choice: AdapterChoice, high_performance: bool) -> Result<Gpu> {
        let Some(adapter) = pick(choice, high_performance) else {
            return Err(Error::not_supported(match choice {
                AdapterChoice::Hardware => "createContext: no GPU adapter with compute shaders was found",
                AdapterChoice::Any => "createContext: no wgpu adapter with compute shaders was found (install a Vulkan driver, e.g. Mesa's lavapipe)",
            }));
        };
        let info = adapter.get_info();
        let f16 = adapter.features().contains(wgpu::Features::SHADER_F16);
        // The adapter's best limits: the largest buffers and workgroup counts it has.
        let required_limits = adapter.limits();
        let descriptor = wgpu::DeviceDescriptor {
            label: Some("webnn"),
            required_features: if f16 { wgpu::Features::SHADER_F16 } else { wgpu::Features::empty() },
            required_limits,
            ..Default::default()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&descriptor))
            .map_err(|e| Error::not_supported(format!("createContext: cannot open the GPU {}: {e}", info.name)))?;
        Ok(Gpu::from_parts(device, queue, &info))
    }

    /// Wraps a device the caller created (`createContext(GPUDevice)`).
    pub fn from_device(device: wgpu::Device, queue: wgpu::Queue, info: &wgpu::AdapterInfo) -> Gpu {
        Gpu::from_parts(device, queue, info)
    }

    fn from_parts(device: wgpu::Device, queue: wgpu::Queue, info: &wgpu::AdapterInfo) -> Gpu {
        let uncaptured: Arc<Mutex<Option<String>>> = Arc::default();
        let sink = uncaptured.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            let mut slot = sink.lock().unwrap_or_else(|p| p.into_inner());
            slot.get_or_insert_with(|| e.to_string());
        }));
        let limits = device.limits();
        Gpu {
            f16: device.features().contains(wgpu::Features::SHADER_F16),
            max_binding: limits.max_storage_buffer_binding_size.min(limits.max_buffer_size),
            max_workgroups: limits.max_compute_workgroups_per_dimension,
            name: format!("{} ({:?})", info.name, info.backend),
            software: is_software(info),
            device,
            queue,
            uncaptured,
        }
    }

    /// Runs `f` inside validation and out-of-memory error scopes: a wgpu error becomes an
    /// `UnknownError` (out of memory) or an `OperationError` (anything else, e.g. a shader
    /// the driver rejects) naming `what`.
    pub fn checked<T>(&self, what: &str, f: impl FnOnce() -> T) -> Result<T> {
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let value = f();
        let validation = pollster::block_on(validation.pop());
        let oom = pollster::block_on(oom.pop());
        if let Some(e) = oom {
            return Err(Error::unknown(format!("{what}: the GPU is out of memory: {e}")));
        }
        if let Some(e) = validation {
            return Err(Error::operation(format!("{what}: the GPU rejected it: {e}")));
        }
        if let Some(e) = self.uncaptured.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
            return Err(Error::unknown(format!("{what}: the GPU device failed: {e}")));
        }
        Ok(value)
    }

    /// A zero-filled buffer of `len` bytes (padded to a word) for storage and copies.
    pub fn buffer(&self, what: &str, len: u64, extra: wgpu::BufferUsages) -> Result<wgpu::Buffer> {
        let size = padded(len);
        if size > self.max_binding {
            return Err(Error::unknown(format!(
                "{what}: {len} bytes is more than this GPU's largest buffer binding ({} bytes)",
                self.max_binding
            )));
        }
        self.checked(what, || {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(what),
                size,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST
                    | extra,
                mapped_at_creation: false,
            })
        })
    }

    /// Writes `bytes` at the start of `buffer` (padded to a word with zeros).
    pub fn upload(&self, buffer: &wgpu::Buffer, bytes: &[u8]) -> Result<()> {
        if (bytes.len() as u64).is_multiple_of(ALIGN) {
            self.queue.write_buffer(buffer, 0, bytes);
        } else {
            let mut padded_bytes = Vec::new();
            padded_bytes
                .try_reserve_exact(padded(bytes.len() as u64) as usize)
                .map_err(|_| Error::unknown(format!("cannot allocate {} bytes to upload a tensor", bytes.len())))?;
            padded_bytes.extend_from_slice(bytes);
            padded_bytes.resize(padded(bytes.len() as u64) as usize, 0);
            self.queue.write_buffer(buffer, 0, &padded_bytes);
        }
        Ok(())
    }

    /// Copies the first `out.len()` bytes of `buffer` to `out`, waiting for the GPU.
    pub fn download(&self, buffer: &wgpu::Buffer, out: &mut [u8]) -> Result<()> {
        download(&self.device, &self.queue, buffer, out)?;
        if let Some(e) = self.uncaptured.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
            return Err(Error::unknown(format!("readTensor: the GPU device failed: {e}")));
        }
        Ok(())
    }
}

/// Copies the first `out.len()` bytes of `buffer` (on `device`) to `out`, waiting for the GPU.
pub(crate) fn download(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    out: &mut [u8],
) -> Result<()> {
    let size = padded(out.len() as u64);
    let scope = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("webnn read staging"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    if let Some(e) = pollster::block_on(scope.pop()) {
        return Err(Error::unknown(format!("readTensor: cannot allocate {size} bytes on the GPU: {e}")));
    }
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("webnn read") });
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, size);
    queue.submit([encoder.finish()]);
    let (tx, rx) = std::sync::mpsc::channel();
    staging.slice(..).map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| Error::unknown(format!("readTensor: waiting for the GPU failed: {e}")))?;
    match rx.recv() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(Error::unknown(format!("readTensor: cannot map the GPU buffer: {e}"))),
        Err(_) => return Err(Error::unknown("readTensor: the GPU never answered the read")),
    }
    {
        let view = staging
            .slice(..)
            .get_mapped_range()
            .map_err(|e| Error::unknown(format!("readTensor: cannot see the mapped GPU buffer: {e}")))?;
        out.copy_from_slice(&view[..out.len()]);
    }
    staging.unmap();
    Ok(())
}

/// A new buffer on `device` (STORAGE | COPY_SRC | COPY_DST, padded to a word) holding `bytes`.
pub(crate) fn buffer_with(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    label: &str,
    bytes: &[u8],
) -> Result<wgpu::Buffer> {
    let size = padded(bytes.len() as u64);
    let scope = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let validation = pollster::block_on(validation.pop());
    if let Some(e) = pollster::block_on(scope.pop()).or(validation) {
        return Err(Error::unknown(format!("{label}: cannot allocate {size} bytes on the GPU: {e}")));
    }
    let mut padded_bytes = bytes.to_vec();
    padded_bytes.resize(size as usize, 0);
    queue.write_buffer(&buffer, 0, &padded_bytes);
    Ok(buffer)
}
