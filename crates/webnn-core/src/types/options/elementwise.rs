//! Options of argMin/argMax, clamp, cumulativeSum, elu, gemm, hardSigmoid, leakyRelu, linear,
//! the reductions and triangular.

use super::options_dict;
use crate::operand::Operand;
use crate::types::{DataType, MLNumber};

options_dict! {
    /// `MLArgMinMaxOptions`
    ArgMinMaxOptions = "MLArgMinMaxOptions" {
        /// `keepDimensions`, default false.
        keep_dimensions: bool = false, "keepDimensions": "boolean";
        /// `outputDataType`, default "int32".
        output_data_type: DataType = DataType::Int32, "outputDataType": "dataType";
    }
}

options_dict! {
    /// `MLClampOptions`
    ClampOptions = "MLClampOptions" {
        /// `minValue`; absent means no lower bound (decisions.md D4).
        min_value: Option<MLNumber> = None, "minValue": "number";
        /// `maxValue`; absent means no upper bound (decisions.md D4).
        max_value: Option<MLNumber> = None, "maxValue": "number";
    }
}

options_dict! {
    /// `MLCumulativeSumOptions`
    CumulativeSumOptions = "MLCumulativeSumOptions" {
        /// `exclusive`, default false.
        exclusive: bool = false, "exclusive": "boolean";
        /// `reversed`, default false.
        reversed: bool = false, "reversed": "boolean";
    }
}

options_dict! {
    /// `MLEluOptions`
    EluOptions = "MLEluOptions" {
        /// `alpha`, default 1.
        alpha: f64 = 1.0, "alpha": "double";
    }
}

options_dict! {
    /// `MLGemmOptions`
    GemmOptions = "MLGemmOptions" {
        /// `c`: added after scaling by beta, unidirectionally broadcast to [M, N].
        c: Option<Operand> = None, "c": "operand";
        /// `alpha`, default 1.
        alpha: f64 = 1.0, "alpha": "double";
        /// `beta`, default 1.
        beta: f64 = 1.0, "beta": "double";
        /// `aTranspose`, default false.
        a_transpose: bool = false, "aTranspose": "boolean";
        /// `bTranspose`, default false.
        b_transpose: bool = false, "bTranspose": "boolean";
    }
}

options_dict! {
    /// `MLHardSigmoidOptions`
    HardSigmoidOptions = "MLHardSigmoidOptions" {
        /// `alpha`, default 0.2.
        alpha: f64 = 0.2, "alpha": "double";
        /// `beta`, default 0.5.
        beta: f64 = 0.5, "beta": "double";
    }
}

options_dict! {
    /// `MLLeakyReluOptions`
    LeakyReluOptions = "MLLeakyReluOptions" {
        /// `alpha`, default 0.01.
        alpha: f64 = 0.01, "alpha": "double";
    }
}

options_dict! {
    /// `MLLinearOptions`
    LinearOptions = "MLLinearOptions" {
        /// `alpha`, default 1.
        alpha: f64 = 1.0, "alpha": "double";
        /// `beta`, default 0.
        beta: f64 = 0.0, "beta": "double";
    }
}

options_dict! {
    /// `MLReduceOptions`
    ReduceOptions = "MLReduceOptions" {
        /// `axes`; absent reduces every dimension, empty reduces none.
        axes: Option<Vec<u32>> = None, "axes": "u32eSeq";
        /// `keepDimensions`, default false.
        keep_dimensions: bool = false, "keepDimensions": "boolean";
    }
}

options_dict! {
    /// `MLTriangularOptions`
    TriangularOptions = "MLTriangularOptions" {
        /// `upper`, default true.
        upper: bool = true, "upper": "boolean";
        /// `diagonal`, default 0.
        diagonal: i32 = 0, "diagonal": "i32e";
    }
}
