//! Options of argMin/argMax (§8.9.5), clamp (§8.9.8), cumulativeSum (§8.9.12), elu (§8.9.18),
//! gemm (§8.9.24), hardSigmoid (§8.9.27), leakyRelu (§8.9.31), linear (§8.9.32),
//! reductions (§8.9.39) and triangular (§8.9.55).

use crate::operand::Operand;
use crate::types::{DataType, MLNumber};

/// `MLArgMinMaxOptions`
#[derive(Debug, Clone, PartialEq)]
pub struct ArgMinMaxOptions {
    /// `label`
    pub label: String,
    /// `keepDimensions`, default false.
    pub keep_dimensions: bool,
    /// `outputDataType`, default "int32".
    pub output_data_type: DataType,
}

impl Default for ArgMinMaxOptions {
    fn default() -> Self {
        ArgMinMaxOptions { label: String::new(), keep_dimensions: false, output_data_type: DataType::Int32 }
    }
}

/// `MLClampOptions`
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClampOptions {
    /// `label`
    pub label: String,
    /// `minValue`; absent means no lower bound (decisions.md D4).
    pub min_value: Option<MLNumber>,
    /// `maxValue`; absent means no upper bound (decisions.md D4).
    pub max_value: Option<MLNumber>,
}

/// `MLCumulativeSumOptions`
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CumulativeSumOptions {
    /// `label`
    pub label: String,
    /// `exclusive`, default false.
    pub exclusive: bool,
    /// `reversed`, default false.
    pub reversed: bool,
}

/// `MLEluOptions`
#[derive(Debug, Clone, PartialEq)]
pub struct EluOptions {
    /// `label`
    pub label: String,
    /// `alpha`, default 1.
    pub alpha: f64,
}
impl Default for EluOptions {
    fn default() -> Self {
        EluOptions { label: String::new(), alpha: 1.0 }
    }
}

/// `MLGemmOptions`
#[derive(Debug, Clone, PartialEq)]
pub struct GemmOptions {
    /// `label`
    pub label: String,
    /// `c`: added after scaling by beta, unidirectionally broadcast to [M, N].
    pub c: Option<Operand>,
    /// `alpha`, default 1.
    pub alpha: f64,
    /// `beta`, default 1.
    pub beta: f64,
    /// `aTranspose`, default false.
    pub a_transpose: bool,
    /// `bTranspose`, default false.
    pub b_transpose: bool,
}
impl Default for GemmOptions {
    fn default() -> Self {
        GemmOptions { label: String::new(), c: None, alpha: 1.0, beta: 1.0, a_transpose: false, b_transpose: false }
    }
}

/// `MLHardSigmoidOptions`
#[derive(Debug, Clone, PartialEq)]
pub struct HardSigmoidOptions {
    /// `label`
    pub label: String,
    /// `alpha`, default 0.2.
    pub alpha: f64,
    /// `beta`, default 0.5.
    pub beta: f64,
}
impl Default for HardSigmoidOptions {
    fn default() -> Self {
        HardSigmoidOptions { label: String::new(), alpha: 0.2, beta: 0.5 }
    }
}

/// `MLLeakyReluOptions`
#[derive(Debug, Clone, PartialEq)]
pub struct LeakyReluOptions {
    /// `label`
    pub label: String,
    /// `alpha`, default 0.01.
    pub alpha: f64,
}
impl Default for LeakyReluOptions {
    fn default() -> Self {
        LeakyReluOptions { label: String::new(), alpha: 0.01 }
    }
}

/// `MLLinearOptions`
#[derive(Debug, Clone, PartialEq)]
pub struct LinearOptions {
    /// `label`
    pub label: String,
    /// `alpha`, default 1.
    pub alpha: f64,
    /// `beta`, default 0.
    pub beta: f64,
}
impl Default for LinearOptions {
    fn default() -> Self {
        LinearOptions { label: String::new(), alpha: 1.0, beta: 0.0 }
    }
}

/// `MLReduceOptions`
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReduceOptions {
    /// `label`
    pub label: String,
    /// `axes`; absent reduces every dimension, empty reduces none.
    pub axes: Option<Vec<u32>>,
    /// `keepDimensions`, default false.
    pub keep_dimensions: bool,
}

/// `MLTriangularOptions`
#[derive(Debug, Clone, PartialEq)]
pub struct TriangularOptions {
    /// `label`
    pub label: String,
    /// `upper`, default true.
    pub upper: bool,
    /// `diagonal`, default 0.
    pub diagonal: i32,
}
impl Default for TriangularOptions {
    fn default() -> Self {
        TriangularOptions { label: String::new(), upper: true, diagonal: 0 }
    }
}
