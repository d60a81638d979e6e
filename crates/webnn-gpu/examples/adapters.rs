//! Lists the wgpu adapters this machine has (the backends `WGPU_BACKEND` allows, default
//! Vulkan / Metal / DX12) and tries to open each as a GPU context would, with its best limits
//! and with the defaults: a diagnostic for "why is there no GPU context here?".
//!
//! `cargo run --release -p webnn-gpu --example adapters`

fn main() {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::PRIMARY);
    let adapters = pollster::block_on(instance.enumerate_adapters(backends));
    if adapters.is_empty() {
        println!("no adapter for backends {backends:?}");
    }
    for adapter in adapters {
        let info = adapter.get_info();
        println!(
            "{} ({:?}, {:?}, driver {} {})",
            info.name, info.backend, info.device_type, info.driver, info.driver_info
        );
        println!("  SHADER_F16: {}", adapter.features().contains(wgpu::Features::SHADER_F16));
        for (what, limits) in
            [("best limits", adapter.limits()), ("default limits", wgpu::Limits::downlevel_defaults())]
        {
            let descriptor = wgpu::DeviceDescriptor { required_limits: limits, ..Default::default() };
            match pollster::block_on(adapter.request_device(&descriptor)) {
                Ok(_) => println!("  opens with {what}"),
                Err(e) => println!("  cannot open with {what}: {e}"),
            }
        }
    }
}
