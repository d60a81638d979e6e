//! The GPU backend through the public API: lifecycle of a GPU context, its limits, and the
//! MLTensor explainer's WebGPU interop (tensors rented to a wgpu device).
//!
//! These run on whatever wgpu adapter exists (Mesa's lavapipe in CI). Without any adapter
//! each test prints that it was skipped; with `WEBNN_REQUIRE_GPU=1` (set by `.ci/run`) a
//! missing adapter fails instead.

use webnn::wgpu;
use webnn::*;

const NO: OperatorOptions = OperatorOptions { label: String::new() };

/// A GPU context on any adapter, or None (after saying so) when there is none.
fn gpu_context() -> Option<Context> {
    match ml().create_context(&ContextOptions { device: DeviceChoice::Gpu, ..Default::default() }) {
        Ok(c) => Some(c),
        Err(e) => {
            assert_eq!(e.kind, ErrorKind::NotSupported, "{e}");
            assert!(std::env::var("WEBNN_REQUIRE_GPU").is_err(), "WEBNN_REQUIRE_GPU is set but: {e}");
            eprintln!("SKIPPED: no wgpu adapter: {e}");
            None
        }
    }
}

/// A wgpu device of the caller's own (the application that holds a `GPUDevice`), or `None`
/// after printing that the test is skipped when no adapter exists (a failure instead under
/// `WEBNN_REQUIRE_GPU`).
fn own_device() -> Option<(wgpu::Device, wgpu::Queue, wgpu::AdapterInfo)> {
    let device = request_own_device();
    if device.is_none() {
        assert!(std::env::var("WEBNN_REQUIRE_GPU").is_err(), "WEBNN_REQUIRE_GPU is set but no wgpu adapter exists");
        eprintln!("SKIPPED: no wgpu adapter");
    }
    device
}

/// An adapter of the environment and a device of it, if any.
fn request_own_device() -> Option<(wgpu::Device, wgpu::Queue, wgpu::AdapterInfo)> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default())).ok()?;
    let info = adapter.get_info();
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default())).ok()?;
    Some((device, queue, info))
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn a_gpu_context_builds_dispatches_and_reads_in_call_order() {
    let Some(context) = gpu_context() else { return };
    assert!(context.accelerated());
    assert!(context.adapter_name().is_some());
    let limits = context.op_support_limits();
    assert!(!limits.is_complete());
    let desc = OperandDescriptor::new(DataType::Float32, [2, 3]);
    let mut b = GraphBuilder::new(&context).unwrap();
    let x = b.input("x", &desc).unwrap();
    let w = b.constant(&OperandDescriptor::new(DataType::Float32, [3]), &bytes(&[1.0, -2.0, 0.5])).unwrap();
    let m = b.mul(&x, &w, &NO).unwrap();
    let r = b.relu(&m, &NO).unwrap();
    let graph = b.build(&[("y", &r)]).unwrap();
    let tx = context.create_tensor(&TensorDescriptor::new(DataType::Float32, [2, 3]).writable(true)).unwrap();
    let ty = context.create_tensor(&TensorDescriptor::new(DataType::Float32, [2, 3]).readable(true)).unwrap();
    let input: [f32; 6] = [1.0, 2.0, 3.0, -4.0, 5.0, -6.0];
    let expected: Vec<f32> =
        input.iter().zip([1.0f32, -2.0, 0.5].iter().cycle()).map(|(a, w)| (a * w).max(0.0)).collect();
    context.write_tensor(&tx, &bytes(&input)).unwrap();
    context.dispatch(&graph, &[("x", &tx)], &[("y", &ty)]).unwrap();
    let first = context.read_tensor(&ty);
    // Queued after the first read: the read must not see it.
    context.write_tensor(&tx, &bytes(&[1.0; 6])).unwrap();
    context.dispatch(&graph, &[("x", &tx)], &[("y", &ty)]).unwrap();
    assert_eq!(f32s(&first.wait().unwrap()), expected);
    let mut out = vec![0u8; 24];
    context.read_tensor_into(&ty, &mut out).unwrap();
    assert_eq!(f32s(&out), vec![1.0, 0.0, 0.5, 1.0, 0.0, 0.5]);
    // A fresh tensor is zero-filled.
    let tz = context.create_tensor(&TensorDescriptor::new(DataType::Uint8, [5]).readable(true)).unwrap();
    assert_eq!(context.read_tensor(&tz).wait().unwrap(), vec![0u8; 5]);
    // Destroying the context rejects reads and settles `lost`.
    context.destroy();
    assert_eq!(context.read_tensor(&ty).wait().unwrap_err().kind, ErrorKind::Type);
    assert!(context.lost().wait().message.contains("destroy"));
}

#[test]
fn the_builder_enforces_the_gpu_limits_and_they_are_reported() {
    let Some(context) = gpu_context() else { return };
    let limits = context.op_support_limits();
    let json = limits.to_json();
    // WGSL has no 64-bit integers: int64 is left out everywhere, and reported so.
    assert!(!json["input"]["dataTypes"].as_array().unwrap().iter().any(|t| t == "int64"));
    assert!(!json["add"]["a"]["dataTypes"].as_array().unwrap().iter().any(|t| t == "int64"));
    let mut b = GraphBuilder::new(&context).unwrap();
    let e = b.input("big", &OperandDescriptor::new(DataType::Int64, [2])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Type);
    assert!(e.message.contains("int64") && e.message.contains("opSupportLimits"), "{}", e.message);
    // What the limits report, the builder accepts.
    let x = b.input("x", &OperandDescriptor::new(DataType::Int32, [4])).unwrap();
    assert!(b.abs(&x, &NO).is_ok());
    let f16 = json["relu"]["input"]["dataTypes"].as_array().unwrap().iter().any(|t| t == "float16");
    let h = b.input("h", &OperandDescriptor::new(DataType::Float16, [4]));
    assert_eq!(h.is_ok(), f16, "float16 inputs are accepted exactly when the limits report float16");
}

#[test]
fn float16_round_trips_through_a_gpu_graph() {
    let Some(context) = gpu_context() else { return };
    if !context.op_support_limits().to_json()["neg"]["input"]["dataTypes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t == "float16")
    {
        eprintln!("SKIPPED: this adapter has no SHADER_F16");
        return;
    }
    let mut b = GraphBuilder::new(&context).unwrap();
    let x = b.input("x", &OperandDescriptor::new(DataType::Float16, [3])).unwrap();
    let y = b.neg(&x, &NO).unwrap();
    let graph = b.build(&[("y", &y)]).unwrap();
    let tx = context.create_tensor(&TensorDescriptor::new(DataType::Float16, [3]).writable(true)).unwrap();
    let ty = context.create_tensor(&TensorDescriptor::new(DataType::Float16, [3]).readable(true)).unwrap();
    let halves: Vec<u8> = [1.5f32, -0.25, 65504.0].iter().flat_map(|&v| half::f16::from_f32(v).to_le_bytes()).collect();
    context.write_tensor(&tx, &halves).unwrap();
    context.dispatch(&graph, &[("x", &tx)], &[("y", &ty)]).unwrap();
    let out = context.read_tensor(&ty).wait().unwrap();
    let got: Vec<f32> = out.chunks_exact(2).map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32()).collect();
    assert_eq!(got, vec![-1.5, 0.25, -65504.0]);
}

/// A caller-side shader: `dst[i] = src[i] * k + c` over `n` floats.
fn run_shader(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    src: Option<&wgpu::Buffer>,
    dst: &wgpu::Buffer,
    n: u32,
    k: f32,
    c: f32,
) {
    let body = match src {
        Some(_) => format!("dst[i] = src[i] * {k:?} + {c:?};"),
        None => format!("dst[i] = f32(i) * {k:?} + {c:?};"),
    };
    let decl_src = if src.is_some() { "@group(0) @binding(1) var<storage, read> src: array<f32>;" } else { "" };
    let code = format!(
        "@group(0) @binding(0) var<storage, read_write> dst: array<f32>;\n{decl_src}\n\
         @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {{ let i = g.x; if (i < {n}u) {{ {body} }} }}"
    );
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(code.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let mut entries = vec![wgpu::BindGroupEntry { binding: 0, resource: dst.as_entire_binding() }];
    if let Some(src) = src {
        entries.push(wgpu::BindGroupEntry { binding: 1, resource: src.as_entire_binding() });
    }
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &entries,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(n.div_ceil(64), 1, 1);
    }
    queue.submit([encoder.finish()]);
}

/// Reads a caller-side buffer (the test's own check, at the very end).
fn read_back(device: &wgpu::Device, queue: &wgpu::Queue, buffer: &wgpu::Buffer, n: usize) -> Vec<f32> {
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: (n * 4) as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, (n * 4) as u64);
    queue.submit([encoder.finish()]);
    staging.slice(..).map_async(wgpu::MapMode::Read, |r| r.expect("map"));
    device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
    let v = f32s(&staging.slice(..).get_mapped_range().expect("mapped"));
    staging.unmap();
    v
}

/// The explainer's video-frame flow on a context created from the caller's device: a wgpu
/// shader writes a frame into a tensor, a WebNN graph consumes it, a wgpu shader reads the
/// result into the caller's "screen" buffer; no CPU round trip in between (zero copy).
#[test]
fn a_frame_goes_from_a_wgpu_shader_through_a_graph_to_a_wgpu_shader() {
    let Some((device, queue, info)) = own_device() else { return };
    let context = ml().create_context_from_wgpu(device.clone(), queue.clone(), &info).unwrap();
    assert!(context.accelerated());
    let n = 3 * 8 * 8;
    let frame_desc = TensorDescriptor::new(DataType::Float32, [1, 3, 8, 8]).importable_to_webgpu(true);
    let frame = context.create_tensor(&frame_desc).unwrap();
    let result = context.create_tensor(&frame_desc).unwrap();
    let mut b = GraphBuilder::new(&context).unwrap();
    let x = b.input("frame", &OperandDescriptor::new(DataType::Float32, [1, 3, 8, 8])).unwrap();
    let two = b.constant_scalar(DataType::Float32, 2.0.into()).unwrap();
    let y = b.mul(&x, &two, &NO).unwrap();
    let y = b.sub(&y, &two, &NO).unwrap();
    let y = b.relu(&y, &NO).unwrap();
    let graph = b.build(&[("out", &y)]).unwrap();
    let screen = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("screen"),
        size: (n * 4) as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    for frame_number in 0..3 {
        // "Tensorize" the frame: frame[i] = i * 0.01 + frame_number.
        let rented = context.import_external_buffer(&frame, &device, &queue).wait().unwrap();
        assert!(rented.is_zero_copy());
        assert!(rented
            .usage()
            .contains(wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST));
        run_shader(&device, &queue, None, &rented, n as u32, 0.01, frame_number as f32);
        rented.release();
        context.dispatch(&graph, &[("frame", &frame)], &[("out", &result)]).unwrap();
        // Render: screen[i] = out[i] + 1.
        let rented = context.import_external_buffer(&result, &device, &queue).wait().unwrap();
        run_shader(&device, &queue, Some(&rented), &screen, n as u32, 1.0, 1.0);
        drop(rented);
        let shown = read_back(&device, &queue, &screen, n);
        for (i, v) in shown.iter().enumerate() {
            let f = i as f32 * 0.01 + frame_number as f32;
            let want = (f * 2.0 - 2.0).max(0.0) + 1.0;
            assert!((v - want).abs() <= 1e-5 * want.abs().max(1.0), "frame {frame_number} [{i}]: {v} vs {want}");
        }
    }
}

/// A tensor of a CPU context rented to a wgpu device is a copy; the shader's writes come back
/// into the tensor when the rental ends, and work queued during the rental waits for it.
#[test]
fn a_cpu_tensor_is_rented_as_a_copy_and_written_back() {
    let Some((device, queue, _info)) = own_device() else { return };
    let context = ml().create_context(&ContextOptions { device: DeviceChoice::Cpu, ..Default::default() }).unwrap();
    let desc = TensorDescriptor::new(DataType::Float32, [5]).readable(true).writable(true).importable_to_webgpu(true);
    let t = context.create_tensor(&desc).unwrap();
    context.write_tensor(&t, &bytes(&[1.0, 2.0, 3.0, 4.0, 5.0])).unwrap();
    let rented = context.import_external_buffer(&t, &device, &queue).wait().unwrap();
    assert!(!rented.is_zero_copy());
    // Queued while rented: runs after the rental ends, so it reads the shader's values.
    let after = context.read_tensor(&t);
    run_shader(&device, &queue, None, &rented, 5, 10.0, 0.5);
    drop(rented);
    assert_eq!(f32s(&after.wait().unwrap()), vec![0.5, 10.5, 20.5, 30.5, 40.5]);
    // Not importable: a TypeError.
    let plain = context.create_tensor(&TensorDescriptor::new(DataType::Float32, [5])).unwrap();
    let e = context.import_external_buffer(&plain, &device, &queue).wait().unwrap_err();
    assert_eq!(e.kind, ErrorKind::Type);
    assert!(e.message.contains("importableToWebGPU"), "{}", e.message);
}

/// A matmul whose only reader is an activation runs it as its epilogue; one whose output is
/// also a graph output does not. Both give the straightforward result.
#[test]
fn an_activation_fused_into_its_matmul_gives_the_same_result() {
    let Some(context) = gpu_context() else { return };
    let a: Vec<f32> = (0..6).map(|i| i as f32 - 2.5).collect(); // [2, 3]
    let w: Vec<f32> = (0..12).map(|i| (i as f32 * 0.37).sin()).collect(); // [3, 4]
    let mut product = [0f32; 8];
    for m in 0..2 {
        for n in 0..4 {
            product[m * 4 + n] = (0..3).map(|k| a[m * 3 + k] * w[k * 4 + n]).sum();
        }
    }
    let clamp = ClampOptions { min_value: Some((-0.5).into()), max_value: Some(0.75.into()), ..Default::default() };
    for also_output in [false, true] {
        let mut b = GraphBuilder::new(&context).unwrap();
        let x = b.input("a", &OperandDescriptor::new(DataType::Float32, [2, 3])).unwrap();
        let k = b.constant(&OperandDescriptor::new(DataType::Float32, [3, 4]), &bytes(&w)).unwrap();
        let p = b.matmul(&x, &k, &NO).unwrap();
        let y = b.clamp(&p, &clamp).unwrap();
        let mut outputs = vec![("y", &y)];
        if also_output {
            outputs.push(("p", &p));
        }
        let graph = b.build(&outputs).unwrap();
        let ta = context.create_tensor(&TensorDescriptor::new(DataType::Float32, [2, 3]).writable(true)).unwrap();
        let ty = context.create_tensor(&TensorDescriptor::new(DataType::Float32, [2, 4]).readable(true)).unwrap();
        let tp = context.create_tensor(&TensorDescriptor::new(DataType::Float32, [2, 4]).readable(true)).unwrap();
        context.write_tensor(&ta, &bytes(&a)).unwrap();
        let mut outs = vec![("y", &ty)];
        if also_output {
            outs.push(("p", &tp));
        }
        context.dispatch(&graph, &[("a", &ta)], &outs).unwrap();
        let got = f32s(&context.read_tensor(&ty).wait().unwrap());
        for (g, p) in got.iter().zip(product) {
            assert!((g - p.clamp(-0.5, 0.75)).abs() <= 1e-6, "{g} vs clamp({p})");
        }
        if also_output {
            let got = f32s(&context.read_tensor(&tp).wait().unwrap());
            for (g, p) in got.iter().zip(product) {
                assert!((g - p).abs() <= 1e-6, "{g} vs {p}");
            }
        }
    }
}
