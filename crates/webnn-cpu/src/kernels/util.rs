//! Helpers shared by kernels: type dispatch, strides, broadcast strides.

/// Runs `$body` with `$T` bound to the Rust element type of `$dt` (a `DataType`), f16 included.
#[macro_export]
macro_rules! with_type {
    ($dt:expr, $T:ident => $body:expr) => {{
        use webnn_core::DataType as __Dt;
        match $dt {
            __Dt::Float32 => {
                type $T = f32;
                $body
            }
            __Dt::Float16 => {
                type $T = half::f16;
                $body
            }
            __Dt::Int32 => {
                type $T = i32;
                $body
            }
            __Dt::Uint32 => {
                type $T = u32;
                $body
            }
            __Dt::Int64 => {
                type $T = i64;
                $body
            }
            __Dt::Uint64 => {
                type $T = u64;
                $body
            }
            __Dt::Int8 => {
                type $T = i8;
                $body
            }
            __Dt::Uint8 => {
                type $T = u8;
                $body
            }
        }
    }};
}

/// Row-major strides of a shape, in elements.
pub fn strides(shape: &[u32]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1] as usize;
    }
    s
}

/// Strides of `input` broadcast (numpy rules) to `output`: 0 along broadcast dimensions.
pub fn broadcast_strides(input: &[u32], output: &[u32]) -> Vec<usize> {
    let own = strides(input);
    let pad = output.len() - input.len();
    (0..output.len()).map(|i| if i < pad || input[i - pad] == 1 { 0 } else { own[i - pad] }).collect()
}
