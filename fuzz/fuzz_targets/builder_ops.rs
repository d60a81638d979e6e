#![no_main]
//! See `webnn_fuzz::graph`. With `WEBNN_FUZZ_WRITE_SEEDS=WPT_DIR:OUT_DIR` set, the binary
//! only writes the seed corpus (every WPT vector graph, encoded) and exits.

libfuzzer_sys::fuzz_target!(init: webnn_fuzz::graph::seeds_from_env(), |data: &[u8]| {
    webnn_fuzz::graph::run(data)
});
