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
//! `readTensor` settles from the timeline through the environment's `hub`, which never calls
//! into an environment that has been torn down (a worker that exited with reads pending).
//!
//! Builders, graphs and tensors report the native memory they hold to V8 (`memory`).

mod hub;
mod memory;
mod ops;
mod settle;

use hub::{Hub, NodeContext};
use memory::Tracked;
use napi::bindgen_prelude::*;
use napi::{Env, JsFunction};
use napi_derive::napi;
use std::sync::Arc;
use webnn::{
    ContextOptions, DataType, Graph, GraphBuilder, MLNumber, Operand, OperandDescriptor, PendingBuild, PowerPreference,
    Tensor, TensorDescriptor,
};

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

/// The handle of an `MLContext`.
type ContextHandle = External<Arc<NodeContext>>;
/// The handle of an `MLTensor`, with its bytes reported to V8.
type TensorHandle = External<Tracked<Tensor>>;
/// The handle of an `MLGraph`, with its memory reported to V8.
type GraphHandle = External<Tracked<Graph>>;
/// The handle of an `MLGraphBuilder`, with its constants reported to V8.
type BuilderHandle = External<Tracked<GraphBuilder>>;

// ---------------------------------------------------------------------------------------------
// The op signatures

/// The signatures of the `MLGraphBuilder` operations, their options dictionaries and enums, as
/// JSON text (`webnn_core::signatures::op_signatures`): `lib/types.js` builds the op methods'
/// WebIDL converters from it at load time.
#[napi]
pub fn op_signatures() -> String {
    webnn::op_signatures().to_string()
}

// ---------------------------------------------------------------------------------------------
// The environment

/// Called once per environment (main thread or worker) by the JS layer: the hub through which
/// the contexts created with it settle reads and `lost`. `dispatcher(batch)` receives the
/// settlements (see `hub.rs`).
#[napi]
pub fn setup(env: Env, dispatcher: JsFunction) -> Result<External<Arc<Hub>>> {
    hub::setup(env, dispatcher).map(External::new)
}

// ---------------------------------------------------------------------------------------------
// ML / MLContext

/// `ml.createContext(options)`: `powerPreference` and `accelerated` already converted.
#[napi]
pub fn create_context(hub: External<Arc<Hub>>, power_preference: String, accelerated: bool) -> Result<ContextHandle> {
    let power_preference: PowerPreference = power_preference.parse().map_err(js_error)?;
    let options = ContextOptions { power_preference, accelerated, ..Default::default() };
    let context = webnn::ml().create_context(&options).map_err(js_error)?;
    Ok(External::new(hub.adopt(context)))
}

/// `MLContext.accelerated`
#[napi]
pub fn context_accelerated(context: ContextHandle) -> bool {
    context.accelerated()
}

/// `MLContext.destroy()`
#[napi]
pub fn context_destroy(context: ContextHandle) {
    context.destroy();
}

/// The message of a lost context's `MLContextLostInfo`, or `None` while it is not lost. (The JS
/// layer settles `lost` with it right after `destroy()`: the threadsafe callback of
/// [`context_on_lost`] does not keep the event loop alive, so it could come too late.)
#[napi]
pub fn context_lost_message(context: ContextHandle) -> Option<String> {
    if !context.is_lost() {
        return None;
    }
    context.lost().try_take().ok().map(|info| info.message)
}

/// `MLContext.opSupportLimits()` as JSON text (the JS layer parses it into a fresh dictionary).
#[napi]
pub fn context_op_support_limits(context: ContextHandle) -> String {
    context.op_support_limits().to_json().to_string()
}

/// `MLContext.lost`: the dispatcher gets `(id, null, message)` once the context is lost. This
/// does not keep the process alive (a context that is never lost must not hold the event loop
/// open).
#[napi]
pub fn context_on_lost(context: ContextHandle, id: f64) {
    context.hub().settle_lost(id, &context);
}

/// `MLContext.createTensor(descriptor)` (the promise is made by the JS layer).
#[napi]
pub fn context_create_tensor(
    env: Env,
    context: ContextHandle,
    data_type: String,
    shape: Vec<u32>,
    readable: bool,
    writable: bool,
) -> Result<TensorHandle> {
    let descriptor = TensorDescriptor::new(self::data_type(&data_type)?, shape).readable(readable).writable(writable);
    let tensor = context.create_tensor(&descriptor).map_err(js_error)?;
    let size = tensor.byte_length();
    Ok(External::new(Tracked::new(env, tensor, size)))
}

/// `MLContext.createConstantTensor(descriptor, inputData)`. `view_error` is set when the buffer
/// is a view of another element type than the descriptor's (checked by the JS layer).
#[napi]
pub fn context_create_constant_tensor(
    env: Env,
    context: ContextHandle,
    data_type: String,
    shape: Vec<u32>,
    bytes: &[u8],
    view_error: Option<String>,
) -> Result<TensorHandle> {
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
    Ok(External::new(Tracked::new(env, tensor, size)))
}

/// `MLContext.writeTensor(tensor, inputData)`
#[napi]
pub fn context_write_tensor(context: ContextHandle, tensor: TensorHandle, bytes: &[u8]) -> Result<()> {
    context.write_tensor(&tensor, bytes).map_err(js_error)
}

/// `MLContext.readTensor(tensor)`: the checks run now (a failure throws); the dispatcher later
/// gets `(id, null, ArrayBuffer)` or `(id, error, undefined)`, settled from the context's
/// timeline once every earlier dispatch and write is done. The JS layer makes the promise; the
/// read counts as settled only when the dispatcher runs (so a `destroy()` earlier in the same
/// JavaScript turn rejects it, as the spec says).
#[napi]
pub fn context_read_tensor(env: Env, context: ContextHandle, tensor: TensorHandle, id: f64) -> Result<()> {
    let read = match context.read_tensor(&tensor).try_take() {
        // Settled at once: a failed check (or, rarely, a timeline that was already done).
        Ok(Err(e)) => return Err(js_error(e)),
        Ok(Ok(bytes)) => webnn::Promise::ready(Ok(bytes)),
        Err(pending) => pending,
    };
    let hub = context.hub();
    hub.start_read(&env);
    hub.settle_read(id, read);
    Ok(())
}

/// `MLContext.dispatch(graph, inputs, outputs)`, the records flattened to parallel lists.
#[napi]
pub fn context_dispatch(
    context: ContextHandle,
    graph: GraphHandle,
    input_names: Vec<String>,
    input_tensors: Vec<TensorHandle>,
    output_names: Vec<String>,
    output_tensors: Vec<TensorHandle>,
) -> Result<()> {
    if input_names.len() != input_tensors.len() || output_names.len() != output_tensors.len() {
        return Err(internal("dispatch: names and tensors differ in length"));
    }
    let inputs: Vec<(&str, &Tensor)> =
        input_names.iter().map(String::as_str).zip(input_tensors.iter().map(|t| &***t)).collect();
    let outputs: Vec<(&str, &Tensor)> =
        output_names.iter().map(String::as_str).zip(output_tensors.iter().map(|t| &***t)).collect();
    context.dispatch(&graph, &inputs, &outputs).map_err(js_error)
}

// ---------------------------------------------------------------------------------------------
// MLTensor / MLGraph

/// `MLTensor.destroy()`: the bytes are freed, so no longer reported.
#[napi]
pub fn tensor_destroy(tensor: TensorHandle) {
    tensor.destroy();
    tensor.report(0);
}

/// `[[isDestroyed]]` of a tensor (destroyed by `destroy()` or by the loss of its context).
#[napi]
pub fn tensor_is_destroyed(tensor: TensorHandle) -> bool {
    tensor.is_destroyed()
}

/// `MLGraph.destroy()`: its memory is freed (once queued dispatches are done), so no longer
/// reported.
#[napi]
pub fn graph_destroy(graph: GraphHandle) {
    graph.destroy();
    graph.report(0);
}

// ---------------------------------------------------------------------------------------------
// MLGraphBuilder

/// `new MLGraphBuilder(context)`
#[napi]
pub fn builder_new(env: Env, context: ContextHandle) -> Result<BuilderHandle> {
    let builder = GraphBuilder::new(&context).map_err(js_error)?;
    Ok(External::new(Tracked::new(env, builder, 0)))
}

/// Reports the bytes of the builder's constants after a `constant()` call.
fn report_constants(builder: &Tracked<GraphBuilder>) {
    builder.report(builder.constant_byte_length());
}

/// `input(name, descriptor)`
#[napi]
pub fn builder_input(
    mut builder: BuilderHandle,
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
    mut builder: BuilderHandle,
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
    let operand = builder.constant(&descriptor, bytes).map_err(js_error)?;
    report_constants(&builder);
    Ok(External::new(operand))
}

/// `constant(dataType, value)`
#[napi]
pub fn builder_constant_scalar(
    mut builder: BuilderHandle,
    data_type: String,
    value: Either<f64, String>,
) -> Result<External<Operand>> {
    let data_type = self::data_type(&data_type)?;
    let operand = builder.constant_scalar(data_type, ml_number(value)?).map_err(js_error)?;
    report_constants(&builder);
    Ok(External::new(operand))
}

/// `constant(tensor)`
#[napi]
pub fn builder_constant_tensor(mut builder: BuilderHandle, tensor: TensorHandle) -> Result<External<Operand>> {
    let operand = builder.constant_tensor(&tensor).map_err(js_error)?;
    report_constants(&builder);
    Ok(External::new(operand))
}

/// Any operation method of `MLGraphBuilder` (see `ops::call`).
#[napi]
pub fn builder_op(
    mut builder: BuilderHandle,
    op: String,
    operands: Vec<Option<External<Operand>>>,
    params: std::collections::HashMap<String, napi::JsUnknown>,
) -> Result<Vec<External<Operand>>> {
    let operands: Vec<Option<&Operand>> = operands.iter().map(|o| o.as_ref().map(|o| &**o)).collect();
    let outputs = ops::call(&mut builder, &op, &operands, params)?;
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
    type JsValue = GraphHandle;

    fn compute(&mut self) -> Result<Graph> {
        let pending = self.0.take().ok_or_else(|| internal("build: compiled twice"))?;
        pending.compile().map_err(js_error)
    }

    fn resolve(&mut self, env: Env, graph: Graph) -> Result<GraphHandle> {
        let bytes = graph.memory_bytes();
        Ok(External::new(Tracked::new(env, graph, bytes)))
    }
}

/// `build(outputs)`: validates synchronously (the builder is built from here on), then
/// compiles off the event loop; the returned promise settles with the graph handle.
#[napi]
pub fn builder_build(
    mut builder: BuilderHandle,
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
