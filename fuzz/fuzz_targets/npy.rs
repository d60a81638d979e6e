#![no_main]
//! See `webnn_fuzz::npy`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| webnn_fuzz::npy::run(data));
