//! Every WPT WebNN conformance vector file (../shared/wpt, README §4–§6) through the public
//! builder on a CPU context, one test per file, at each case's exact tolerance: the same case
//! reader and comparison as the `webnn-conformance` binary ([`webnn_conformance::run_file`]).

use std::path::PathBuf;
use webnn_conformance::case::Outcome;

fn run(file: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/wpt").join(format!("{file}.json"));
    let options = webnn::ContextOptions { device: webnn::DeviceChoice::Cpu, ..Default::default() };
    let context = webnn::ml().create_context(&options).expect("a CPU context");
    let results = webnn_conformance::run_file(&context, &path, |_| true);
    let failures: Vec<String> = results
        .iter()
        .filter_map(|r| match &r.outcome {
            Outcome::Fail(msg) => Some(format!("{}: {msg}", r.name)),
            _ => None,
        })
        .collect();
    assert!(failures.is_empty(), "{file}.json: {} failed:\n{}", failures.len(), failures.join("\n"));
    assert!(!results.is_empty(), "{file}.json: no cases");
}

macro_rules! wpt_files {
    ($($test:ident => $file:literal,)*) => {$(
        #[test]
        fn $test() {
            run($file);
        }
    )*};
}

wpt_files! {
    abs => "abs",
    add => "add",
    arg_min_max => "arg_min_max",
    batch_normalization => "batch_normalization",
    cast => "cast",
    ceil => "ceil",
    clamp => "clamp",
    concat => "concat",
    constant_reshape_optimization => "constant-reshape-optimization",
    conv2d => "conv2d",
    conv_transpose2d => "conv_transpose2d",
    cos => "cos",
    cumulative_sum => "cumulative_sum",
    dequantize_linear => "dequantizeLinear",
    div => "div",
    elu => "elu",
    equal => "equal",
    erf => "erf",
    exp => "exp",
    expand => "expand",
    floor => "floor",
    gather => "gather",
    gather_elements => "gatherElements",
    gather_nd => "gatherND",
    gelu => "gelu",
    gemm => "gemm",
    greater => "greater",
    greater_or_equal => "greater_or_equal",
    gru => "gru",
    gru_cell => "gru_cell",
    hard_sigmoid => "hard_sigmoid",
    hard_swish => "hard_swish",
    identity => "identity",
    instance_normalization => "instance_normalization",
    layer_normalization => "layer_normalization",
    leaky_relu => "leaky_relu",
    lesser => "lesser",
    lesser_or_equal => "lesser_or_equal",
    linear => "linear",
    log => "log",
    logical_and => "logical_and",
    logical_not => "logical_not",
    logical_or => "logical_or",
    logical_xor => "logical_xor",
    lstm => "lstm",
    lstm_cell => "lstm_cell",
    matmul => "matmul",
    max => "max",
    min => "min",
    mul => "mul",
    neg => "neg",
    not_equal => "not_equal",
    pad => "pad",
    pooling => "pooling",
    pow => "pow",
    prelu => "prelu",
    quantize_linear => "quantizeLinear",
    reciprocal => "reciprocal",
    reduce_l1 => "reduce_l1",
    reduce_l2 => "reduce_l2",
    reduce_log_sum => "reduce_log_sum",
    reduce_log_sum_exp => "reduce_log_sum_exp",
    reduce_max => "reduce_max",
    reduce_mean => "reduce_mean",
    reduce_min => "reduce_min",
    reduce_product => "reduce_product",
    reduce_sum => "reduce_sum",
    reduce_sum_square => "reduce_sum_square",
    relu => "relu",
    resample2d => "resample2d",
    reshape => "reshape",
    reverse => "reverse",
    scatter_elements => "scatterElements",
    scatter_nd => "scatterND",
    sigmoid => "sigmoid",
    sign => "sign",
    sin => "sin",
    slice => "slice",
    softmax => "softmax",
    softplus => "softplus",
    softsign => "softsign",
    split => "split",
    sqrt => "sqrt",
    sub => "sub",
    subgraph => "subgraph",
    tan => "tan",
    tanh => "tanh",
    tile => "tile",
    transpose => "transpose",
    triangular => "triangular",
    where_ => "where",
}
