#![no_main]
//! See `webnn_fuzz::onnx`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| webnn_fuzz::onnx::run(data));
