//! Helpers shared by kernels: type dispatch, strides, broadcasting index walks.

/// Runs `$body` with `$T` bound to the Rust element type of `$dt` (a `DataType`), f16 included.
#[macro_export]
macro_rules! with_type {
    ($dt:expr, $T:ident => $body:expr) => {{
        use webnn_core::DataType as __Dt;
        match $dt {
            __Dt::Float32 => { type $T = f32; $body }
            __Dt::Float16 => { type $T = half::f16; $body }
            __Dt::Int32 => { type $T = i32; $body }
            __Dt::Uint32 => { type $T = u32; $body }
            __Dt::Int64 => { type $T = i64; $body }
            __Dt::Uint64 => { type $T = u64; $body }
            __Dt::Int8 => { type $T = i8; $body }
            __Dt::Uint8 => { type $T = u8; $body }
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
    (0..output.len())
        .map(|i| if i < pad || input[i - pad] == 1 { 0 } else { own[i - pad] })
        .collect()
}

/// Calls `f(out_index, offsets)` for every element of `out_shape` in row-major order, where
/// `offsets[k]` is the element offset in operand `k` given its `strides[k]` (e.g. broadcast
/// strides). The innermost dimension is walked with a tight loop.
pub fn for_each_strided<const K: usize>(out_shape: &[u32], strides: [&[usize]; K], mut f: impl FnMut(usize, [usize; K])) {
    let rank = out_shape.len();
    if rank == 0 {
        f(0, [0; K]);
        return;
    }
    let inner = out_shape[rank - 1] as usize;
    let inner_strides: [usize; K] = std::array::from_fn(|k| strides[k][rank - 1]);
    let outer: usize = out_shape[..rank - 1].iter().map(|&d| d as usize).product();
    let mut idx = vec![0usize; rank - 1];
    let mut base = [0usize; K];
    let mut out = 0;
    for _ in 0..outer {
        let mut offs = base;
        for _ in 0..inner {
            f(out, offs);
            out += 1;
            for k in 0..K {
                offs[k] += inner_strides[k];
            }
        }
        // Advance the outer multi-index.
        for d in (0..rank - 1).rev() {
            idx[d] += 1;
            for k in 0..K {
                base[k] += strides[k][d];
            }
            if idx[d] < out_shape[d] as usize {
                break;
            }
            for k in 0..K {
                base[k] -= strides[k][d] * idx[d];
            }
            idx[d] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strided_walk_matches_naive_indexing() {
        let out = [2u32, 3, 4];
        let a = broadcast_strides(&[3, 1], &out);
        let b = broadcast_strides(&[2, 1, 4], &out);
        let mut seen = Vec::new();
        for_each_strided(&out, [&a, &b], |o, [x, y]| seen.push((o, x, y)));
        assert_eq!(seen.len(), 24);
        for (o, x, y) in seen {
            let (i, j, k) = (o / 12, (o / 4) % 3, o % 4);
            assert_eq!(x, j);
            assert_eq!(y, i * 4 + k);
        }
    }
}
