//! conv2d ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-conv2d)), convTranspose2d
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-convtranspose2d)), pooling
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pool2d)), resample2d
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-resample2d-method)), gemm
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gemm)) and matmul
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-matmul)): pure validation, (descriptors,
//! options) → output descriptor and resolved attributes, or a TypeError.
//!
//! Sizes are computed in `i128` (never overflowing, never negative by accident) and rejected
//! when they are not *valid dimensions*.

use super::OpCall;
use super::{broadcast_bidirectional, broadcast_unidirectional};
use crate::error::Result;
use crate::graph::Attrs;
use crate::types::options::{Conv2dOptions, ConvTranspose2dOptions, GemmOptions, Pool2dOptions, Resample2dOptions};
use crate::types::{
    is_valid_dimension, Conv2dFilterOperandLayout, ConvTranspose2dFilterOperandLayout, DataType, InputOperandLayout,
    MLNumber, OperandDescriptor, RoundingType,
};

// ---------------------------------------------------------------------------------------------
// Helpers shared by this family and by normalization / recurrent validators.
// ---------------------------------------------------------------------------------------------

/// A list option of fixed size `N`: `default` when absent, a TypeError when its size is not `N`.
pub(crate) fn fixed_list<const N: usize>(
    call: &OpCall,
    name: &str,
    value: Option<&[u32]>,
    default: [u32; N],
) -> Result<[u32; N]> {
    match value {
        None => Ok(default),
        Some(v) => <[u32; N]>::try_from(v)
            .map_err(|_| call.error(format_args!("{name} must have {N} items, got {} ({v:?})", v.len()))),
    }
}

/// TypeError if any item of `values` is 0.
pub(crate) fn check_nonzero(call: &OpCall, name: &str, values: &[u32]) -> Result<()> {
    if values.contains(&0) {
        return Err(call.error(format_args!("every item of {name} must be greater than 0, got {values:?}")));
    }
    Ok(())
}

/// "same type as `reference`" rows of the limits tables: TypeError if the data types differ.
pub(crate) fn check_same_type(
    call: &OpCall,
    member: &str,
    desc: &OperandDescriptor,
    reference_member: &str,
    reference: &OperandDescriptor,
) -> Result<()> {
    if desc.data_type != reference.data_type {
        return Err(call.error(format_args!(
            "{member} data type {} must equal {reference_member} data type {}",
            desc.data_type, reference.data_type
        )));
    }
    Ok(())
}

/// TypeError unless `desc`'s shape equals `expected` (compared in u64, so that expected sizes
/// such as `3 * hiddenSize` cannot wrap).
pub(crate) fn check_shape(call: &OpCall, member: &str, desc: &OperandDescriptor, expected: &[u64]) -> Result<()> {
    let equal = desc.shape.len() == expected.len() && desc.shape.iter().zip(expected).all(|(&d, &e)| d as u64 == e);
    if !equal {
        return Err(call.error(format_args!("{member} shape {:?} must be {expected:?}", desc.shape)));
    }
    Ok(())
}

/// [spec](https://www.w3.org/TR/webnn/#algorithms-casting) cast of a `double` option (alpha, beta,
/// epsilon) to a float operand type, back as f64.
pub(crate) fn cast_float(value: f64, data_type: DataType) -> f64 {
    MLNumber::Double(value).cast(data_type).to_f64()
}

/// The 4 dimensions of a rank-4 shape (the limits table guarantees rank 4; this never panics).
fn dims4(call: &OpCall, member: &str, shape: &[u32]) -> Result<[u32; 4]> {
    <[u32; 4]>::try_from(shape).map_err(|_| call.error(format_args!("{member} must have rank 4, got shape {shape:?}")))
}

/// An exact integer size as a valid dimension (in [1, 2^31 − 1]), else `None`.
fn valid_dimension(v: i128) -> Option<u32> {
    if v >= 1 && is_valid_dimension(v as u64) {
        Some(v as u32)
    } else {
        None
    }
}

/// `[batches, channels, height, width]` of an input shape in the given layout.
fn decode_input(layout: InputOperandLayout, [a, b, c, d]: [u32; 4]) -> [u32; 4] {
    match layout {
        InputOperandLayout::Nchw => [a, b, c, d],
        InputOperandLayout::Nhwc => [a, d, b, c],
    }
}

/// The output shape `[batches, channels, height, width]` laid out in `layout`.
fn encode_output(layout: InputOperandLayout, [n, c, h, w]: [u32; 4]) -> Vec<u32> {
    match layout {
        InputOperandLayout::Nchw => vec![n, c, h, w],
        InputOperandLayout::Nhwc => vec![n, h, w, c],
    }
}

/// *calculate conv output size* ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-conv2d)) —
/// `(in − ((k − 1)·d + 1) + pb + pe) / s + 1` as a real number — returned as its exact (floor,
/// ceil).
fn conv_output_size(input: u32, filter: u32, pad_begin: u32, pad_end: u32, stride: u32, dilation: u32) -> (i128, i128) {
    let effective = (filter as i128 - 1) * dilation as i128 + 1;
    let numerator = input as i128 - effective + pad_begin as i128 + pad_end as i128;
    let s = stride.max(1) as i128;
    let floor = numerator.div_euclid(s) + 1;
    let ceil = -(-numerator).div_euclid(s) + 1;
    (floor, ceil)
}

/// *calculate convtranspose output size*
/// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-convtranspose2d)): `(in − 1)·s + (k −
/// 1)·d + 1 − pb − pe`.
fn conv_transpose_output_size(
    input: u32,
    filter: u32,
    pad_begin: u32,
    pad_end: u32,
    stride: u32,
    dilation: u32,
) -> i128 {
    let effective = (filter as i128 - 1) * dilation as i128 + 1;
    (input as i128 - 1) * stride as i128 + effective - pad_begin as i128 - pad_end as i128
}

/// padding (4 items, default zeros), strides and dilations (2 non-zero items, default ones),
/// in the spec's order.
fn window_params(
    call: &OpCall,
    padding: Option<&[u32]>,
    strides: Option<&[u32]>,
    dilations: Option<&[u32]>,
) -> Result<([u32; 4], [u32; 2], [u32; 2])> {
    let padding = fixed_list(call, "padding", padding, [0; 4])?;
    let strides = fixed_list(call, "strides", strides, [1, 1])?;
    check_nonzero(call, "strides", &strides)?;
    let dilations = fixed_list(call, "dilations", dilations, [1, 1])?;
    check_nonzero(call, "dilations", &dilations)?;
    Ok((padding, strides, dilations))
}

// ---------------------------------------------------------------------------------------------
// conv2d
// ---------------------------------------------------------------------------------------------

/// `conv2d()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-conv2d)) after the limits
/// check: filter type, padding/strides/dilations/groups, channel checks (including 2026's
/// `outputChannels % groups`), bias, output size.
pub(crate) fn conv2d(
    call: &OpCall,
    input: &OperandDescriptor,
    filter: &OperandDescriptor,
    bias: Option<&OperandDescriptor>,
    options: &Conv2dOptions,
) -> Result<(OperandDescriptor, Attrs)> {
    check_same_type(call, "filter", filter, "input", input)?;
    let (padding, strides, dilations) =
        window_params(call, options.padding.as_deref(), options.strides.as_deref(), options.dilations.as_deref())?;
    let groups = options.groups;
    if groups == 0 {
        return Err(call.error("groups must be greater than 0"));
    }
    let [batches, input_channels, input_height, input_width] =
        decode_input(options.input_layout, dims4(call, "input", &input.shape)?);
    let [f0, f1, f2, f3] = dims4(call, "filter", &filter.shape)?;
    let (output_channels, filter_input_channels, filter_height, filter_width) = match options.filter_layout {
        Conv2dFilterOperandLayout::Oihw => (f0, f1, f2, f3),
        Conv2dFilterOperandLayout::Hwio => (f3, f2, f0, f1),
        Conv2dFilterOperandLayout::Ohwi => (f0, f3, f1, f2),
        Conv2dFilterOperandLayout::Ihwo => (f3, f0, f1, f2),
    };
    if input_channels % groups != 0 {
        return Err(
            call.error(format_args!("input channels ({input_channels}) must be divisible by groups ({groups})"))
        );
    }
    if input_channels / groups != filter_input_channels {
        return Err(call.error(format_args!(
            "filter input channels ({filter_input_channels}) times groups ({groups}) must equal input channels \
             ({input_channels}) (filter shape {:?}, layout {})",
            filter.shape, options.filter_layout
        )));
    }
    if output_channels % groups != 0 {
        return Err(
            call.error(format_args!("output channels ({output_channels}) must be divisible by groups ({groups})"))
        );
    }
    if let Some(bias) = bias {
        check_shape(call, "bias", bias, &[output_channels as u64])?;
        check_same_type(call, "bias", bias, "input", input)?;
    }
    let (h, _) = conv_output_size(input_height, filter_height, padding[0], padding[1], strides[0], dilations[0]);
    let (w, _) = conv_output_size(input_width, filter_width, padding[2], padding[3], strides[1], dilations[1]);
    let (Some(out_h), Some(out_w)) = (valid_dimension(h), valid_dimension(w)) else {
        return Err(call.error(format_args!(
            "output size {h}x{w} is not valid (input {input_height}x{input_width}, filter \
             {filter_height}x{filter_width}, padding {padding:?}, strides {strides:?}, dilations {dilations:?})"
        )));
    };
    let shape = encode_output(options.input_layout, [batches, output_channels, out_h, out_w]);
    let attrs = Attrs::Conv2d {
        padding,
        strides,
        dilations,
        groups,
        input_layout: options.input_layout,
        filter_layout: options.filter_layout,
    };
    Ok((OperandDescriptor::new(input.data_type, shape), attrs))
}

// ---------------------------------------------------------------------------------------------
// convTranspose2d
// ---------------------------------------------------------------------------------------------

/// `convTranspose2d()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-convtranspose2d))
/// after the limits check. outputPadding must be smaller than strides unless outputSizes is given;
/// outputSizes must lie in `[calculated, calculated + stride)`.
pub(crate) fn conv_transpose2d(
    call: &OpCall,
    input: &OperandDescriptor,
    filter: &OperandDescriptor,
    bias: Option<&OperandDescriptor>,
    options: &ConvTranspose2dOptions,
) -> Result<(OperandDescriptor, Attrs)> {
    check_same_type(call, "filter", filter, "input", input)?;
    let (padding, strides, dilations) =
        window_params(call, options.padding.as_deref(), options.strides.as_deref(), options.dilations.as_deref())?;
    let output_padding = fixed_list(call, "outputPadding", options.output_padding.as_deref(), [0, 0])?;
    let output_sizes = match options.output_sizes.as_deref() {
        Some(sizes) => Some(fixed_list(call, "outputSizes", Some(sizes), [0, 0])?),
        None => {
            if output_padding[0] >= strides[0] || output_padding[1] >= strides[1] {
                return Err(call
                    .error(format_args!("outputPadding {output_padding:?} must be smaller than strides {strides:?}")));
            }
            None
        }
    };
    let groups = options.groups;
    if groups == 0 {
        return Err(call.error("groups must be greater than 0"));
    }
    let [batches, input_channels, input_height, input_width] =
        decode_input(options.input_layout, dims4(call, "input", &input.shape)?);
    let [f0, f1, f2, f3] = dims4(call, "filter", &filter.shape)?;
    let (filter_input_channels, filter_output_channels, filter_height, filter_width) = match options.filter_layout {
        ConvTranspose2dFilterOperandLayout::Iohw => (f0, f1, f2, f3),
        ConvTranspose2dFilterOperandLayout::Hwoi => (f3, f2, f0, f1),
        ConvTranspose2dFilterOperandLayout::Ohwi => (f3, f0, f1, f2),
    };
    if input_channels != filter_input_channels {
        return Err(call.error(format_args!(
            "filter input channels ({filter_input_channels}) must equal input channels ({input_channels}) \
             (filter shape {:?}, layout {})",
            filter.shape, options.filter_layout
        )));
    }
    let output_channels = filter_output_channels as u64 * groups as u64;
    if !is_valid_dimension(output_channels) {
        return Err(call.error(format_args!(
            "output channels: filter output channels ({filter_output_channels}) times groups ({groups}) = \
             {output_channels} is not a valid dimension"
        )));
    }
    let output_channels = output_channels as u32;
    // Not a step of the spec's convTranspose2d(), but its filter layout ([inputChannels,
    // outputChannels/groups, ...]) splits the input channels into `groups` equal parts, and
    // Chromium's validation rejects it here too (ARCHITECTURE.md, our decisions).
    if input_channels % groups != 0 {
        return Err(
            call.error(format_args!("input channels ({input_channels}) must be divisible by groups ({groups})"))
        );
    }
    if let Some(bias) = bias {
        check_shape(call, "bias", bias, &[output_channels as u64])?;
        check_same_type(call, "bias", bias, "input", input)?;
    }
    let calc_h =
        conv_transpose_output_size(input_height, filter_height, padding[0], padding[1], strides[0], dilations[0]);
    let calc_w =
        conv_transpose_output_size(input_width, filter_width, padding[2], padding[3], strides[1], dilations[1]);
    let (h, w) = match output_sizes {
        Some([oh, ow]) => {
            for (name, size, calc, stride) in [("height", oh, calc_h, strides[0]), ("width", ow, calc_w, strides[1])] {
                let size = size as i128;
                if size < calc || size >= calc + stride as i128 {
                    return Err(call.error(format_args!(
                        "outputSizes {name} {size} must be in [{calc}, {}) (the calculated size plus less than \
                         one stride)",
                        calc + stride as i128
                    )));
                }
            }
            (oh as i128, ow as i128)
        }
        None => (calc_h + output_padding[0] as i128, calc_w + output_padding[1] as i128),
    };
    let (Some(out_h), Some(out_w)) = (valid_dimension(h), valid_dimension(w)) else {
        return Err(call.error(format_args!(
            "output size {h}x{w} is not valid (input {input_height}x{input_width}, filter \
             {filter_height}x{filter_width}, padding {padding:?}, strides {strides:?}, dilations {dilations:?}, \
             outputPadding {output_padding:?})"
        )));
    };
    let shape = encode_output(options.input_layout, [batches, output_channels, out_h, out_w]);
    let attrs = Attrs::ConvTranspose2d {
        padding,
        strides,
        dilations,
        groups,
        input_layout: options.input_layout,
        filter_layout: options.filter_layout,
    };
    Ok((OperandDescriptor::new(input.data_type, shape), attrs))
}

// ---------------------------------------------------------------------------------------------
// pooling
// ---------------------------------------------------------------------------------------------

/// *create a pooling operation* ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pool2d))
/// after the limits check (which holds the allowed data types: float for averagePool2d / l2Pool2d,
/// any for maxPool2d).
///
/// decisions.md D14: the caller's padding is kept when outputSizes is given (only an absent
/// padding becomes zeros), the "outputSizes smaller than strides" sentence is not applied, and
/// outputSizes must equal the floor or the ceil of the calculated size on both axes alike.
pub(crate) fn pool2d(
    call: &OpCall,
    input: &OperandDescriptor,
    options: &Pool2dOptions,
) -> Result<(OperandDescriptor, Attrs)> {
    let [batches, channels, input_height, input_width] =
        decode_input(options.layout, dims4(call, "input", &input.shape)?);
    let window =
        fixed_list(call, "windowDimensions", options.window_dimensions.as_deref(), [input_height, input_width])?;
    check_nonzero(call, "windowDimensions", &window)?;
    let padding = fixed_list(call, "padding", options.padding.as_deref(), [0; 4])?;
    let strides = fixed_list(call, "strides", options.strides.as_deref(), [1, 1])?;
    check_nonzero(call, "strides", &strides)?;
    let output_sizes = match options.output_sizes.as_deref() {
        Some(sizes) => Some(fixed_list(call, "outputSizes", Some(sizes), [0, 0])?),
        None => None,
    };
    let dilations = fixed_list(call, "dilations", options.dilations.as_deref(), [1, 1])?;
    check_nonzero(call, "dilations", &dilations)?;
    let (floor_h, ceil_h) = conv_output_size(input_height, window[0], padding[0], padding[1], strides[0], dilations[0]);
    let (floor_w, ceil_w) = conv_output_size(input_width, window[1], padding[2], padding[3], strides[1], dilations[1]);
    let (h, w) = match output_sizes {
        Some([oh, ow]) => {
            let (oh, ow) = (oh as i128, ow as i128);
            if !((oh == floor_h && ow == floor_w) || (oh == ceil_h && ow == ceil_w)) {
                return Err(call.error(format_args!(
                    "outputSizes [{oh}, {ow}] must be the floor [{floor_h}, {floor_w}] or the ceil \
                     [{ceil_h}, {ceil_w}] of the calculated output size"
                )));
            }
            (oh, ow)
        }
        None => match options.output_shape_rounding {
            RoundingType::Floor => (floor_h, floor_w),
            RoundingType::Ceil => (ceil_h, ceil_w),
        },
    };
    let (Some(out_h), Some(out_w)) = (valid_dimension(h), valid_dimension(w)) else {
        return Err(call.error(format_args!(
            "output size {h}x{w} is not valid (input {input_height}x{input_width}, window {window:?}, padding \
             {padding:?}, strides {strides:?}, dilations {dilations:?})"
        )));
    };
    let shape = encode_output(options.layout, [batches, channels, out_h, out_w]);
    let attrs = Attrs::Pool2d { window, padding, strides, dilations, layout: options.layout };
    Ok((OperandDescriptor::new(input.data_type, shape), attrs))
}

// ---------------------------------------------------------------------------------------------
// resample2d
// ---------------------------------------------------------------------------------------------

/// `resample2d()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-resample2d-method)) after
/// the limits check. Scales are validated even when sizes are given; axes must be exactly 2
/// distinct values in [0, rank) (decisions.md D16).
pub(crate) fn resample2d(
    call: &OpCall,
    input: &OperandDescriptor,
    options: &Resample2dOptions,
) -> Result<(OperandDescriptor, Attrs)> {
    let scales: [f32; 2] = match options.scales.as_deref() {
        None => [1.0, 1.0],
        Some(s) => {
            // WebIDL `float` rejects NaN and ±Infinity; we reject them here as well.
            if s.iter().any(|&v| !v.is_finite() || v <= 0.0) {
                return Err(call.error(format_args!("every item of scales must be a finite number > 0, got {s:?}")));
            }
            <[f32; 2]>::try_from(s)
                .map_err(|_| call.error(format_args!("scales must have 2 items, got {} ({s:?})", s.len())))?
        }
    };
    let sizes = match options.sizes.as_deref() {
        None => None,
        Some(s) => {
            let s = fixed_list(call, "sizes", Some(s), [0, 0])?;
            check_nonzero(call, "sizes", &s)?;
            Some(s)
        }
    };
    let rank = input.rank();
    let axes = match options.axes.as_deref() {
        None => [2, 3],
        Some(a) => {
            if let Some(&bad) = a.iter().find(|&&x| x as usize >= rank) {
                return Err(call.error(format_args!("axis {bad} in axes {a:?} is out of range for rank {rank}")));
            }
            // decisions.md D16: exactly 2 distinct axes.
            let axes = fixed_list(call, "axes", Some(a), [0, 0])?;
            if axes[0] == axes[1] {
                return Err(call.error(format_args!("axes {a:?} must not contain duplicates")));
            }
            axes
        }
    };
    let mut shape = input.shape.clone();
    for i in 0..2 {
        let axis = axes[i] as usize;
        let Some(&in_size) = input.shape.get(axis) else {
            return Err(call.error(format_args!("axis {axis} is out of range for rank {rank}")));
        };
        let size = match sizes {
            Some(s) => Some(s[i]).filter(|&v| is_valid_dimension(v as u64)),
            None => {
                let v = (in_size as f64 * scales[i] as f64).floor();
                (v >= 1.0 && v <= crate::types::MAX_DIMENSION as f64).then_some(v as u32)
            }
        };
        let Some(size) = size else {
            return Err(call.error(format_args!(
                "output size along axis {axis} (input size {in_size}, scale {}) is not a valid dimension",
                scales[i]
            )));
        };
        shape[axis] = size;
    }
    let attrs = Attrs::Resample2d {
        mode: options.mode,
        scales: if options.scales.is_some() && sizes.is_none() { Some(scales) } else { None },
        axes,
    };
    Ok((OperandDescriptor::new(input.data_type, shape), attrs))
}

// ---------------------------------------------------------------------------------------------
// gemm, matmul
// ---------------------------------------------------------------------------------------------

/// `gemm()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gemm)) after the limits check:
/// b has a's type, alpha/beta cast to a's type, inner dimensions agree, `c` is unidirectionally
/// broadcastable to [M, N] and has a's type.
pub(crate) fn gemm(
    call: &OpCall,
    a: &OperandDescriptor,
    b: &OperandDescriptor,
    c: Option<&OperandDescriptor>,
    options: &GemmOptions,
) -> Result<(OperandDescriptor, Attrs)> {
    check_same_type(call, "b", b, "a", a)?;
    let alpha = cast_float(options.alpha, a.data_type);
    let beta = cast_float(options.beta, a.data_type);
    let (Ok(mut shape_a), Ok(mut shape_b)) = (<[u32; 2]>::try_from(&a.shape[..]), <[u32; 2]>::try_from(&b.shape[..]))
    else {
        return Err(call.error(format_args!("a and b must have rank 2, got {:?} and {:?}", a.shape, b.shape)));
    };
    if options.a_transpose {
        shape_a.reverse();
    }
    if options.b_transpose {
        shape_b.reverse();
    }
    if shape_a[1] != shape_b[0] {
        return Err(call.error(format_args!(
            "columns of a ({}) must equal rows of b ({}) (a shape {:?} aTranspose {}, b shape {:?} bTranspose {})",
            shape_a[1], shape_b[0], a.shape, options.a_transpose, b.shape, options.b_transpose
        )));
    }
    let out = [shape_a[0], shape_b[1]];
    if let Some(c) = c {
        if broadcast_unidirectional(&c.shape, &out).is_none() {
            return Err(
                call.error(format_args!("c shape {:?} is not unidirectionally broadcastable to {out:?}", c.shape))
            );
        }
        check_same_type(call, "c", c, "a", a)?;
    }
    let attrs = Attrs::Gemm { alpha, beta, a_transpose: options.a_transpose, b_transpose: options.b_transpose };
    Ok((OperandDescriptor::new(a.data_type, out.to_vec()), attrs))
}

/// `matmul()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-matmul)) after the limits
/// check: b has a's type, both ranks ≥ 2, inner dimensions agree, batch dimensions broadcast
/// bidirectionally.
pub(crate) fn matmul(call: &OpCall, a: &OperandDescriptor, b: &OperandDescriptor) -> Result<OperandDescriptor> {
    check_same_type(call, "b", b, "a", a)?;
    let (rank_a, rank_b) = (a.rank(), b.rank());
    if rank_a < 2 || rank_b < 2 {
        return Err(call.error(format_args!("a and b must have rank at least 2, got {:?} and {:?}", a.shape, b.shape)));
    }
    let (rows_a, cols_a) = (a.shape[rank_a - 2], a.shape[rank_a - 1]);
    let (rows_b, cols_b) = (b.shape[rank_b - 2], b.shape[rank_b - 1]);
    if cols_a != rows_b {
        return Err(call.error(format_args!(
            "columns of a ({cols_a}) must equal rows of b ({rows_b}) (shapes {:?} and {:?})",
            a.shape, b.shape
        )));
    }
    let mut shape = broadcast_bidirectional(&a.shape[..rank_a - 2], &b.shape[..rank_b - 2]).ok_or_else(|| {
        call.error(format_args!(
            "batch dimensions {:?} and {:?} are not broadcastable",
            &a.shape[..rank_a - 2],
            &b.shape[..rank_b - 2]
        ))
    })?;
    shape.extend([rows_a, cols_b]);
    Ok(OperandDescriptor::new(a.data_type, shape))
}

#[cfg(test)]
#[path = "conv_gemm_tests.rs"]
mod gemm_tests;
#[cfg(test)]
#[path = "conv_pool_tests.rs"]
mod pool_tests;
#[cfg(test)]
#[path = "conv_tests.rs"]
mod tests;
