//! `MLGraphBuilder` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder)): the state machine
//! (can-build, same-builder check, append) and the lifecycle methods `input()`, the three
//! `constant()` overloads and `build()`.
//!
//! The operation methods live in one file per op family next to this one; each runs the
//! spec's steps in order — can-build (InvalidStateError), every operand from this builder
//! (TypeError, issue #572), the op's checks (TypeError), output descriptor — through
//! `GraphBuilder::begin` and `GraphBuilder::finish`. A method that fails adds nothing.

mod activation;
mod by_name;
mod generated;
pub mod params;
pub use params::{NumberParam, OpParams};
mod conv;
mod elementwise;
mod gather;
mod normalization;
mod recurrent;
mod reduction;
mod shape;

use crate::error::{label_prefix, Error, Result};
use crate::graph::{Attrs, Constant, Graph, OperandId, OperandNode, OperandSource, Operation};
use crate::limits;
use crate::operand::{BuilderId, Operand};
use crate::ops::OpKind;
use crate::types::{MLNumber, OperandDescriptor, TensorDescriptor};
pub(crate) use crate::validate::OpCall;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

static NEXT_BUILDER_ID: AtomicU64 = AtomicU64::new(1);

/// What a builder knows of its `MLContext`: its identity and whether it is lost.
#[derive(Debug, Clone)]
pub struct ContextLink {
    /// Unique id of the context.
    pub id: u64,
    /// Set once the context is lost (destroyed); a lost context's builders cannot build.
    pub lost: Arc<AtomicBool>,
    /// The context's `opSupportLimits()` when its backend executes less than the spec's
    /// table (a GPU context); `None` for the whole table. The builder enforces it.
    pub limits: Option<Arc<limits::OpSupportLimits>>,
}

impl ContextLink {
    /// True if the context is lost.
    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Acquire)
    }
}

/// What `constant(tensor)`
/// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-constant-tensor)) needs to know of an
/// `MLTensor`.
pub trait ConstantTensorSource {
    /// Id of the tensor's context.
    fn context_id(&self) -> u64;
    /// The tensor's descriptor.
    fn tensor_descriptor(&self) -> &TensorDescriptor;
    /// `[[isConstant]]`
    fn is_constant(&self) -> bool;
    /// The tensor's `[[isDestroyed]]` flag, shared so that build() can check it (D2).
    fn destroyed_flag(&self) -> Arc<AtomicBool>;
    /// The constant bytes captured by `createConstantTensor`.
    fn constant_bytes(&self) -> Option<crate::SharedBytes>;
}

/// `MLGraphBuilder`: builds one graph for one context.
#[derive(Debug)]
pub struct GraphBuilder {
    id: BuilderId,
    context: ContextLink,
    has_built: bool,
    operands: Vec<OperandNode>,
    operations: Vec<Operation>,
    inputs: Vec<(String, OperandId)>,
    constants: Vec<Constant>,
}

impl GraphBuilder {
    /// `new MLGraphBuilder(context)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-constructor)): InvalidStateError if
    /// the context is lost.
    pub fn new(context: ContextLink) -> Result<Self> {
        if context.is_lost() {
            return Err(Error::invalid_state("MLGraphBuilder: the context is lost"));
        }
        Ok(GraphBuilder {
            id: BuilderId(NEXT_BUILDER_ID.fetch_add(1, Ordering::Relaxed)),
            context,
            has_built: false,
            operands: Vec::new(),
            operations: Vec::new(),
            inputs: Vec::new(),
            constants: Vec::new(),
        })
    }

    /// The context this builder builds for.
    pub fn context(&self) -> &ContextLink {
        &self.context
    }

    /// *can build*: not built yet and the context is not lost.
    pub fn can_build(&self) -> bool {
        !self.has_built && !self.context.is_lost()
    }

    fn check_can_build(&self, what: &str, label: &str) -> Result<()> {
        if self.has_built {
            return Err(Error::invalid_state(format!(
                "{}{what}: this MLGraphBuilder has already built a graph",
                label_prefix(label)
            )));
        }
        if self.context.is_lost() {
            return Err(Error::invalid_state(format!("{}{what}: the context is lost", label_prefix(label))));
        }
        Ok(())
    }

    /// *validate operand*: the operand was created by this builder (issue #572).
    fn check_same_builder(&self, op: &str, label: &str, member: &str, operand: &Operand) -> Result<()> {
        if operand.builder != self.id {
            return Err(Error::type_error(format!(
                "{}{op}: {member} was created by another MLGraphBuilder",
                label_prefix(label)
            )));
        }
        Ok(())
    }

    /// Starts an op method: can-build, then every operand is from this builder, then every
    /// operand is within the op's limits table entry. `operands` come in the op's slot order
    /// ([`LimitsKind::inputs`](crate::LimitsKind::inputs), absent options as `None`; concat:
    /// its inputs), and the slot names of the errors are the table's.
    pub(crate) fn begin<'a>(&self, op: OpKind, label: &'a str, operands: &[Option<&Operand>]) -> Result<OpCall<'a>> {
        let slots = op.limits_kind().inputs();
        if op != OpKind::Concat && operands.len() != slots.len() {
            // A builder method passing the wrong list: a bug here, never the caller's error.
            return Err(Error::unknown(format!("{op}: {} operands for the slots {slots:?}", operands.len())));
        }
        let operands: Vec<(&str, Option<&Operand>)> = match op {
            OpKind::Concat => operands.iter().map(|&o| (slots[0], o)).collect(),
            _ => slots.iter().copied().zip(operands.iter().copied()).collect(),
        };
        self.check_can_build(op.idl_name(), label)?;
        for &(member, operand) in &operands {
            if let Some(operand) = operand {
                self.check_same_builder(op.idl_name(), label, member, operand)?;
            }
        }
        let call = OpCall { op, label };
        for &(member, operand) in &operands {
            if let Some(operand) = operand {
                call.check_limits(member, &operand.descriptor)?;
            }
        }
        if let Some(context_limits) = &self.context.limits {
            for &(member, operand) in &operands {
                if let Some(operand) = operand {
                    context_limits.check_member(op, label, member, &operand.descriptor)?;
                }
            }
        }
        Ok(call)
    }

    /// Finishes an op method: checks every output against the op's output limits and that it
    /// is a valid descriptor, then appends the operation and returns the output operands.
    pub(crate) fn finish(
        &mut self,
        call: OpCall<'_>,
        inputs: &[Option<&Operand>],
        attrs: Attrs,
        outputs: Vec<OperandDescriptor>,
    ) -> Result<Vec<Operand>> {
        let output_members = call.op.limits_kind().outputs();
        for (i, desc) in outputs.iter().enumerate() {
            let member = if output_members.len() == 1 { output_members[0] } else { output_members[i] };
            call.check_limits(member, desc)?;
            desc.check_dimensions().map_err(|e| call.error(format!("output {}", e.message)))?;
            if let Some(context_limits) = &self.context.limits {
                context_limits.check_member(call.op, call.label, member, desc)?;
                context_limits.check_io(&format!("{}{}: output", label_prefix(call.label), call.op), desc)?;
            }
        }
        let op_index = self.operations.len();
        let mut ids = Vec::with_capacity(outputs.len());
        let mut result = Vec::with_capacity(outputs.len());
        for (i, desc) in outputs.into_iter().enumerate() {
            let id = self.push_operand(desc.clone(), OperandSource::Operation { op: op_index, output: i });
            ids.push(id);
            result.push(Operand { builder: self.id, id, descriptor: desc });
        }
        self.operations.push(Operation {
            kind: call.op,
            inputs: inputs.iter().map(|o| o.map(|o| o.id)).collect(),
            outputs: ids,
            attrs,
            label: call.label.to_string(),
        });
        Ok(result)
    }

    /// [`GraphBuilder::finish`] for the common single-output case.
    pub(crate) fn finish_one(
        &mut self,
        call: OpCall<'_>,
        inputs: &[Option<&Operand>],
        attrs: Attrs,
        output: OperandDescriptor,
    ) -> Result<Operand> {
        let mut v = self.finish(call, inputs, attrs, vec![output])?;
        Ok(v.remove(0))
    }

    fn push_operand(&mut self, descriptor: OperandDescriptor, source: OperandSource) -> OperandId {
        let id = OperandId(self.operands.len() as u32);
        self.operands.push(OperandNode { descriptor, source });
        id
    }

    /// `input(name, descriptor)` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-input)).
    pub fn input(&mut self, name: &str, descriptor: &OperandDescriptor) -> Result<Operand> {
        self.check_can_build("input", "")?;
        if name.is_empty() {
            return Err(Error::type_error("input: the name must not be empty"));
        }
        if self.inputs.iter().any(|(n, _)| n == name) {
            return Err(Error::type_error(format!("input: an input named '{name}' already exists")));
        }
        descriptor.check_dimensions().map_err(|e| Error::type_error(format!("input '{name}': {}", e.message)))?;
        if let Some(context_limits) = &self.context.limits {
            context_limits.check_io(&format!("input '{name}'"), descriptor)?;
        }
        let id = self.push_operand(descriptor.clone(), OperandSource::Input(name.to_string()));
        self.inputs.push((name.to_string(), id));
        Ok(Operand { builder: self.id, id, descriptor: descriptor.clone() })
    }

    /// `constant(descriptor, buffer)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-constant-buffer)). `bytes` are the
    /// element bytes in little-endian order; their length must equal the descriptor's byte length.
    pub fn constant(&mut self, descriptor: &OperandDescriptor, bytes: &[u8]) -> Result<Operand> {
        self.check_can_build("constant", "")?;
        descriptor.check_dimensions().map_err(|e| Error::type_error(format!("constant: {}", e.message)))?;
        if bytes.len() as u64 != descriptor.byte_length() {
            return Err(Error::type_error(format!(
                "constant: the buffer has {} bytes but descriptor {descriptor} needs {}",
                bytes.len(),
                descriptor.byte_length()
            )));
        }
        self.check_constant_limits(descriptor)?;
        // Our decision (the spec has no step for it): a copy that cannot be allocated is a
        // TypeError, like a buffer of the wrong size, instead of aborting the process.
        let copy = crate::SharedBytes::try_copy_from(bytes).map_err(|_| {
            Error::type_error(format!(
                "constant: cannot allocate {} bytes to copy the buffer of {descriptor}",
                bytes.len()
            ))
        })?;
        Ok(self.push_constant(descriptor.clone(), copy, None))
    }

    /// `constant(dataType, value)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-constant-datatype-value)): a rank-0
    /// constant, `value` cast per [spec](https://www.w3.org/TR/webnn/#algorithms-casting).
    pub fn constant_scalar(&mut self, data_type: crate::types::DataType, value: MLNumber) -> Result<Operand> {
        self.check_can_build("constant", "")?;
        self.check_constant_limits(&OperandDescriptor::new(data_type, []))?;
        let bytes = value.cast(data_type).to_le_bytes();
        let copy = crate::SharedBytes::try_copy_from(&bytes)
            .map_err(|_| Error::type_error("constant: cannot allocate the scalar's bytes"))?;
        Ok(self.push_constant(OperandDescriptor::new(data_type, []), copy, None))
    }

    /// `constant(tensor)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-constant-tensor)). Tensor checks
    /// come before the can-build check, as in the spec.
    pub fn constant_tensor(&mut self, tensor: &dyn ConstantTensorSource) -> Result<Operand> {
        if tensor.context_id() != self.context.id {
            return Err(Error::type_error("constant: the tensor belongs to another context"));
        }
        let destroyed = tensor.destroyed_flag();
        if destroyed.load(Ordering::Acquire) {
            return Err(Error::type_error("constant: the tensor is destroyed"));
        }
        let bytes = match (tensor.is_constant(), tensor.constant_bytes()) {
            (true, Some(bytes)) => bytes,
            _ => {
                return Err(Error::type_error(
                    "constant: the tensor is not a constant tensor (use createConstantTensor)",
                ))
            }
        };
        self.check_can_build("constant", "")?;
        let desc = tensor.tensor_descriptor().operand_descriptor();
        self.check_constant_limits(&desc)?;
        Ok(self.push_constant(desc, bytes, Some(destroyed)))
    }

    /// A constant's data type and size against the context's narrower limits, if any.
    fn check_constant_limits(&self, descriptor: &OperandDescriptor) -> Result<()> {
        match &self.context.limits {
            Some(context_limits) => context_limits.check_io("constant", descriptor),
            None => Ok(()),
        }
    }

    fn push_constant(
        &mut self,
        descriptor: OperandDescriptor,
        bytes: crate::SharedBytes,
        tensor_destroyed: Option<Arc<AtomicBool>>,
    ) -> Operand {
        let id = self.push_operand(descriptor.clone(), OperandSource::Constant(self.constants.len()));
        self.constants.push(Constant { operand: id, bytes, tensor_destroyed });
        Operand { builder: self.id, id, descriptor }
    }

    /// The synchronous part of `build(outputs)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-build)): validates the outputs,
    /// marks the builder as built and returns the graph reachable from the outputs.
    ///
    /// Errors (the promise's rejections): InvalidStateError if the builder cannot build;
    /// TypeError for no outputs, an empty or repeated name, an operand of another builder, an
    /// output that is an input or a constant, or a reachable constant whose tensor was
    /// destroyed (decisions.md D2). On error the builder is left unchanged.
    pub fn build(&mut self, outputs: &[(&str, &Operand)]) -> Result<Graph> {
        self.check_can_build("build", "")?;
        if outputs.is_empty() {
            return Err(Error::type_error("build: at least one output is required"));
        }
        let mut names = HashSet::new();
        for (name, operand) in outputs {
            if name.is_empty() {
                return Err(Error::type_error("build: output names must not be empty"));
            }
            if !names.insert(*name) {
                return Err(Error::type_error(format!("build: output name '{name}' is repeated")));
            }
            self.check_same_builder("build", "", &format!("output '{name}'"), operand)?;
            match self.operands[operand.id.index()].source {
                OperandSource::Input(_) | OperandSource::Constant(_) => {
                    return Err(Error::type_error(format!(
                        "build: output '{name}' is a graph input or constant; wrap it with identity()"
                    )))
                }
                OperandSource::Operation { .. } => {}
            }
        }
        let graph = self.reachable_graph(outputs);
        if let Some(c) = graph.constants.iter().find(|c| c.is_destroyed()) {
            return Err(Error::type_error(format!(
                "build: constant operand {} {} was created from a tensor that has been destroyed",
                c.operand.0,
                graph.descriptor(c.operand)
            )));
        }
        self.has_built = true;
        Ok(graph)
    }

    /// The graph reachable from `outputs`, with operands renumbered compactly.
    fn reachable_graph(&self, outputs: &[(&str, &Operand)]) -> Graph {
        // Mark reachable operations and operands walking backwards from the outputs.
        let mut op_live = vec![false; self.operations.len()];
        let mut operand_live = vec![false; self.operands.len()];
        let mut stack: Vec<OperandId> = outputs.iter().map(|(_, o)| o.id).collect();
        while let Some(id) = stack.pop() {
            if std::mem::replace(&mut operand_live[id.index()], true) {
                continue;
            }
            if let OperandSource::Operation { op, .. } = self.operands[id.index()].source {
                if !std::mem::replace(&mut op_live[op], true) {
                    let operation = &self.operations[op];
                    stack.extend(operation.inputs.iter().flatten().copied());
                    // Every output of a live operation exists in the compiled graph.
                    for &o in &operation.outputs {
                        if !operand_live[o.index()] {
                            stack.push(o);
                        }
                    }
                }
            }
        }
        let mut remap: HashMap<OperandId, OperandId> = HashMap::new();
        let mut graph = Graph::default();
        let mut op_remap = vec![usize::MAX; self.operations.len()];
        let mut next_op = 0;
        for (i, live) in op_live.iter().enumerate() {
            if *live {
                op_remap[i] = next_op;
                next_op += 1;
            }
        }
        let mut const_count = 0;
        for (i, node) in self.operands.iter().enumerate() {
            if !operand_live[i] {
                continue;
            }
            let new_id = OperandId(graph.operands.len() as u32);
            remap.insert(OperandId(i as u32), new_id);
            let source = match &node.source {
                OperandSource::Input(name) => {
                    graph.inputs.push((name.clone(), new_id));
                    OperandSource::Input(name.clone())
                }
                OperandSource::Constant(c) => {
                    let mut constant = self.constants[*c].clone();
                    constant.operand = new_id;
                    graph.constants.push(constant);
                    const_count += 1;
                    OperandSource::Constant(const_count - 1)
                }
                OperandSource::Operation { op, output } => {
                    OperandSource::Operation { op: op_remap[*op], output: *output }
                }
            };
            graph.operands.push(OperandNode { descriptor: node.descriptor.clone(), source });
        }
        // Inputs keep creation order (the order of the builder's input list).
        let order: HashMap<&str, usize> = self.inputs.iter().enumerate().map(|(i, (n, _))| (n.as_str(), i)).collect();
        graph.inputs.sort_by_key(|(n, _)| order.get(n.as_str()).copied().unwrap_or(usize::MAX));
        for (i, operation) in self.operations.iter().enumerate() {
            if op_live[i] {
                let mut op = operation.clone();
                op.inputs = op.inputs.iter().map(|o| o.map(|id| remap[&id])).collect();
                op.outputs = op.outputs.iter().map(|id| remap[id]).collect();
                graph.operations.push(op);
            }
        }
        graph.outputs = outputs.iter().map(|(n, o)| (n.to_string(), remap[&o.id])).collect();
        graph
    }

    /// Bytes held by the constants added so far (for bindings that report native memory to
    /// their garbage collector). A constant shared with a constant tensor counts here too.
    pub fn constant_byte_length(&self) -> usize {
        self.constants.iter().map(|c| c.bytes.len()).sum()
    }

    /// Number of operations appended so far (for tests: a throwing call adds nothing).
    pub fn operation_count(&self) -> usize {
        self.operations.len()
    }
}
