//! Options of batchNormalization, instanceNormalization and layerNormalization.

use super::options_dict;
use crate::operand::Operand;
use crate::types::InputOperandLayout;

options_dict! {
    /// `MLBatchNormalizationOptions`
    BatchNormalizationOptions = "MLBatchNormalizationOptions" {
        /// `scale`: 1-D `[input.shape[axis]]`.
        scale: Option<Operand> = None, "scale": "operand";
        /// `bias`: 1-D `[input.shape[axis]]`.
        bias: Option<Operand> = None, "bias": "operand";
        /// `axis`, default 1.
        axis: u32 = 1, "axis": "u32e";
        /// `epsilon`, default 1e-5.
        epsilon: f64 = 1e-5, "epsilon": "double";
    }
}

options_dict! {
    /// `MLInstanceNormalizationOptions`
    InstanceNormalizationOptions = "MLInstanceNormalizationOptions" {
        /// `scale`: 1-D `[channels]`.
        scale: Option<Operand> = None, "scale": "operand";
        /// `bias`: 1-D `[channels]`.
        bias: Option<Operand> = None, "bias": "operand";
        /// `epsilon`, default 1e-5.
        epsilon: f64 = 1e-5, "epsilon": "double";
        /// `layout`, default "nchw".
        layout: InputOperandLayout = InputOperandLayout::Nchw, "layout": "enum:MLInputOperandLayout";
    }
}

options_dict! {
    /// `MLLayerNormalizationOptions`
    LayerNormalizationOptions = "MLLayerNormalizationOptions" {
        /// `scale`: shaped like the normalized axes, in `axes` order.
        scale: Option<Operand> = None, "scale": "operand";
        /// `bias`: shaped like the normalized axes, in `axes` order.
        bias: Option<Operand> = None, "bias": "operand";
        /// `axes`; default [1, ..., rank − 1].
        axes: Option<Vec<u32>> = None, "axes": "u32eSeq";
        /// `epsilon`, default 1e-5.
        epsilon: f64 = 1e-5, "epsilon": "double";
    }
}
