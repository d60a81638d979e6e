//! Options of the data-movement ops: gather, pad, reverse, scatter, slice, split and
//! transpose.

use super::options_dict;
use crate::types::{MLNumber, PaddingMode};

options_dict! {
    /// `MLGatherOptions` (also used by gatherElements)
    GatherOptions = "MLGatherOptions" {
        /// `axis`, default 0.
        axis: u32 = 0, "axis": "u32e";
    }
}

options_dict! {
    /// `MLScatterOptions` (scatterElements)
    ScatterOptions = "MLScatterOptions" {
        /// `axis`, default 0.
        axis: u32 = 0, "axis": "u32e";
    }
}

options_dict! {
    /// `MLPadOptions`
    PadOptions = "MLPadOptions" {
        /// `mode`, default "constant".
        mode: PaddingMode = PaddingMode::Constant, "mode": "enum:MLPaddingMode";
        /// `value`, default 0; cast to the input's data type.
        value: MLNumber = MLNumber::Double(0.0), "value": "number";
    }
}

options_dict! {
    /// `MLReverseOptions`
    ReverseOptions = "MLReverseOptions" {
        /// `axes`; absent reverses every dimension, empty reverses none.
        axes: Option<Vec<u32>> = None, "axes": "u32eSeq";
    }
}

options_dict! {
    /// `MLSliceOptions`
    SliceOptions = "MLSliceOptions" {
        /// `strides`; default all 1.
        strides: Option<Vec<u32>> = None, "strides": "u32eSeq";
    }
}

options_dict! {
    /// `MLSplitOptions`
    SplitOptions = "MLSplitOptions" {
        /// `axis`, default 0.
        axis: u32 = 0, "axis": "u32e";
    }
}

/// The `splits` argument of `split()`: `(unsigned long or sequence<unsigned long>)`.
#[derive(Debug, Clone, PartialEq)]
pub enum Splits {
    /// Split into this many equal parts.
    Count(u32),
    /// Split into parts of these sizes.
    Sizes(Vec<u32>),
}

options_dict! {
    /// `MLTransposeOptions`
    TransposeOptions = "MLTransposeOptions" {
        /// `permutation`; default reverses the dimensions.
        permutation: Option<Vec<u32>> = None, "permutation": "u32eSeq";
    }
}
