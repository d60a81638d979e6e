//! THE op table ([`for_each_op!`](crate::for_each_op)): one row per `MLGraphBuilder`
//! operation of the 2026 CRD (95 rows), and [`OpKind`] generated from it.

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

/// THE op table: calls `$callback! { rows }` with one row per `MLGraphBuilder` operation, in
/// the spec's order. Everything per op that is not its validator, options struct, kernels or
/// ONNX mapping derives from these rows: [`OpKind`], the IDL names and spec anchors, the
/// support limits ([`crate::limits::op_limits`]), the dynamic call
/// ([`GraphBuilder::call`](crate::GraphBuilder::call)) and the op signatures the bindings
/// build their methods from ([`crate::signatures`]).
///
/// A row: `Variant "idlName" "spec-anchor" rust_method by family (operand, ...) [arg: Type =
/// "idlName" "idl type key", ...] OptionsStruct one|many LimitsKind: limits;`
/// - `by family`: the builder method is generated, calling the family's shared method
///   (`GraphBuilder::activation(op, ...)` etc., which runs the family's validator); `by own`:
///   the method is written by hand in `builder/<family>.rs`;
/// - the operands are the positional `MLOperand` arguments (`[inputs]`: concat's sequence);
/// - the bracketed arguments are the other positional arguments, with the Rust type the
///   builder method takes and their IDL name and type key (see
///   [`crate::types::options::MemberSignature`]);
/// - `one` or `many`: whether the method returns an operand or a sequence;
/// - the limits: the `MLTensorLimits` of each member of the op's `LimitsKind` dictionary,
///   as an expression over the helpers of [`crate::limits`].
#[macro_export]
#[doc(hidden)]
macro_rules! for_each_op {
    ($callback:ident) => {
        $callback! {
        ArgMin "argMin" "argminmax" arg_min by arg_min_max (input) [axis: u32 = "axis" "u32e"] ArgMinMaxOptions one
            SingleInput: vec![("input", lim(ANY, 1, N)), ("output", lim(ARG_OUTPUT, 0, N))];
        ArgMax "argMax" "argminmax" arg_max by arg_min_max (input) [axis: u32 = "axis" "u32e"] ArgMinMaxOptions one
            SingleInput: vec![("input", lim(ANY, 1, N)), ("output", lim(ARG_OUTPUT, 0, N))];
        BatchNormalization "batchNormalization" "batchnorm" batch_normalization by own
            (input, mean, variance) [] BatchNormalizationOptions one
            BatchNormalization: vec![
                ("input", lim(FLOAT, 1, N)),
                ("mean", lim(FLOAT, 1, 1)),
                ("variance", lim(FLOAT, 1, 1)),
                ("scale", lim(FLOAT, 1, 1)),
                ("bias", lim(FLOAT, 1, 1)),
                ("output", lim(FLOAT, 1, N)),
            ];
        Cast "cast" "cast" cast by own (input) [data_type: DataType = "dataType" "dataType"] OperatorOptions one
            SingleInput: single(ANY, 0, N);
        Clamp "clamp" "clamp" clamp by own (input) [] ClampOptions one
            SingleInput: single(ANY, 0, N);
        Concat "concat" "concat" concat by own [inputs] [axis: u32 = "axis" "u32e"] OperatorOptions one
            Concat: vec![("inputs", lim(ANY, 1, N)), ("output", lim(ANY, 1, N))];
        Conv2d "conv2d" "conv2d" conv2d by own (input, filter) [] Conv2dOptions one
            Conv2d: vec![
                ("input", lim(FLOAT, 4, 4)),
                ("filter", lim(FLOAT, 4, 4)),
                ("bias", lim(FLOAT, 1, 1)),
                ("output", lim(FLOAT, 4, 4)),
            ];
        ConvTranspose2d "convTranspose2d" "convtranspose2d" conv_transpose2d by own
            (input, filter) [] ConvTranspose2dOptions one
            Conv2d: vec![
                ("input", lim(FLOAT, 4, 4)),
                ("filter", lim(FLOAT, 4, 4)),
                ("bias", lim(FLOAT, 1, 1)),
                ("output", lim(FLOAT, 4, 4)),
            ];
        CumulativeSum "cumulativeSum" "cumulativesum" cumulative_sum by own
            (input) [axis: u32 = "axis" "u32"] CumulativeSumOptions one
            SingleInput: single(FLOAT_AND_WIDE_INT, 1, N);
        Add "add" "binary" add by binary (a, b) [] OperatorOptions one
            Binary: binary(ANY, ANY);
        Sub "sub" "binary" sub by binary (a, b) [] OperatorOptions one
            Binary: binary(ANY, ANY);
        Mul "mul" "binary" mul by binary (a, b) [] OperatorOptions one
            Binary: binary(ANY, ANY);
        Div "div" "binary" div by binary (a, b) [] OperatorOptions one
            Binary: binary(ANY, ANY);
        Max "max" "binary" max by binary (a, b) [] OperatorOptions one
            Binary: binary(ANY, ANY);
        Min "min" "binary" min by binary (a, b) [] OperatorOptions one
            Binary: binary(ANY, ANY);
        Pow "pow" "binary" pow by binary (a, b) [] OperatorOptions one
            Binary: binary(ANY, ANY);
        Equal "equal" "logical" equal by binary (a, b) [] OperatorOptions one
            Binary: binary(ANY, UINT8);
        NotEqual "notEqual" "logical" not_equal by binary (a, b) [] OperatorOptions one
            Binary: binary(ANY, UINT8);
        Greater "greater" "logical" greater by binary (a, b) [] OperatorOptions one
            Binary: binary(ANY, UINT8);
        GreaterOrEqual "greaterOrEqual" "logical" greater_or_equal by binary (a, b) [] OperatorOptions one
            Binary: binary(ANY, UINT8);
        Lesser "lesser" "logical" lesser by binary (a, b) [] OperatorOptions one
            Binary: binary(ANY, UINT8);
        LesserOrEqual "lesserOrEqual" "logical" lesser_or_equal by binary (a, b) [] OperatorOptions one
            Binary: binary(ANY, UINT8);
        LogicalNot "logicalNot" "logical" logical_not by unary (a) [] OperatorOptions one
            LogicalNot: logical_not(UINT8, UINT8);
        LogicalAnd "logicalAnd" "logical" logical_and by binary (a, b) [] OperatorOptions one
            Binary: binary(UINT8, UINT8);
        LogicalOr "logicalOr" "logical" logical_or by binary (a, b) [] OperatorOptions one
            Binary: binary(UINT8, UINT8);
        LogicalXor "logicalXor" "logical" logical_xor by binary (a, b) [] OperatorOptions one
            Binary: binary(UINT8, UINT8);
        IsNaN "isNaN" "logical" is_nan by unary (a) [] OperatorOptions one
            LogicalNot: logical_not(FLOAT, UINT8);
        IsInfinite "isInfinite" "logical" is_infinite by unary (a) [] OperatorOptions one
            LogicalNot: logical_not(FLOAT, UINT8);
        Abs "abs" "unary" abs by unary (input) [] OperatorOptions one
            SingleInput: single(FLOAT_AND_SIGNED, 0, N);
        Ceil "ceil" "unary" ceil by unary (input) [] OperatorOptions one
            SingleInput: single(FLOAT, 0, N);
        Cos "cos" "unary" cos by unary (input) [] OperatorOptions one
            SingleInput: single(FLOAT, 0, N);
        Erf "erf" "unary" erf by unary (input) [] OperatorOptions one
            SingleInput: single(FLOAT, 0, N);
        Exp "exp" "unary" exp by unary (input) [] OperatorOptions one
            SingleInput: single(FLOAT, 0, N);
        Floor "floor" "unary" floor by unary (input) [] OperatorOptions one
            SingleInput: single(FLOAT, 0, N);
        Identity "identity" "unary" identity by unary (input) [] OperatorOptions one
            SingleInput: single(ANY, 0, N);
        Log "log" "unary" log by unary (input) [] OperatorOptions one
            SingleInput: single(FLOAT, 0, N);
        Neg "neg" "unary" neg by unary (input) [] OperatorOptions one
            SingleInput: single(FLOAT_AND_SIGNED, 0, N);
        Reciprocal "reciprocal" "unary" reciprocal by unary (input) [] OperatorOptions one
            SingleInput: single(FLOAT, 0, N);
        RoundEven "roundEven" "unary" round_even by unary (input) [] OperatorOptions one
            SingleInput: single(FLOAT, 0, N);
        Sin "sin" "unary" sin by unary (input) [] OperatorOptions one
            SingleInput: single(FLOAT, 0, N);
        Sign "sign" "unary" sign by unary (input) [] OperatorOptions one
            SingleInput: single(FLOAT_AND_SIGNED, 0, N);
        Sqrt "sqrt" "unary" sqrt by unary (input) [] OperatorOptions one
            SingleInput: single(FLOAT, 0, N);
        Tan "tan" "unary" tan by unary (input) [] OperatorOptions one
            SingleInput: single(FLOAT, 0, N);
        DequantizeLinear "dequantizeLinear" "dequantizelinear" dequantize_linear by quantize_dequantize
            (input, scale, zero_point) [] OperatorOptions one
            QuantizeDequantizeLinear: vec![
                ("input", lim(QUANTIZED, 0, N)),
                ("scale", lim(FLOAT, 0, N)),
                ("zeroPoint", lim(QUANTIZED, 0, N)),
                ("output", lim(FLOAT, 0, N)),
            ];
        QuantizeLinear "quantizeLinear" "quantizelinear" quantize_linear by quantize_dequantize
            (input, scale, zero_point) [] OperatorOptions one
            QuantizeDequantizeLinear: vec![
                ("input", lim(FLOAT, 0, N)),
                ("scale", lim(FLOAT, 0, N)),
                ("zeroPoint", lim(QUANTIZED, 0, N)),
                ("output", lim(QUANTIZED, 0, N)),
            ];
        Elu "elu" "elu" elu by own (input) [] EluOptions one
            SingleInput: single(FLOAT, 0, N);
        Expand "expand" "expand" expand by own (input) [new_shape: &[u32] = "newShape" "u32eSeq"] OperatorOptions one
            SingleInput: single(ANY, 0, N);
        Gather "gather" "gather" gather by own (input, indices) [] GatherOptions one
            Gather: vec![("input", lim(ANY, 1, N)), ("indices", lim(INDEX, 0, N)), ("output", lim(ANY, 0, N))];
        GatherElements "gatherElements" "gatherelements" gather_elements by own (input, indices) [] GatherOptions one
            Gather: vec![("input", lim(ANY, 1, N)), ("indices", lim(INDEX, 1, N)), ("output", lim(ANY, 1, N))];
        GatherNd "gatherND" "gathernd" gather_nd by own (input, indices) [] OperatorOptions one
            Gather: vec![("input", lim(ANY, 1, N)), ("indices", lim(INDEX, 1, N)), ("output", lim(ANY, 0, N))];
        Gelu "gelu" "gelu-method" gelu by activation (input) [] OperatorOptions one
            SingleInput: single(FLOAT, 0, N);
        Gemm "gemm" "gemm" gemm by own (a, b) [] GemmOptions one
            Gemm: vec![
                ("a", lim(FLOAT, 2, 2)),
                ("b", lim(FLOAT, 2, 2)),
                ("c", lim(FLOAT, 0, 2)),
                ("output", lim(FLOAT, 2, 2)),
            ];
        Gru "gru" "gru" gru by own
            (input, weight, recurrent_weight) [steps: u32 = "steps" "u32e", hidden_size: u32 = "hiddenSize" "u32e"] GruOptions many
            Gru: vec![
                ("input", lim(FLOAT, 3, 3)),
                ("weight", lim(FLOAT, 3, 3)),
                ("recurrentWeight", lim(FLOAT, 3, 3)),
                ("bias", lim(FLOAT, 2, 2)),
                ("recurrentBias", lim(FLOAT, 2, 2)),
                ("initialHiddenState", lim(FLOAT, 3, 3)),
                ("output0", lim(FLOAT, 3, 3)),
                ("output1", lim(FLOAT, 4, 4)),
            ];
        GruCell "gruCell" "grucell" gru_cell by own
            (input, weight, recurrent_weight, hidden_state) [hidden_size: u32 = "hiddenSize" "u32e"] GruCellOptions one
            GruCell: vec![
                ("input", lim(FLOAT, 2, 2)),
                ("weight", lim(FLOAT, 2, 2)),
                ("recurrentWeight", lim(FLOAT, 2, 2)),
                ("hiddenState", lim(FLOAT, 2, 2)),
                ("bias", lim(FLOAT, 1, 1)),
                ("recurrentBias", lim(FLOAT, 1, 1)),
                ("output", lim(FLOAT, 2, 2)),
            ];
        HardSigmoid "hardSigmoid" "hard-sigmoid" hard_sigmoid by own (input) [] HardSigmoidOptions one
            SingleInput: single(FLOAT, 0, N);
        HardSwish "hardSwish" "hard-swish" hard_swish by activation (input) [] OperatorOptions one
            SingleInput: single(FLOAT, 0, N);
        InstanceNormalization "instanceNormalization" "instancenorm" instance_normalization by own
            (input) [] InstanceNormalizationOptions one
            Normalization: vec![
                ("input", lim(FLOAT, 4, 4)),
                ("scale", lim(FLOAT, 1, 1)),
                ("bias", lim(FLOAT, 1, 1)),
                ("output", lim(FLOAT, 4, 4)),
            ];
        LayerNormalization "layerNormalization" "layernorm" layer_normalization by own
            (input) [] LayerNormalizationOptions one
            Normalization: vec![
                ("input", lim(FLOAT, 0, N)),
                ("scale", lim(FLOAT, 0, N)),
                ("bias", lim(FLOAT, 0, N)),
                ("output", lim(FLOAT, 0, N)),
            ];
        LeakyRelu "leakyRelu" "leakyrelu" leaky_relu by own (input) [] LeakyReluOptions one
            SingleInput: single(FLOAT, 0, N);
        Linear "linear" "linear" linear by own (input) [] LinearOptions one
            SingleInput: single(FLOAT, 0, N);
        Lstm "lstm" "lstm" lstm by own
            (input, weight, recurrent_weight) [steps: u32 = "steps" "u32e", hidden_size: u32 = "hiddenSize" "u32e"] LstmOptions many
            Lstm: vec![
                ("input", lim(FLOAT, 3, 3)),
                ("weight", lim(FLOAT, 3, 3)),
                ("recurrentWeight", lim(FLOAT, 3, 3)),
                ("bias", lim(FLOAT, 2, 2)),
                ("recurrentBias", lim(FLOAT, 2, 2)),
                ("peepholeWeight", lim(FLOAT, 2, 2)),
                ("initialHiddenState", lim(FLOAT, 3, 3)),
                ("initialCellState", lim(FLOAT, 3, 3)),
                ("output0", lim(FLOAT, 3, 3)),
                ("output1", lim(FLOAT, 3, 3)),
                ("output2", lim(FLOAT, 4, 4)),
            ];
        LstmCell "lstmCell" "lstmcell" lstm_cell by own
            (input, weight, recurrent_weight, hidden_state, cell_state) [hidden_size: u32 = "hiddenSize" "u32e"] LstmCellOptions many
            LstmCell: vec![
                ("input", lim(FLOAT, 2, 2)),
                ("weight", lim(FLOAT, 2, 2)),
                ("recurrentWeight", lim(FLOAT, 2, 2)),
                ("hiddenState", lim(FLOAT, 2, 2)),
                ("cellState", lim(FLOAT, 2, 2)),
                ("bias", lim(FLOAT, 1, 1)),
                ("recurrentBias", lim(FLOAT, 1, 1)),
                ("peepholeWeight", lim(FLOAT, 1, 1)),
                ("output0", lim(FLOAT, 2, 2)),
                ("output1", lim(FLOAT, 2, 2)),
            ];
        Matmul "matmul" "matmul" matmul by own (a, b) [] OperatorOptions one
            Binary: vec![("a", lim(FLOAT, 2, N)), ("b", lim(FLOAT, 2, N)), ("output", lim(FLOAT, 2, N))];
        Pad "pad" "pad" pad by own
            (input) [beginning_padding: &[u32] = "beginningPadding" "u32eSeq", ending_padding: &[u32] = "endingPadding" "u32eSeq"] PadOptions one
            SingleInput: single(ANY, 0, N);
        AveragePool2d "averagePool2d" "pool2d-average" average_pool2d by pool2d (input) [] Pool2dOptions one
            SingleInput: single(FLOAT, 4, 4);
        L2Pool2d "l2Pool2d" "pool2d-l2" l2_pool2d by pool2d (input) [] Pool2dOptions one
            SingleInput: single(FLOAT, 4, 4);
        MaxPool2d "maxPool2d" "pool2d-max" max_pool2d by pool2d (input) [] Pool2dOptions one
            SingleInput: single(ANY, 4, 4);
        Prelu "prelu" "prelu" prelu by own (input, slope) [] OperatorOptions one
            Prelu: vec![
                ("input", lim(FLOAT_AND_SIGNED, 0, N)),
                ("slope", lim(FLOAT_AND_SIGNED, 0, N)),
                ("output", lim(FLOAT_AND_SIGNED, 0, N)),
            ];
        ReduceL1 "reduceL1" "reduce" reduce_l1 by reduce (input) [] ReduceOptions one
            SingleInput: single(FLOAT_AND_WIDE_INT, 0, N);
        ReduceL2 "reduceL2" "reduce" reduce_l2 by reduce (input) [] ReduceOptions one
            SingleInput: single(FLOAT, 0, N);
        ReduceLogSum "reduceLogSum" "reduce" reduce_log_sum by reduce (input) [] ReduceOptions one
            SingleInput: single(FLOAT, 0, N);
        ReduceLogSumExp "reduceLogSumExp" "reduce" reduce_log_sum_exp by reduce (input) [] ReduceOptions one
            SingleInput: single(FLOAT, 0, N);
        ReduceMax "reduceMax" "reduce" reduce_max by reduce (input) [] ReduceOptions one
            SingleInput: single(ANY, 0, N);
        ReduceMean "reduceMean" "reduce" reduce_mean by reduce (input) [] ReduceOptions one
            SingleInput: single(FLOAT, 0, N);
        ReduceMin "reduceMin" "reduce" reduce_min by reduce (input) [] ReduceOptions one
            SingleInput: single(ANY, 0, N);
        ReduceProduct "reduceProduct" "reduce" reduce_product by reduce (input) [] ReduceOptions one
            SingleInput: single(FLOAT_AND_WIDE_INT, 0, N);
        ReduceSum "reduceSum" "reduce" reduce_sum by reduce (input) [] ReduceOptions one
            SingleInput: single(FLOAT_AND_WIDE_INT, 0, N);
        ReduceSumSquare "reduceSumSquare" "reduce" reduce_sum_square by reduce (input) [] ReduceOptions one
            SingleInput: single(FLOAT_AND_WIDE_INT, 0, N);
        Relu "relu" "relu-method" relu by activation (input) [] OperatorOptions one
            SingleInput: single(FLOAT_AND_SIGNED, 0, N);
        Resample2d "resample2d" "resample2d-method" resample2d by own (input) [] Resample2dOptions one
            SingleInput: single(RESAMPLE, 4, 4);
        Reshape "reshape" "reshape-method" reshape by own
            (input) [new_shape: &[u32] = "newShape" "u32eSeq"] OperatorOptions one
            SingleInput: single(ANY, 0, N);
        Reverse "reverse" "reverse-method" reverse by own (input) [] ReverseOptions one
            SingleInput: single(ANY, 0, N);
        ScatterElements "scatterElements" "scatterelements" scatter_elements by own
            (input, indices, updates) [] ScatterOptions one
            Scatter: vec![
                ("input", lim(ANY, 1, N)),
                ("indices", lim(INDEX, 1, N)),
                ("updates", lim(ANY, 1, N)),
                ("output", lim(ANY, 1, N)),
            ];
        ScatterNd "scatterND" "scatternd" scatter_nd by own (input, indices, updates) [] OperatorOptions one
            Scatter: vec![
                ("input", lim(ANY, 1, N)),
                ("indices", lim(INDEX, 1, N)),
                ("updates", lim(ANY, 0, N)),
                ("output", lim(ANY, 1, N)),
            ];
        Sigmoid "sigmoid" "sigmoid-method" sigmoid by activation (input) [] OperatorOptions one
            SingleInput: single(FLOAT, 0, N);
        Slice "slice" "slice" slice by own
            (input) [starts: &[u32] = "starts" "u32eSeq", sizes: &[u32] = "sizes" "u32eSeq"] SliceOptions one
            SingleInput: single(ANY, 0, N);
        Softmax "softmax" "softmax-method" softmax by own (input) [axis: u32 = "axis" "u32e"] OperatorOptions one
            SingleInput: single(FLOAT, 1, N);
        Softplus "softplus" "softplus-method" softplus by activation (input) [] OperatorOptions one
            SingleInput: single(FLOAT, 0, N);
        Softsign "softsign" "softsign-method" softsign by activation (input) [] OperatorOptions one
            SingleInput: single(FLOAT, 0, N);
        Split "split" "split" split by own (input) [splits: &Splits = "splits" "splits"] SplitOptions many
            Split: vec![("input", lim(ANY, 1, N)), ("outputs", lim(ANY, 1, N))];
        Tanh "tanh" "tanh-method" tanh by activation (input) [] OperatorOptions one
            SingleInput: single(FLOAT, 0, N);
        Tile "tile" "tile" tile by own (input) [repetitions: &[u32] = "repetitions" "u32Seq"] OperatorOptions one
            SingleInput: single(ANY, 0, N);
        Transpose "transpose" "transpose" transpose by own (input) [] TransposeOptions one
            SingleInput: single(ANY, 0, N);
        Triangular "triangular" "triangular" triangular by own (input) [] TriangularOptions one
            SingleInput: single(ANY, 2, N);
        Where "where" "where" where_ by own (condition, true_value, false_value) [] OperatorOptions one
            Where: vec![
                ("condition", lim(UINT8, 0, N)),
                ("trueValue", lim(ANY, 0, N)),
                ("falseValue", lim(ANY, 0, N)),
                ("output", lim(ANY, 0, N)),
            ];
        }
    };
}

macro_rules! define_op_kind {
    ($($variant:ident $idl:literal $anchor:literal $method:ident by $via:ident $operands:tt
        [$($arg:ident: $argty:ty = $argidl:literal $argkind:literal),*] $options:ident $ret:ident
        $limits_kind:ident: $limits:expr;)+) => {
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
                match self { $(OpKind::$variant => LimitsKind::$limits_kind),+ }
            }

            /// Looks an op up by its IDL name.
            pub fn from_idl_name(name: &str) -> Option<OpKind> {
                match name { $($idl => Some(OpKind::$variant),)+ _ => None }
            }

            /// The shared builder method of the op's family (`"activation"`, `"binary"`,
            /// `"unary"`, `"reduce"`, `"pool2d"`, `"arg_min_max"`, `"quantize_dequantize"`), if
            /// its row names one.
            pub fn builder_family(self) -> Option<&'static str> {
                match self {
                    $(OpKind::$variant => Some(stringify!($via)).filter(|family| *family != "own"),)+
                }
            }

            /// The anchor of the op's section of the spec (`"conv2d"`, `"unary"`, `"reduce"`,
            /// ...): ops specified together share it, so it also names their group.
            pub fn spec_anchor(self) -> &'static str {
                match self { $(OpKind::$variant => $anchor),+ }
            }

            /// The op's section of the spec:
            /// `https://www.w3.org/TR/webnn/#api-mlgraphbuilder-<anchor>`.
            pub fn spec_url(self) -> String {
                format!("https://www.w3.org/TR/webnn/#api-mlgraphbuilder-{}", self.spec_anchor())
            }
        }
    };
}

crate::for_each_op!(define_op_kind);

impl OpKind {
    /// The ops specified in one section of the spec (`"unary"`, `"reduce"`, ...; see
    /// [`OpKind::spec_anchor`]), in table order.
    pub fn in_spec_section(anchor: &str) -> impl Iterator<Item = OpKind> + '_ {
        OpKind::ALL.iter().copied().filter(move |op| op.spec_anchor() == anchor)
    }
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
