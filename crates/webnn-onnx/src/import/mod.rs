//! The importer: walks the ONNX graph in topological order and turns each node into
//! `GraphBuilder` calls, folding what is known at import time.
//!
//! Every ONNX value is a [`Value`]: a [`Const`] (initializers, `Constant`, and everything
//! computed only from them and from static shapes — `Shape` of any operand is constant since
//! all shapes are static) or a dynamic WebNN [`Operand`]. Ops whose parameters must be static
//! in WebNN (Reshape's shape, Slice's starts, Pad's pads, Resize's sizes...) require those
//! inputs to be `Const`s. A node that fails is recorded and its outputs are poisoned, so one
//! import reports every failing node.

mod attrs;
mod constant;
mod conv;
mod elementwise;
mod fold;
mod nn;
mod order;
mod quant;
mod reduce;
mod resize;
mod rnn;
mod shape_ops;
mod support;

pub use support::supported_operators;

pub(crate) use attrs::Attrs;
pub(crate) use constant::{Const, ConstData};

use crate::error::{NodeError, NodeErrorKind, OnnxError, Result};
use crate::model::{input_info, OnnxModel};
use crate::proto::{FunctionProto, NodeProto, TensorProto};
use crate::shape::resolve_input_shape;
use crate::tensor::{decode_tensor, ElemType, TensorData};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use webnn_core::{DataType, GraphBuilder, MLNumber, Operand, OperandDescriptor, OperandId, OperatorOptions};

/// Oldest and newest default-domain opset versions accepted. For the operators mapped here,
/// versions 22–28 only added data types (bfloat16, float8, int4...) or attributes that apply
/// to those types (Cast `round_mode`, Range `stash_type`...), plus SpaceToDepth's `mode`, so
/// they import like 21.
pub const MIN_OPSET: i64 = 7;
/// See [`MIN_OPSET`].
pub const MAX_OPSET: i64 = 28;

/// Options of [`import`].
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// Static shapes: a graph input's name → its whole shape, or a symbolic dimension's name
    /// (`dim_param`) → its one value. Parse `NAME=1x128` strings with
    /// [`crate::parse_shape_override`].
    pub shape_overrides: HashMap<String, Vec<u32>>,
    /// The size given to an unbound leading dimension (symbolic or unknown) of an input of
    /// rank ≥ 2 — the batch dimension by convention. Default 1. Any other unbound dimension
    /// is an error asking for an override.
    pub default_batch_size: u32,
    /// Largest element count of a tensor computed at import time by constant folding
    /// (default 2^22). Larger computations on constants are built as WebNN ops instead, and
    /// once folding has made `256 × fold_limit` bytes of new constants (1 GiB by default),
    /// every further foldable op is built as WebNN ops too.
    pub fold_limit: usize,
    /// Graph inputs replaced by constant values (the type must match the declared one): a
    /// model that takes shapes, axes or pads as inputs gets static parameters this way. These
    /// inputs do not appear in [`ImportedGraph::inputs`].
    pub constant_inputs: HashMap<String, TensorData>,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            shape_overrides: HashMap::new(),
            default_batch_size: 1,
            fold_limit: 1 << 22,
            constant_inputs: HashMap::new(),
        }
    }
}

/// A graph input created by the import.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedInput {
    /// The input's name (as in the ONNX graph and the built graph).
    pub name: String,
    /// Its WebNN descriptor (ONNX bool inputs are uint8 holding 0 or 1).
    pub descriptor: OperandDescriptor,
    /// Its ONNX element type.
    pub elem_type: ElemType,
}

/// A graph output of the import.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedOutput {
    /// The output's name in the ONNX graph.
    pub name: String,
    /// The operand computing it (never a graph input or constant, so it can be passed to
    /// `build()` directly).
    pub operand: Operand,
    /// Its ONNX element type (bool outputs are uint8 holding 0 or 1).
    pub elem_type: ElemType,
}

/// What [`import`] built: the graph's inputs and outputs in ONNX order.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedGraph {
    /// The graph inputs (initializers excluded), in ONNX order.
    pub inputs: Vec<ImportedInput>,
    /// The graph outputs, in ONNX order.
    pub outputs: Vec<ImportedOutput>,
    /// The default-domain opset version of the model.
    pub opset: i64,
}

impl ImportedGraph {
    /// `(name, operand)` pairs of the outputs, ready for `GraphBuilder::build`.
    pub fn named_outputs(&self) -> Vec<(&str, &Operand)> {
        self.outputs.iter().map(|o| (o.name.as_str(), &o.operand)).collect()
    }
}

/// Bytes of folded constants allowed per element of [`ImportOptions::fold_limit`].
pub(crate) const FOLD_BUDGET_PER_ELEMENT: usize = 256;

/// A dynamic value: a WebNN operand and the ONNX type it holds.
#[derive(Debug, Clone)]
pub(crate) struct Dyn {
    pub op: Operand,
    pub ty: ElemType,
}

/// An ONNX value during import.
#[derive(Debug, Clone)]
pub(crate) enum Value {
    Const(Rc<Const>),
    Dyn(Dyn),
    /// Produced by a node that failed to import.
    Poison,
}

impl Value {
    pub fn constant(c: Const) -> Value {
        Value::Const(Rc::new(c))
    }
    pub fn dynamic(op: Operand, ty: ElemType) -> Value {
        Value::Dyn(Dyn { op, ty })
    }
    pub fn ty(&self) -> ElemType {
        match self {
            Value::Const(c) => c.ty,
            Value::Dyn(d) => d.ty,
            Value::Poison => ElemType::F32,
        }
    }
    pub fn shape(&self) -> Vec<usize> {
        match self {
            Value::Const(c) => c.shape.clone(),
            Value::Dyn(d) => d.op.shape().iter().map(|&x| x as usize).collect(),
            Value::Poison => Vec::new(),
        }
    }
    pub fn rank(&self) -> usize {
        match self {
            Value::Const(c) => c.shape.len(),
            Value::Dyn(d) => d.op.rank(),
            Value::Poison => 0,
        }
    }
    pub fn as_const(&self) -> Option<&Const> {
        match self {
            Value::Const(c) => Some(c),
            _ => None,
        }
    }
}

/// A node-level failure before it becomes a [`NodeError`].
#[derive(Debug, Clone)]
pub(crate) struct NErr {
    pub kind: NodeErrorKind,
    pub msg: String,
}

pub(crate) type NResult<T> = std::result::Result<T, NErr>;

pub(crate) fn unsupported(msg: impl Into<String>) -> NErr {
    NErr { kind: NodeErrorKind::Unsupported, msg: msg.into() }
}

pub(crate) fn invalid(msg: impl Into<String>) -> NErr {
    NErr { kind: NodeErrorKind::Invalid, msg: msg.into() }
}

/// One node being imported: its inputs (resolved), attributes and opset.
pub(crate) struct Ctx<'a> {
    pub op: &'a str,
    pub label: String,
    pub opset: i64,
    pub inputs: Vec<Option<Value>>,
    pub input_names: &'a [String],
    pub attrs: Attrs<'a>,
    /// Which outputs the graph uses (non-empty names), by position.
    pub wanted: Vec<bool>,
}

impl Ctx<'_> {
    /// Input `i` if present.
    pub fn input(&self, i: usize) -> Option<&Value> {
        self.inputs.get(i).and_then(|v| v.as_ref())
    }
    /// Input `i`, which the operator requires.
    pub fn req(&self, i: usize) -> NResult<&Value> {
        self.input(i).ok_or_else(|| invalid(format!("{} requires input {i}", self.op)))
    }
    /// Number of input slots (including absent optional ones).
    pub fn n_inputs(&self) -> usize {
        self.inputs.len()
    }
    /// The name of input `i` (for messages).
    pub fn input_name(&self, i: usize) -> &str {
        self.input_names.get(i).map(|s| s.as_str()).unwrap_or("")
    }
    /// Options carrying the node's name as the WebNN label.
    pub fn opts(&self) -> OperatorOptions {
        OperatorOptions::labeled(self.label.clone())
    }
    /// True if output `i` is used.
    pub fn wants(&self, i: usize) -> bool {
        self.wanted.get(i).copied().unwrap_or(false)
    }
}

/// The importer state.
pub(crate) struct Importer<'b> {
    pub b: &'b mut GraphBuilder,
    pub fold_limit: usize,
    /// Bytes of new constant data constant folding may still create.
    pub fold_budget: usize,
    input_ids: HashSet<OperandId>,
    /// Every ONNX value imported so far.
    values: HashMap<String, Value>,
    /// For each value name, the op type and inputs of the node producing it.
    producers: HashMap<String, (String, Vec<String>)>,
    /// Names of the graph inputs that are WebNN inputs.
    graph_inputs: HashSet<String>,
}

/// A node after local functions are inlined: the node and the default-domain opset it runs
/// under.
struct FlatNode {
    node: NodeProto,
    opset: i64,
}

/// Imports `model` into `builder`: creates the graph inputs (static shapes from `options`),
/// appends the operations, and returns the inputs and output operands. On failure the
/// builder may hold a partial graph; discard it.
pub fn import(model: &OnnxModel, builder: &mut GraphBuilder, options: &ImportOptions) -> Result<ImportedGraph> {
    let graph = model.proto.graph.as_ref().ok_or_else(|| OnnxError::Invalid("the model has no graph".into()))?;
    let uses_default_domain = graph.node.iter().any(|n| matches!(n.domain.as_deref().unwrap_or(""), "" | "ai.onnx"));
    let opset =
        match model.opset_version("") {
            Some(v) => v,
            // Nodes of other domains are reported as unsupported one by one below.
            None if !uses_default_domain => MAX_OPSET,
            None => return Err(OnnxError::Invalid(
                "the model uses default-domain operators but imports no version of the default operator set (ai.onnx)"
                    .into(),
            )),
        };
    if !(MIN_OPSET..=MAX_OPSET).contains(&opset) {
        return Err(OnnxError::Unsupported(format!(
            "default-domain opset {opset} is outside the supported range {MIN_OPSET}..={MAX_OPSET}"
        )));
    }
    if !graph.sparse_initializer.is_empty() {
        return Err(OnnxError::Unsupported(format!(
            "the graph has {} sparse initializer(s)",
            graph.sparse_initializer.len()
        )));
    }
    if options.default_batch_size == 0 {
        return Err(OnnxError::Invalid("default_batch_size must be positive".into()));
    }

    // Initializers, decoded on first use.
    let mut initializers: HashMap<&str, &TensorProto> = HashMap::new();
    for t in &graph.initializer {
        let name = t.name.as_deref().unwrap_or("");
        if name.is_empty() {
            return Err(OnnxError::Invalid("an initializer has no name".into()));
        }
        initializers.insert(name, t);
    }

    let mut imp = Importer {
        b: builder,
        fold_limit: options.fold_limit,
        fold_budget: options.fold_limit.saturating_mul(FOLD_BUDGET_PER_ELEMENT),
        input_ids: HashSet::new(),
        values: HashMap::new(),
        producers: HashMap::new(),
        graph_inputs: HashSet::new(),
    };

    // Graph inputs.
    let mut inputs = Vec::new();
    let mut seen = HashSet::new();
    for vi in &graph.input {
        let info = input_info(vi);
        if initializers.contains_key(info.name.as_str()) {
            continue;
        }
        if info.name.is_empty() || !seen.insert(info.name.clone()) {
            return Err(OnnxError::Invalid(format!("graph input name '{}' is empty or repeated", info.name)));
        }
        if let Some(data) = options.constant_inputs.get(&info.name) {
            let declared = info.elem();
            let compatible = declared == Some(data.elem_type)
                || (declared == Some(ElemType::Bool) && data.elem_type == ElemType::U8);
            if !compatible {
                return Err(OnnxError::Invalid(format!(
                    "constant for input '{}' is {} but the input is declared {}",
                    info.name,
                    data.elem_type,
                    info.elem().map(|e| e.name()).unwrap_or("a non-tensor type")
                )));
            }
            let mut k = Const::from_tensor(data.clone());
            k.ty = declared.unwrap_or(data.elem_type);
            imp.values.insert(info.name.clone(), Value::constant(k));
            continue;
        }
        let code = info.elem_type.ok_or_else(|| {
            OnnxError::Unsupported(format!("graph input '{}' is not a tensor (sequence, map or optional)", info.name))
        })?;
        let elem = ElemType::from_onnx(code).and_then(|e| e.webnn().map(|d| (e, d)));
        let (elem, data_type) = elem.ok_or_else(|| {
            OnnxError::Unsupported(format!(
                "graph input '{}' has data type {} which WebNN does not have",
                info.name,
                crate::proto::data_type::name(code)
            ))
        })?;
        let shape = resolve_input_shape(&info, &options.shape_overrides, options.default_batch_size)?;
        let descriptor = OperandDescriptor::new(data_type, shape);
        let operand = imp
            .b
            .input(&info.name, &descriptor)
            .map_err(|e| OnnxError::Invalid(format!("graph input '{}' {descriptor}: {}", info.name, e.message)))?;
        imp.input_ids.insert(operand.id());
        imp.graph_inputs.insert(info.name.clone());
        imp.values.insert(info.name.clone(), Value::dynamic(operand, elem));
        inputs.push(ImportedInput { name: info.name, descriptor, elem_type: elem });
    }
    for name in options.constant_inputs.keys() {
        if !seen.contains(name) {
            return Err(OnnxError::Invalid(format!("constant input '{name}' is not a graph input")));
        }
    }
    for name in options.shape_overrides.keys() {
        let used = seen.contains(name)
            || model
                .inputs()
                .iter()
                .any(|i| i.dims.iter().flatten().any(|d| matches!(d, crate::model::Dim::Symbolic(s) if s == name)));
        if !used {
            return Err(OnnxError::Invalid(format!(
                "shape override '{name}' names neither a graph input nor a symbolic dimension of one"
            )));
        }
    }

    // Nodes: inline local functions, then order topologically.
    let functions: HashMap<(String, String), &FunctionProto> = model
        .proto
        .functions
        .iter()
        .map(|f| ((f.domain.clone().unwrap_or_default(), f.name.clone().unwrap_or_default()), f))
        .collect();
    let mut flat = Vec::new();
    let mut counter = 0usize;
    order::flatten(&graph.node, opset, &functions, 0, &mut counter, &mut flat)?;
    let available: HashSet<&str> = imp.values.keys().map(|s| s.as_str()).chain(initializers.keys().copied()).collect();
    let (order, mut errors) = order::topological_order(&flat, &available);
    for f in &flat {
        for o in &f.node.output {
            imp.producers.insert(o.clone(), (f.node.op_type.clone().unwrap_or_default(), f.node.input.clone()));
        }
    }

    for idx in order {
        let FlatNode { node, opset } = &flat[idx];
        let op_type = node.op_type.as_deref().unwrap_or("");
        let domain = node.domain.as_deref().unwrap_or("");
        let label = node.name.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| format!("#{idx}"));
        let full_op =
            if domain.is_empty() || domain == "ai.onnx" { op_type.to_string() } else { format!("{domain}.{op_type}") };
        let record = |kind, msg: String, errors: &mut Vec<NodeError>| {
            errors.push(NodeError { op_type: full_op.clone(), node: label.clone(), kind, message: msg })
        };
        let poison = |values: &mut HashMap<String, Value>| {
            for o in node.output.iter().filter(|o| !o.is_empty()) {
                values.insert(o.clone(), Value::Poison);
            }
        };

        // Resolve inputs (initializers decode on first use).
        let mut node_inputs = Vec::with_capacity(node.input.len());
        let mut poisoned = false;
        let mut failed = None;
        for name in &node.input {
            if name.is_empty() {
                node_inputs.push(None);
                continue;
            }
            if !imp.values.contains_key(name) {
                if let Some(t) = initializers.get(name.as_str()) {
                    match decode_tensor(t, model.base_dir()) {
                        Ok(data) => {
                            imp.values.insert(name.clone(), Value::constant(Const::from_tensor(data)));
                        }
                        // A tensor the importer cannot hold (data type, size) fails the node;
                        // a malformed or unreadable one, or a bad external path, the model.
                        Err(e @ OnnxError::Unsupported(_)) => {
                            failed = Some(e.to_string());
                            imp.values.insert(name.clone(), Value::Poison);
                        }
                        Err(e) => return Err(e),
                    }
                }
            }
            match imp.values.get(name) {
                Some(Value::Poison) => {
                    poisoned = true;
                    node_inputs.push(None);
                }
                Some(v) => node_inputs.push(Some(v.clone())),
                None => {
                    failed.get_or_insert_with(|| format!("input '{name}' is not produced by any node"));
                    node_inputs.push(None);
                }
            }
        }
        if let Some(msg) = failed {
            record(NodeErrorKind::Unsupported, msg, &mut errors);
            poison(&mut imp.values);
            continue;
        }
        if poisoned {
            poison(&mut imp.values);
            continue;
        }
        let registration = match support::check(op_type, domain, &node.attribute, node.input.len()) {
            Ok(registration) => registration,
            Err(e) => {
                record(e.kind, e.msg, &mut errors);
                poison(&mut imp.values);
                continue;
            }
        };
        let ctx = Ctx {
            op: op_type,
            label: node.name.clone().unwrap_or_default(),
            opset: *opset,
            inputs: node_inputs,
            input_names: &node.input,
            attrs: Attrs::new(&node.attribute),
            wanted: node.output.iter().map(|o| !o.is_empty()).collect(),
        };
        match imp.import_node(&ctx, registration.import) {
            Ok(outs) => {
                let mut missing = None;
                for (i, name) in node.output.iter().enumerate() {
                    if name.is_empty() {
                        continue;
                    }
                    match outs.get(i) {
                        Some(v) => {
                            imp.values.insert(name.clone(), v.clone());
                        }
                        None => {
                            missing.get_or_insert(i);
                            imp.values.insert(name.clone(), Value::Poison);
                        }
                    }
                }
                if let Some(i) = missing {
                    record(
                        NodeErrorKind::Unsupported,
                        format!("output {i} ('{}') is not supported", node.output[i]),
                        &mut errors,
                    );
                }
            }
            Err(e) => {
                record(e.kind, e.msg, &mut errors);
                poison(&mut imp.values);
            }
        }
    }
    if !errors.is_empty() {
        return Err(OnnxError::Nodes(errors));
    }

    // Graph outputs: never an input or a constant operand (build() rejects those).
    let mut outputs = Vec::new();
    for vi in &graph.output {
        let name = vi.name.clone().unwrap_or_default();
        if !imp.values.contains_key(&name) {
            if let Some(t) = initializers.get(name.as_str()) {
                imp.values
                    .insert(name.clone(), Value::constant(Const::from_tensor(decode_tensor(t, model.base_dir())?)));
            }
        }
        let value = imp
            .values
            .get(&name)
            .ok_or_else(|| OnnxError::Invalid(format!("graph output '{name}' is not produced by any node")))?
            .clone();
        let elem_type = value.ty();
        let operand = imp.output_operand(&value).map_err(|e| {
            OnnxError::Nodes(vec![NodeError {
                op_type: "output".into(),
                node: name.clone(),
                kind: e.kind,
                message: e.msg,
            }])
        })?;
        outputs.push(ImportedOutput { name, operand, elem_type });
    }
    Ok(ImportedGraph { inputs, outputs, opset })
}

/// Maps a builder error: a data type outside WebNN's limits is "unsupported", anything else a
/// builder failure.
pub(crate) fn bld<T>(r: webnn_core::Result<T>) -> NResult<T> {
    r.map_err(|e| {
        if e.message.contains("is not supported; allowed") {
            unsupported(e.message)
        } else {
            NErr { kind: NodeErrorKind::Builder(e.kind), msg: e.message }
        }
    })
}

impl Importer<'_> {
    /// The operand of a value, creating the WebNN constant of a `Const` once.
    pub fn operand(&mut self, v: &Value) -> NResult<Operand> {
        match v {
            Value::Dyn(d) => Ok(d.op.clone()),
            Value::Poison => Err(invalid("internal: poisoned value used")),
            Value::Const(c) => {
                if let Some(op) = c.operand.get() {
                    return Ok(op.clone());
                }
                let op = self.materialize(c)?;
                let _ = c.operand.set(op.clone());
                Ok(op)
            }
        }
    }

    fn materialize(&mut self, c: &Const) -> NResult<Operand> {
        let data_type = c.ty.webnn().ok_or_else(|| {
            unsupported(format!("a constant of type {} is needed at run time; WebNN has no such type", c.ty))
        })?;
        let shape = to_u32_shape(&c.shape)?;
        match &c.data {
            ConstData::Splat(bytes) if c.len() > 16 => {
                let scalar = bld(self.b.constant(&OperandDescriptor::new(data_type, []), bytes))?;
                bld(self.b.expand(&scalar, &shape, &OperatorOptions::default()))
            }
            _ => bld(self.b.constant(&OperandDescriptor::new(data_type, shape), &c.dense_bytes())),
        }
    }

    /// An operand for a graph output: an op result (identity of inputs and constants).
    fn output_operand(&mut self, v: &Value) -> NResult<Operand> {
        let op = self.operand(v)?;
        let needs_identity = match v {
            Value::Const(_) => true,
            Value::Dyn(d) => self.input_ids.contains(&d.op.id()),
            Value::Poison => false,
        };
        if needs_identity {
            return bld(self.b.identity(&op, &OperatorOptions::default()));
        }
        Ok(op)
    }

    /// A scalar WebNN constant of `ty` (cast per
    /// [spec](https://www.w3.org/TR/webnn/#algorithms-casting)).
    pub fn scalar(&mut self, ty: DataType, v: f64) -> NResult<Operand> {
        bld(self.b.constant_scalar(ty, MLNumber::Double(v)))
    }

    /// Input `i` as a constant (for parameters WebNN needs at build time); `None` if absent.
    pub fn const_input<'c>(&self, c: &'c Ctx, i: usize) -> NResult<Option<&'c Const>> {
        match c.input(i) {
            None => Ok(None),
            Some(Value::Const(k)) => Ok(Some(k)),
            Some(_) => {
                let sources = self.upstream_inputs(c.input_name(i));
                Err(unsupported(format!(
                    "input {i} ('{}') must be known at import time, but it is computed at run time from graph input(s) {} \
                     (bind them with ImportOptions::constant_inputs)",
                    c.input_name(i),
                    sources.iter().map(|s| format!("'{s}'")).collect::<Vec<_>>().join(", ")
                )))
            }
        }
    }

    /// The graph inputs whose values (not only shapes) `name` depends on.
    fn upstream_inputs(&self, name: &str) -> Vec<String> {
        let mut found = Vec::new();
        let mut seen = HashSet::new();
        let mut stack = vec![name.to_string()];
        while let Some(v) = stack.pop() {
            if v.is_empty() || !seen.insert(v.clone()) {
                continue;
            }
            if self.graph_inputs.contains(&v) {
                found.push(v);
                continue;
            }
            if matches!(self.values.get(&v), Some(Value::Const(_))) {
                continue;
            }
            if let Some((op, inputs)) = self.producers.get(&v) {
                if !matches!(op.as_str(), "Shape" | "Size") {
                    stack.extend(inputs.iter().cloned());
                }
            }
        }
        found.sort();
        found
    }

    /// Input `i` as constant integers (`None` if absent).
    pub fn const_ints(&self, c: &Ctx, i: usize) -> NResult<Option<Vec<i64>>> {
        self.const_input(c, i)?.map(|k| k.i64s()).transpose()
    }

    /// Input `i` as constant floats (`None` if absent).
    pub fn const_floats(&self, c: &Ctx, i: usize) -> NResult<Option<Vec<f64>>> {
        self.const_input(c, i)?.map(|k| k.f64s()).transpose()
    }

    /// True when every present input is a constant and the output would be small enough to
    /// compute at import time.
    pub fn all_const(&self, c: &Ctx) -> bool {
        c.inputs.iter().flatten().all(|v| matches!(v, Value::Const(k) if k.len() <= self.fold_limit))
    }

    /// Imports one node: folds it if it can, else runs `import`, its registered importer.
    fn import_node(&mut self, c: &Ctx, import: support::ImportFn) -> NResult<Vec<Value>> {
        if let Some(out) = fold::try_fold(self, c)? {
            let inputs: Vec<&Const> = c.inputs.iter().flatten().filter_map(Value::as_const).collect();
            let new_bytes: usize = out
                .iter()
                .filter_map(Value::as_const)
                .filter(|k| !inputs.iter().any(|i| k.shares_data(i)))
                .map(Const::data_bytes)
                .sum();
            self.fold_budget = self.fold_budget.saturating_sub(new_bytes);
            return Ok(out);
        }
        // Past folding, the data input is a WebNN operand, which cannot be empty.
        if let Some(x) = c.input(0) {
            if c.op != "Concat" && x.shape().contains(&0) {
                return Err(unsupported(format!("input 0 has shape {:?}; WebNN has no empty tensors", x.shape())));
            }
        }
        import(self, c)
    }
}

/// A shape as WebNN dimensions: every dimension must be a valid, non-zero dimension.
pub(crate) fn to_u32_shape(shape: &[usize]) -> NResult<Vec<u32>> {
    shape
        .iter()
        .map(|&d| {
            if d == 0 {
                Err(unsupported(format!("empty tensors (shape {shape:?}) are not supported by WebNN")))
            } else if d > i32::MAX as usize {
                Err(unsupported(format!("dimension {d} of shape {shape:?} exceeds WebNN's 2^31-1")))
            } else {
                Ok(d as u32)
            }
        })
        .collect()
}

/// Normalizes a possibly negative axis against `rank`.
pub(crate) fn norm_axis(axis: i64, rank: usize, what: &str) -> NResult<usize> {
    let r = rank as i64;
    let a = if axis < 0 { axis + r } else { axis };
    if a < 0 || a >= r {
        return Err(invalid(format!("{what} {axis} is out of range for rank {rank}")));
    }
    Ok(a as usize)
}

/// Normalizes a list of possibly negative axes (duplicates are an error).
pub(crate) fn norm_axes(axes: &[i64], rank: usize, what: &str) -> NResult<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let n = norm_axis(a, rank, what)?;
        if out.contains(&n) {
            return Err(invalid(format!("{what} {axes:?} repeats axis {n}")));
        }
        out.push(n);
    }
    Ok(out)
}
