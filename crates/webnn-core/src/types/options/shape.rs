//! Options of the data-movement ops: gather (§8.9.20), pad (§8.9.36), reverse (§8.9.43),
//! scatter (§8.9.44), slice (§8.9.47), split (§8.9.51) and transpose (§8.9.54).

use crate::types::{MLNumber, PaddingMode};

/// `MLGatherOptions` (also used by gatherElements)
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GatherOptions {
    /// `label`
    pub label: String,
    /// `axis`, default 0.
    pub axis: u32,
}

/// `MLScatterOptions` (scatterElements)
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScatterOptions {
    /// `label`
    pub label: String,
    /// `axis`, default 0.
    pub axis: u32,
}

/// `MLPadOptions`
#[derive(Debug, Clone, PartialEq)]
pub struct PadOptions {
    /// `label`
    pub label: String,
    /// `mode`, default "constant".
    pub mode: PaddingMode,
    /// `value`, default 0; cast to the input's data type.
    pub value: MLNumber,
}
impl Default for PadOptions {
    fn default() -> Self {
        PadOptions { label: String::new(), mode: PaddingMode::Constant, value: MLNumber::Double(0.0) }
    }
}

/// `MLReverseOptions`
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReverseOptions {
    /// `label`
    pub label: String,
    /// `axes`; absent reverses every dimension, empty reverses none.
    pub axes: Option<Vec<u32>>,
}

/// `MLSliceOptions`
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SliceOptions {
    /// `label`
    pub label: String,
    /// `strides`; default all 1.
    pub strides: Option<Vec<u32>>,
}

/// `MLSplitOptions`
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SplitOptions {
    /// `label`
    pub label: String,
    /// `axis`, default 0.
    pub axis: u32,
}

/// The `splits` argument of `split()`: `(unsigned long or sequence<unsigned long>)`.
#[derive(Debug, Clone, PartialEq)]
pub enum Splits {
    /// Split into this many equal parts.
    Count(u32),
    /// Split into parts of these sizes.
    Sizes(Vec<u32>),
}

/// `MLTransposeOptions`
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TransposeOptions {
    /// `label`
    pub label: String,
    /// `permutation`; default reverses the dimensions.
    pub permutation: Option<Vec<u32>>,
}
