//! Options of batchNormalization (§8.9.6), instanceNormalization (§8.9.29) and
//! layerNormalization (§8.9.30).

use crate::operand::Operand;
use crate::types::InputOperandLayout;

/// `MLBatchNormalizationOptions`
#[derive(Debug, Clone, PartialEq)]
pub struct BatchNormalizationOptions {
    /// `label`
    pub label: String,
    /// `scale`: 1-D [input.shape[axis]].
    pub scale: Option<Operand>,
    /// `bias`: 1-D [input.shape[axis]].
    pub bias: Option<Operand>,
    /// `axis`, default 1.
    pub axis: u32,
    /// `epsilon`, default 1e-5.
    pub epsilon: f64,
}
impl Default for BatchNormalizationOptions {
    fn default() -> Self {
        BatchNormalizationOptions { label: String::new(), scale: None, bias: None, axis: 1, epsilon: 1e-5 }
    }
}

/// `MLInstanceNormalizationOptions`
#[derive(Debug, Clone, PartialEq)]
pub struct InstanceNormalizationOptions {
    /// `label`
    pub label: String,
    /// `scale`: 1-D [channels].
    pub scale: Option<Operand>,
    /// `bias`: 1-D [channels].
    pub bias: Option<Operand>,
    /// `epsilon`, default 1e-5.
    pub epsilon: f64,
    /// `layout`, default "nchw".
    pub layout: InputOperandLayout,
}
impl Default for InstanceNormalizationOptions {
    fn default() -> Self {
        InstanceNormalizationOptions {
            label: String::new(),
            scale: None,
            bias: None,
            epsilon: 1e-5,
            layout: InputOperandLayout::Nchw,
        }
    }
}

/// `MLLayerNormalizationOptions`
#[derive(Debug, Clone, PartialEq)]
pub struct LayerNormalizationOptions {
    /// `label`
    pub label: String,
    /// `scale`: shaped like the normalized axes, in `axes` order.
    pub scale: Option<Operand>,
    /// `bias`: shaped like the normalized axes, in `axes` order.
    pub bias: Option<Operand>,
    /// `axes`; default [1, ..., rank − 1].
    pub axes: Option<Vec<u32>>,
    /// `epsilon`, default 1e-5.
    pub epsilon: f64,
}
impl Default for LayerNormalizationOptions {
    fn default() -> Self {
        LayerNormalizationOptions { label: String::new(), scale: None, bias: None, axes: None, epsilon: 1e-5 }
    }
}
