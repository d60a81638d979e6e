//! Options of conv2d (§8.9.10), convTranspose2d (§8.9.11), pooling (§8.9.37) and resample2d (§8.9.41).

use crate::operand::Operand;
use crate::types::{
    Conv2dFilterOperandLayout, ConvTranspose2dFilterOperandLayout, InputOperandLayout, InterpolationMode, RoundingType,
};

/// `MLConv2dOptions`; `Default` gives the IDL defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct Conv2dOptions {
    /// `label`
    pub label: String,
    /// `padding` [beginH, endH, beginW, endW]; default [0, 0, 0, 0].
    pub padding: Option<Vec<u32>>,
    /// `strides` [sH, sW]; default [1, 1].
    pub strides: Option<Vec<u32>>,
    /// `dilations` [dH, dW]; default [1, 1].
    pub dilations: Option<Vec<u32>>,
    /// `groups`, default 1.
    pub groups: u32,
    /// `inputLayout`, default "nchw".
    pub input_layout: InputOperandLayout,
    /// `filterLayout`, default "oihw".
    pub filter_layout: Conv2dFilterOperandLayout,
    /// `bias`: 1-D [outputChannels].
    pub bias: Option<Operand>,
}

impl Default for Conv2dOptions {
    /// The IDL defaults: groups 1, every other member absent or its enum's default.
    fn default() -> Self {
        Conv2dOptions {
            label: Default::default(),
            padding: Default::default(),
            strides: Default::default(),
            dilations: Default::default(),
            groups: 1,
            input_layout: Default::default(),
            filter_layout: Default::default(),
            bias: Default::default(),
        }
    }
}

impl Conv2dOptions {
    /// The IDL defaults (the same as `Default`).
    pub fn new() -> Self {
        Self::default()
    }
}

/// `MLConvTranspose2dOptions`; `Default` gives the IDL defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct ConvTranspose2dOptions {
    /// `label`
    pub label: String,
    /// `padding`; default [0, 0, 0, 0].
    pub padding: Option<Vec<u32>>,
    /// `strides`; default [1, 1].
    pub strides: Option<Vec<u32>>,
    /// `dilations`; default [1, 1].
    pub dilations: Option<Vec<u32>>,
    /// `outputPadding`; default [0, 0].
    pub output_padding: Option<Vec<u32>>,
    /// `outputSizes` [H, W].
    pub output_sizes: Option<Vec<u32>>,
    /// `groups`, default 1.
    pub groups: u32,
    /// `inputLayout`, default "nchw".
    pub input_layout: InputOperandLayout,
    /// `filterLayout`, default "iohw".
    pub filter_layout: ConvTranspose2dFilterOperandLayout,
    /// `bias`
    pub bias: Option<Operand>,
}

impl Default for ConvTranspose2dOptions {
    /// The IDL defaults: groups 1, every other member absent or its enum's default.
    fn default() -> Self {
        ConvTranspose2dOptions {
            label: Default::default(),
            padding: Default::default(),
            strides: Default::default(),
            dilations: Default::default(),
            output_padding: Default::default(),
            output_sizes: Default::default(),
            groups: 1,
            input_layout: Default::default(),
            filter_layout: Default::default(),
            bias: Default::default(),
        }
    }
}

impl ConvTranspose2dOptions {
    /// The IDL defaults (the same as `Default`).
    pub fn new() -> Self {
        Self::default()
    }
}

/// `MLPool2dOptions`
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pool2dOptions {
    /// `label`
    pub label: String,
    /// `windowDimensions` [wH, wW]; default: the input's spatial size (global pooling).
    pub window_dimensions: Option<Vec<u32>>,
    /// `padding`; default [0, 0, 0, 0].
    pub padding: Option<Vec<u32>>,
    /// `strides`; default [1, 1].
    pub strides: Option<Vec<u32>>,
    /// `dilations`; default [1, 1].
    pub dilations: Option<Vec<u32>>,
    /// `layout`, default "nchw".
    pub layout: InputOperandLayout,
    /// `outputShapeRounding`, default "floor".
    pub output_shape_rounding: RoundingType,
    /// `outputSizes` [oH, oW]; when given, the rounding is taken from it.
    pub output_sizes: Option<Vec<u32>>,
}

/// `MLResample2dOptions`
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resample2dOptions {
    /// `label`
    pub label: String,
    /// `mode`, default "nearest-neighbor".
    pub mode: InterpolationMode,
    /// `scales`; default [1.0, 1.0].
    pub scales: Option<Vec<f32>>,
    /// `sizes`; when given, scales are ignored for the output size.
    pub sizes: Option<Vec<u32>>,
    /// `axes`; default [2, 3].
    pub axes: Option<Vec<u32>>,
}
