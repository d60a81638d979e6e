//! Helpers shared by kernels: type dispatch, strides, broadcast strides.

/// Runs `$body` with `$T` bound to the Rust type of the first arm whose pattern matches `$dt`;
/// after a `;`, an optional last arm runs its expression with no type bound. The shared body
/// of the type dispatch macros (`with_type!` and the kernels' narrower ones).
#[macro_export]
macro_rules! match_type {
    ($dt:expr, $T:ident => $body:expr; $($p:pat => $ty:ty),+ $(; $np:pat => $none:expr)?) => {{
        match $dt {
            $($p => {
                type $T = $ty;
                $body
            })+
            $($np => $none,)?
        }
    }};
}

/// Runs `$body` with `$T` bound to the Rust element type of `$dt` (a `DataType`), f16 included.
#[macro_export]
macro_rules! with_type {
    ($dt:expr, $T:ident => $body:expr) => {
        $crate::match_type!($dt, $T => $body;
            webnn_core::DataType::Float32 => f32,
            webnn_core::DataType::Float16 => half::f16,
            webnn_core::DataType::Int32 => i32,
            webnn_core::DataType::Uint32 => u32,
            webnn_core::DataType::Int64 => i64,
            webnn_core::DataType::Uint64 => u64,
            webnn_core::DataType::Int8 => i8,
            webnn_core::DataType::Uint8 => u8)
    };
}

/// The descriptor of `op`'s operand in `slot`; an error naming the op if it is absent.
pub fn input_desc(
    op: &webnn_core::graph::Operation,
    graph: &webnn_core::Graph,
    slot: usize,
) -> webnn_core::Result<webnn_core::OperandDescriptor> {
    op.input(slot)
        .map(|id| graph.descriptor(id).clone())
        .ok_or_else(|| webnn_core::Error::operation(format!("{}: missing operand {slot}", op.kind)))
}

/// The descriptors of `op`'s operands in slots `0..N`; an error naming the op if one is absent.
pub fn input_descs<const N: usize>(
    op: &webnn_core::graph::Operation,
    graph: &webnn_core::Graph,
) -> webnn_core::Result<[webnn_core::OperandDescriptor; N]> {
    let descs = (0..N).map(|slot| input_desc(op, graph, slot)).collect::<webnn_core::Result<Vec<_>>>()?;
    Ok(descs.try_into().unwrap_or_else(|_| unreachable!("N descriptors")))
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
