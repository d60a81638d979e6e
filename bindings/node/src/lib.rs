//! `webnn-node`: the native half of the Node.js binding (napi-rs).
//!
//! This layer is deliberately thin: it takes arguments that the JavaScript layer
//! (`bindings/node/lib/*.js`) has already converted by the WebIDL rules, calls the `webnn`
//! crate, and hands back opaque handles (`External`s). Errors become JS `Error`s whose message
//! is `"<ErrorKind name>: <message>"` (e.g. `"InvalidStateError: build: ..."`); the JS layer
//! turns them into `TypeError` / `DOMException` objects.
//!
//! Nothing here blocks the event loop on the engine: `build` compiles on a libuv worker
//! (an `AsyncTask`), `dispatch` / `writeTensor` only queue work on the context's timeline, and
//! `readTensor` resolves its JS promise from the timeline through a threadsafe function.

mod ops;
mod settle;

use napi::bindgen_prelude::*;
use napi::threadsafe_function::{ErrorStrategy, ThreadSafeCallContext, ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, JsFunction, JsObject};
use napi_derive::napi;
use webnn::{
    Context, ContextOptions, DataType, Graph, GraphBuilder, MLNumber, Operand, OperandDescriptor, PendingBuild,
    PowerPreference, Tensor, TensorDescriptor,
};

pub use ops::OpParams;

/// A `webnn::Error` as a JS error the JS layer recognizes: `"<kind name>: <message>"`.
pub(crate) fn js_error(e: webnn::Error) -> napi::Error {
    napi::Error::from_reason(e.to_string())
}

/// A malformed call from the JS layer (a bug there, never a spec error).
pub(crate) fn internal(msg: impl std::fmt::Display) -> napi::Error {
    napi::Error::from_reason(format!("Error: webnn-node internal: {msg}"))
}

pub(crate) fn data_type(s: &str) -> Result<DataType> {
    s.parse().map_err(js_error)
}

/// An `MLNumber` as sent by the JS layer: a number, or a bigint as a decimal string (already
/// clamped to the i128 range).
pub(crate) fn ml_number(v: Either<f64, String>) -> Result<MLNumber> {
    match v {
        Either::A(x) => Ok(MLNumber::Double(x)),
        Either::B(s) => s.parse::<i128>().map(MLNumber::BigInt).map_err(|_| internal(format!("bad bigint {s}"))),
    }
}

// ---------------------------------------------------------------------------------------------
// ML / MLContext

/// `ml.createContext(options)`: `powerPreference` and `accelerated` already converted.
#[napi]
pub fn create_context(power_preference: String, accelerated: bool) -> Result<External<Context>> {
    let power_preference: PowerPreference = power_preference.parse().map_err(js_error)?;
    let options = ContextOptions { power_preference, accelerated, threads: None };
    webnn::ml().create_context(&options).map(External::new).map_err(js_error)
}

/// `MLContext.accelerated`
#[napi]
pub fn context_accelerated(context: External<Context>) -> bool {
    context.accelerated()
}

/// `MLContext.destroy()`
#[napi]
pub fn context_destroy(context: External<Context>) {
    context.destroy();
}

/// The message of a lost context's `MLContextLostInfo`, or `None` while it is not lost. (The JS
/// layer settles `lost` with it right after `destroy()`: the threadsafe callback of
/// [`context_on_lost`] does not keep the event loop alive, so it could come too late.)
#[napi]
pub fn context_lost_message(context: External<Context>) -> Option<String> {
    if !context.is_lost() {
        return None;
    }
    context.lost().try_take().ok().map(|info| info.message)
}

/// `MLContext.opSupportLimits()` as JSON text (the JS layer parses it into a fresh dictionary).
#[napi]
pub fn context_op_support_limits(context: External<Context>) -> String {
    context.op_support_limits().to_json().to_string()
}

/// `MLContext.lost`: calls `callback(message)` once the context is lost. The callback does not
/// keep the process alive (a context that is never lost must not hold the event loop open).
#[napi]
pub fn context_on_lost(env: Env, context: External<Context>, callback: JsFunction) -> Result<()> {
    let mut tsfn: ThreadsafeFunction<String, ErrorStrategy::Fatal> =
        callback.create_threadsafe_function(0, |cx: ThreadSafeCallContext<String>| Ok(vec![cx.value]))?;
    tsfn.unref(&env)?;
    settle::on_settled(context.lost(), move |info| {
        tsfn.call(info.message, ThreadsafeFunctionCallMode::NonBlocking);
    });
    Ok(())
}

/// `MLContext.createTensor(descriptor)` (the promise is made by the JS layer).
#[napi]
pub fn context_create_tensor(
    context: External<Context>,
    data_type: String,
    shape: Vec<u32>,
    readable: bool,
    writable: bool,
) -> Result<External<Tensor>> {
    let descriptor = TensorDescriptor::new(self::data_type(&data_type)?, shape).readable(readable).writable(writable);
    let tensor = context.create_tensor(&descriptor).map_err(js_error)?;
    let size = tensor.byte_length();
    Ok(External::new_with_size_hint(tensor, size))
}

/// `MLContext.createConstantTensor(descriptor, inputData)`. `view_error` is set when the buffer
/// is a view of another element type than the descriptor's (checked by the JS layer).
#[napi]
pub fn context_create_constant_tensor(
    context: External<Context>,
    data_type: String,
    shape: Vec<u32>,
    bytes: &[u8],
    view_error: Option<String>,
) -> Result<External<Tensor>> {
    let descriptor = OperandDescriptor::new(self::data_type(&data_type)?, shape);
    if let Some(e) = view_error {
        // Spec order: lost (InvalidStateError) before the buffer checks (TypeError).
        if context.is_lost() {
            return Err(js_error(webnn::Error::invalid_state("createConstantTensor: the context is lost")));
        }
        return Err(js_error(webnn::Error::type_error(format!("createConstantTensor: {e}"))));
    }
    let tensor = context.create_constant_tensor(&descriptor, bytes).map_err(js_error)?;
    let size = tensor.byte_length();
    Ok(External::new_with_size_hint(tensor, size))
}

/// `MLContext.writeTensor(tensor, inputData)`
#[napi]
pub fn context_write_tensor(context: External<Context>, tensor: External<Tensor>, bytes: &[u8]) -> Result<()> {
    context.write_tensor(&tensor, bytes).map_err(js_error)
}

/// `MLContext.readTensor(tensor)`: a promise of an `ArrayBuffer`, resolved from the context's
/// timeline once every earlier dispatch and write is done.
#[napi]
pub fn context_read_tensor(env: Env, context: External<Context>, tensor: External<Tensor>) -> Result<JsObject> {
    let (deferred, promise) = env.create_deferred()?;
    settle::on_settled(context.read_tensor(&tensor), move |result| match result {
        Ok(bytes) => deferred.resolve(move |env: Env| env.create_arraybuffer_with_data(bytes).map(|b| b.into_raw())),
        Err(e) => deferred.reject(js_error(e)),
    });
    Ok(promise)
}

/// `MLContext.dispatch(graph, inputs, outputs)`, the records flattened to parallel lists.
#[napi]
pub fn context_dispatch(
    context: External<Context>,
    graph: External<Graph>,
    input_names: Vec<String>,
    input_tensors: Vec<External<Tensor>>,
    output_names: Vec<String>,
    output_tensors: Vec<External<Tensor>>,
) -> Result<()> {
    if input_names.len() != input_tensors.len() || output_names.len() != output_tensors.len() {
        return Err(internal("dispatch: names and tensors differ in length"));
    }
    let inputs: Vec<(&str, &Tensor)> =
        input_names.iter().map(String::as_str).zip(input_tensors.iter().map(|t| &**t)).collect();
    let outputs: Vec<(&str, &Tensor)> =
        output_names.iter().map(String::as_str).zip(output_tensors.iter().map(|t| &**t)).collect();
    context.dispatch(&graph, &inputs, &outputs).map_err(js_error)
}

// ---------------------------------------------------------------------------------------------
// MLTensor / MLGraph

/// `MLTensor.destroy()`
#[napi]
pub fn tensor_destroy(tensor: External<Tensor>) {
    tensor.destroy();
}

/// `[[isDestroyed]]` of a tensor (destroyed by `destroy()` or by the loss of its context).
#[napi]
pub fn tensor_is_destroyed(tensor: External<Tensor>) -> bool {
    tensor.is_destroyed()
}

/// `MLGraph.destroy()`
#[napi]
pub fn graph_destroy(graph: External<Graph>) {
    graph.destroy();
}

// ---------------------------------------------------------------------------------------------
// MLGraphBuilder

/// `new MLGraphBuilder(context)`
#[napi]
pub fn builder_new(context: External<Context>) -> Result<External<GraphBuilder>> {
    GraphBuilder::new(&context).map(External::new).map_err(js_error)
}

/// `input(name, descriptor)`
#[napi]
pub fn builder_input(
    mut builder: External<GraphBuilder>,
    name: String,
    data_type: String,
    shape: Vec<u32>,
) -> Result<External<Operand>> {
    let descriptor = OperandDescriptor::new(self::data_type(&data_type)?, shape);
    builder.input(&name, &descriptor).map(External::new).map_err(js_error)
}

/// `constant(descriptor, buffer)`. `view_error` is set when the buffer is a view of another
/// element type than the descriptor's (the JS layer checks the view type).
#[napi]
pub fn builder_constant(
    mut builder: External<GraphBuilder>,
    data_type: String,
    shape: Vec<u32>,
    bytes: &[u8],
    view_error: Option<String>,
) -> Result<External<Operand>> {
    let descriptor = OperandDescriptor::new(self::data_type(&data_type)?, shape);
    if let Some(e) = view_error {
        // Spec order: can-build (InvalidStateError) before the buffer checks (TypeError).
        if !builder.can_build() {
            let why = if builder.context().is_lost() {
                "the context is lost"
            } else {
                "this MLGraphBuilder has already built a graph"
            };
            return Err(js_error(webnn::Error::invalid_state(format!("constant: {why}"))));
        }
        return Err(js_error(webnn::Error::type_error(format!("constant: {e}"))));
    }
    builder.constant(&descriptor, bytes).map(External::new).map_err(js_error)
}

/// `constant(dataType, value)`
#[napi]
pub fn builder_constant_scalar(
    mut builder: External<GraphBuilder>,
    data_type: String,
    value: Either<f64, String>,
) -> Result<External<Operand>> {
    let data_type = self::data_type(&data_type)?;
    builder.constant_scalar(data_type, ml_number(value)?).map(External::new).map_err(js_error)
}

/// `constant(tensor)`
#[napi]
pub fn builder_constant_tensor(
    mut builder: External<GraphBuilder>,
    tensor: External<Tensor>,
) -> Result<External<Operand>> {
    builder.constant_tensor(&tensor).map(External::new).map_err(js_error)
}

/// Any operation method of `MLGraphBuilder` (see [`ops::call`]).
#[napi]
pub fn builder_op(
    mut builder: External<GraphBuilder>,
    op: String,
    operands: Vec<Option<External<Operand>>>,
    params: OpParams,
) -> Result<Vec<External<Operand>>> {
    let operands: Vec<Option<&Operand>> = operands.iter().map(|o| o.as_ref().map(|o| &**o)).collect();
    let outputs = ops::call(&mut builder, &op, &operands, &params)?;
    Ok(outputs.into_iter().map(External::new).collect())
}

/// `MLOperand.dataType`
#[napi]
pub fn operand_data_type(operand: External<Operand>) -> String {
    operand.data_type().as_str().to_string()
}

/// `MLOperand.shape`
#[napi]
pub fn operand_shape(operand: External<Operand>) -> Vec<u32> {
    operand.shape().to_vec()
}

/// The compile half of `build()`, run on a libuv worker thread.
pub struct Compile(Option<PendingBuild>);

impl Task for Compile {
    type Output = Graph;
    type JsValue = External<Graph>;

    fn compute(&mut self) -> Result<Graph> {
        let pending = self.0.take().ok_or_else(|| internal("build: compiled twice"))?;
        pending.compile().map_err(js_error)
    }

    fn resolve(&mut self, _env: Env, graph: Graph) -> Result<External<Graph>> {
        Ok(External::new(graph))
    }
}

/// `build(outputs)`: validates synchronously (the builder is built from here on), then
/// compiles off the event loop; the returned promise settles with the graph handle.
#[napi]
pub fn builder_build(
    mut builder: External<GraphBuilder>,
    names: Vec<String>,
    operands: Vec<External<Operand>>,
) -> Result<AsyncTask<Compile>> {
    if names.len() != operands.len() {
        return Err(internal("build: names and operands differ in length"));
    }
    let outputs: Vec<(&str, &Operand)> = names.iter().map(String::as_str).zip(operands.iter().map(|o| &**o)).collect();
    let pending = builder.start_build(&outputs).map_err(js_error)?;
    Ok(AsyncTask::new(Compile(Some(pending))))
}
