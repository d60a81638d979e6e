//! The library half of the `webnn` tool: the `.npy` reader and writer, shared with the
//! fuzzer (`fuzz/`, target `npy`). Everything else lives in the binary.

pub mod npy;
