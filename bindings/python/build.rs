//! Link arguments for a Python extension module (on macOS: leave the interpreter's symbols
//! undefined; nothing on Linux, where maturin sets `PYO3_BUILD_EXTENSION_MODULE`).

fn main() {
    pyo3_build_config::add_extension_module_link_args();
}
