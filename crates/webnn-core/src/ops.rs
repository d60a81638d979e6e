//! THE op table: one row per `MLGraphBuilder` operation of the 2026 CRD (95 rows).
//!
//! Each row gives the Rust variant, the exact IDL method name (which is also the
//! `MLOpSupportLimits` member name) and the kind of support-limits dictionary, which fixes the
//! operand slots of the op (see [`LimitsKind::members`]).

/// The `MLOpSupportLimits` dictionary type of an op; it names the op's operand slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LimitsKind {
    /// `MLSingleInputSupportLimits { input, output }`
    SingleInput,
    /// `MLBinarySupportLimits { a, b, output }`
    Binary,
    /// `MLLogicalNotSupportLimits { a, output }`
    LogicalNot,
    /// `MLBatchNormalizationSupportLimits`
    BatchNormalization,
    /// `MLConcatSupportLimits { inputs, output }`
    Concat,
    /// `MLConv2dSupportLimits { input, filter, bias, output }`
    Conv2d,
    /// `MLQuantizeDequantizeLinearSupportLimits { input, scale, zeroPoint, output }`
    QuantizeDequantizeLinear,
    /// `MLGatherSupportLimits { input, indices, output }`
    Gather,
    /// `MLGemmSupportLimits { a, b, c, output }`
    Gemm,
    /// `MLGruSupportLimits`
    Gru,
    /// `MLGruCellSupportLimits`
    GruCell,
    /// `MLNormalizationSupportLimits { input, scale, bias, output }`
    Normalization,
    /// `MLLstmSupportLimits`
    Lstm,
    /// `MLLstmCellSupportLimits`
    LstmCell,
    /// `MLPreluSupportLimits { input, slope, output }`
    Prelu,
    /// `MLScatterSupportLimits { input, indices, updates, output }`
    Scatter,
    /// `MLSplitSupportLimits { input, outputs }`
    Split,
    /// `MLWhereSupportLimits { condition, trueValue, falseValue, output }`
    Where,
}

impl LimitsKind {
    /// The input operand slots, in IR order (positional operands, then option operands).
    pub fn inputs(self) -> &'static [&'static str] {
        use LimitsKind::*;
        match self {
            SingleInput => &["input"],
            Binary => &["a", "b"],
            LogicalNot => &["a"],
            BatchNormalization => &["input", "mean", "variance", "scale", "bias"],
            Concat => &["inputs"],
            Conv2d => &["input", "filter", "bias"],
            QuantizeDequantizeLinear => &["input", "scale", "zeroPoint"],
            Gather => &["input", "indices"],
            Gemm => &["a", "b", "c"],
            Gru => &["input", "weight", "recurrentWeight", "bias", "recurrentBias", "initialHiddenState"],
            GruCell => &["input", "weight", "recurrentWeight", "hiddenState", "bias", "recurrentBias"],
            Normalization => &["input", "scale", "bias"],
            Lstm => &[
                "input",
                "weight",
                "recurrentWeight",
                "bias",
                "recurrentBias",
                "peepholeWeight",
                "initialHiddenState",
                "initialCellState",
            ],
            LstmCell => &[
                "input",
                "weight",
                "recurrentWeight",
                "hiddenState",
                "cellState",
                "bias",
                "recurrentBias",
                "peepholeWeight",
            ],
            Prelu => &["input", "slope"],
            Scatter => &["input", "indices", "updates"],
            Split => &["input"],
            Where => &["condition", "trueValue", "falseValue"],
        }
    }

    /// The output slots of the limits dictionary.
    pub fn outputs(self) -> &'static [&'static str] {
        use LimitsKind::*;
        match self {
            Gru => &["output0", "output1"],
            Lstm => &["output0", "output1", "output2"],
            LstmCell => &["output0", "output1"],
            Split => &["outputs"],
            _ => &["output"],
        }
    }

    /// Every member of the limits dictionary: inputs then outputs.
    pub fn members(self) -> impl Iterator<Item = &'static str> {
        self.inputs().iter().chain(self.outputs().iter()).copied()
    }
}

macro_rules! op_table {
    ($($variant:ident => $idl:literal, $limits:ident;)+) => {
        /// One variant per `MLGraphBuilder` operation (95).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum OpKind { $(#[doc = concat!("`", $idl, "()`")] $variant),+ }

        impl OpKind {
            /// Every op, in the spec's order.
            pub const ALL: &'static [OpKind] = &[$(OpKind::$variant),+];

            /// The IDL method name, also the `MLOpSupportLimits` member name.
            pub fn idl_name(self) -> &'static str {
                match self { $(OpKind::$variant => $idl),+ }
            }

            /// The kind of support-limits dictionary (which fixes the operand slots).
            pub fn limits_kind(self) -> LimitsKind {
                match self { $(OpKind::$variant => LimitsKind::$limits),+ }
            }

            /// Looks an op up by its IDL name.
            pub fn from_idl_name(name: &str) -> Option<OpKind> {
                match name { $($idl => Some(OpKind::$variant),)+ _ => None }
            }
        }
    };
}

op_table! {
    ArgMin => "argMin", SingleInput;
    ArgMax => "argMax", SingleInput;
    BatchNormalization => "batchNormalization", BatchNormalization;
    Cast => "cast", SingleInput;
    Clamp => "clamp", SingleInput;
    Concat => "concat", Concat;
    Conv2d => "conv2d", Conv2d;
    ConvTranspose2d => "convTranspose2d", Conv2d;
    CumulativeSum => "cumulativeSum", SingleInput;
    Add => "add", Binary;
    Sub => "sub", Binary;
    Mul => "mul", Binary;
    Div => "div", Binary;
    Max => "max", Binary;
    Min => "min", Binary;
    Pow => "pow", Binary;
    Equal => "equal", Binary;
    NotEqual => "notEqual", Binary;
    Greater => "greater", Binary;
    GreaterOrEqual => "greaterOrEqual", Binary;
    Lesser => "lesser", Binary;
    LesserOrEqual => "lesserOrEqual", Binary;
    LogicalNot => "logicalNot", LogicalNot;
    LogicalAnd => "logicalAnd", Binary;
    LogicalOr => "logicalOr", Binary;
    LogicalXor => "logicalXor", Binary;
    IsNaN => "isNaN", LogicalNot;
    IsInfinite => "isInfinite", LogicalNot;
    Abs => "abs", SingleInput;
    Ceil => "ceil", SingleInput;
    Cos => "cos", SingleInput;
    Erf => "erf", SingleInput;
    Exp => "exp", SingleInput;
    Floor => "floor", SingleInput;
    Identity => "identity", SingleInput;
    Log => "log", SingleInput;
    Neg => "neg", SingleInput;
    Reciprocal => "reciprocal", SingleInput;
    RoundEven => "roundEven", SingleInput;
    Sin => "sin", SingleInput;
    Sign => "sign", SingleInput;
    Sqrt => "sqrt", SingleInput;
    Tan => "tan", SingleInput;
    DequantizeLinear => "dequantizeLinear", QuantizeDequantizeLinear;
    QuantizeLinear => "quantizeLinear", QuantizeDequantizeLinear;
    Elu => "elu", SingleInput;
    Expand => "expand", SingleInput;
    Gather => "gather", Gather;
    GatherElements => "gatherElements", Gather;
    GatherNd => "gatherND", Gather;
    Gelu => "gelu", SingleInput;
    Gemm => "gemm", Gemm;
    Gru => "gru", Gru;
    GruCell => "gruCell", GruCell;
    HardSigmoid => "hardSigmoid", SingleInput;
    HardSwish => "hardSwish", SingleInput;
    InstanceNormalization => "instanceNormalization", Normalization;
    LayerNormalization => "layerNormalization", Normalization;
    LeakyRelu => "leakyRelu", SingleInput;
    Linear => "linear", SingleInput;
    Lstm => "lstm", Lstm;
    LstmCell => "lstmCell", LstmCell;
    Matmul => "matmul", Binary;
    Pad => "pad", SingleInput;
    AveragePool2d => "averagePool2d", SingleInput;
    L2Pool2d => "l2Pool2d", SingleInput;
    MaxPool2d => "maxPool2d", SingleInput;
    Prelu => "prelu", Prelu;
    ReduceL1 => "reduceL1", SingleInput;
    ReduceL2 => "reduceL2", SingleInput;
    ReduceLogSum => "reduceLogSum", SingleInput;
    ReduceLogSumExp => "reduceLogSumExp", SingleInput;
    ReduceMax => "reduceMax", SingleInput;
    ReduceMean => "reduceMean", SingleInput;
    ReduceMin => "reduceMin", SingleInput;
    ReduceProduct => "reduceProduct", SingleInput;
    ReduceSum => "reduceSum", SingleInput;
    ReduceSumSquare => "reduceSumSquare", SingleInput;
    Relu => "relu", SingleInput;
    Resample2d => "resample2d", SingleInput;
    Reshape => "reshape", SingleInput;
    Reverse => "reverse", SingleInput;
    ScatterElements => "scatterElements", Scatter;
    ScatterNd => "scatterND", Scatter;
    Sigmoid => "sigmoid", SingleInput;
    Slice => "slice", SingleInput;
    Softmax => "softmax", SingleInput;
    Softplus => "softplus", SingleInput;
    Softsign => "softsign", SingleInput;
    Split => "split", Split;
    Tanh => "tanh", SingleInput;
    Tile => "tile", SingleInput;
    Transpose => "transpose", SingleInput;
    Triangular => "triangular", SingleInput;
    Where => "where", Where;
}

impl std::fmt::Display for OpKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.idl_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_95_ops_with_unique_names() {
        assert_eq!(OpKind::ALL.len(), 95);
        let mut names: Vec<_> = OpKind::ALL.iter().map(|o| o.idl_name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 95);
        for op in OpKind::ALL {
            assert_eq!(OpKind::from_idl_name(op.idl_name()), Some(*op));
        }
    }
}
