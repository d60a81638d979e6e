//! Options of conv2d, convTranspose2d, the pooling ops and resample2d.

use super::options_dict;
use crate::operand::Operand;
use crate::types::{
    Conv2dFilterOperandLayout, ConvTranspose2dFilterOperandLayout, InputOperandLayout, InterpolationMode, RoundingType,
};

options_dict! {
    /// `MLConv2dOptions`
    Conv2dOptions = "MLConv2dOptions" {
        /// `padding` [beginH, endH, beginW, endW]; default [0, 0, 0, 0].
        padding: Option<Vec<u32>> = None, "padding": "u32eSeq";
        /// `strides` [sH, sW]; default [1, 1].
        strides: Option<Vec<u32>> = None, "strides": "u32eSeq";
        /// `dilations` [dH, dW]; default [1, 1].
        dilations: Option<Vec<u32>> = None, "dilations": "u32eSeq";
        /// `groups`, default 1.
        groups: u32 = 1, "groups": "u32e";
        /// `inputLayout`, default "nchw".
        input_layout: InputOperandLayout = InputOperandLayout::Nchw, "inputLayout": "enum:MLInputOperandLayout";
        /// `filterLayout`, default "oihw".
        filter_layout: Conv2dFilterOperandLayout = Conv2dFilterOperandLayout::Oihw,
            "filterLayout": "enum:MLConv2dFilterOperandLayout";
        /// `bias`: 1-D `[outputChannels]`.
        bias: Option<Operand> = None, "bias": "operand";
    }
}

options_dict! {
    /// `MLConvTranspose2dOptions`
    ConvTranspose2dOptions = "MLConvTranspose2dOptions" {
        /// `padding`; default [0, 0, 0, 0].
        padding: Option<Vec<u32>> = None, "padding": "u32eSeq";
        /// `strides`; default [1, 1].
        strides: Option<Vec<u32>> = None, "strides": "u32eSeq";
        /// `dilations`; default [1, 1].
        dilations: Option<Vec<u32>> = None, "dilations": "u32eSeq";
        /// `outputPadding`; default [0, 0].
        output_padding: Option<Vec<u32>> = None, "outputPadding": "u32eSeq";
        /// `outputSizes` [H, W].
        output_sizes: Option<Vec<u32>> = None, "outputSizes": "u32eSeq";
        /// `groups`, default 1.
        groups: u32 = 1, "groups": "u32e";
        /// `inputLayout`, default "nchw".
        input_layout: InputOperandLayout = InputOperandLayout::Nchw, "inputLayout": "enum:MLInputOperandLayout";
        /// `filterLayout`, default "iohw".
        filter_layout: ConvTranspose2dFilterOperandLayout = ConvTranspose2dFilterOperandLayout::Iohw,
            "filterLayout": "enum:MLConvTranspose2dFilterOperandLayout";
        /// `bias`
        bias: Option<Operand> = None, "bias": "operand";
    }
}

impl Conv2dOptions {
    /// The IDL defaults (the same as `Default`).
    pub fn new() -> Self {
        Self::default()
    }
}

impl ConvTranspose2dOptions {
    /// The IDL defaults (the same as `Default`).
    pub fn new() -> Self {
        Self::default()
    }
}

options_dict! {
    /// `MLPool2dOptions`
    Pool2dOptions = "MLPool2dOptions" {
        /// `windowDimensions` [wH, wW]; default: the input's spatial size (global pooling).
        window_dimensions: Option<Vec<u32>> = None, "windowDimensions": "u32eSeq";
        /// `padding`; default [0, 0, 0, 0].
        padding: Option<Vec<u32>> = None, "padding": "u32eSeq";
        /// `strides`; default [1, 1].
        strides: Option<Vec<u32>> = None, "strides": "u32eSeq";
        /// `dilations`; default [1, 1].
        dilations: Option<Vec<u32>> = None, "dilations": "u32eSeq";
        /// `layout`, default "nchw".
        layout: InputOperandLayout = InputOperandLayout::Nchw, "layout": "enum:MLInputOperandLayout";
        /// `outputShapeRounding`, default "floor".
        output_shape_rounding: RoundingType = RoundingType::Floor, "outputShapeRounding": "enum:MLRoundingType";
        /// `outputSizes` [oH, oW]; when given, the rounding is taken from it.
        output_sizes: Option<Vec<u32>> = None, "outputSizes": "u32eSeq";
    }
}

options_dict! {
    /// `MLResample2dOptions`
    Resample2dOptions = "MLResample2dOptions" {
        /// `mode`, default "nearest-neighbor".
        mode: InterpolationMode = InterpolationMode::NearestNeighbor, "mode": "enum:MLInterpolationMode";
        /// `scales`; default [1.0, 1.0].
        scales: Option<Vec<f32>> = None, "scales": "floatSeq";
        /// `sizes`; when given, scales are ignored for the output size.
        sizes: Option<Vec<u32>> = None, "sizes": "u32eSeq";
        /// `axes`; default [2, 3].
        axes: Option<Vec<u32>> = None, "axes": "u32eSeq";
    }
}
