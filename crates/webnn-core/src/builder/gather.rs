//! Builder methods of the index-driven ops: gather
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gather)), gatherElements
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gatherelements)), gatherND
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gathernd)), scatterElements
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-scatterelements)) and scatterND
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-scatternd)).
//!
//! Index values are not known at build time: negative indices wrap and out-of-range ones are
//! clamped by the kernels (decisions.md D10).

use super::GraphBuilder;
use crate::error::Result;
use crate::graph::Attrs;
use crate::operand::Operand;
use crate::ops::OpKind;
use crate::types::options::{GatherOptions, OperatorOptions, ScatterOptions};
use crate::validate::gather as v;

impl GraphBuilder {
    /// `gather(input, indices, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gather)).
    pub fn gather(&mut self, input: &Operand, indices: &Operand, options: &GatherOptions) -> Result<Operand> {
        let call = self.begin(OpKind::Gather, &options.label, &[Some(input), Some(indices)])?;
        let out = v::gather(&call, &input.descriptor, &indices.descriptor, options.axis)?;
        self.finish_one(call, &[Some(input), Some(indices)], Attrs::Axis { axis: options.axis }, out)
    }

    /// `gatherElements(input, indices, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gatherelements)).
    pub fn gather_elements(&mut self, input: &Operand, indices: &Operand, options: &GatherOptions) -> Result<Operand> {
        let call = self.begin(OpKind::GatherElements, &options.label, &[Some(input), Some(indices)])?;
        let out = v::gather_elements(&call, &input.descriptor, &indices.descriptor, options.axis)?;
        self.finish_one(call, &[Some(input), Some(indices)], Attrs::Axis { axis: options.axis }, out)
    }

    /// `gatherND(input, indices, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gathernd)).
    pub fn gather_nd(&mut self, input: &Operand, indices: &Operand, options: &OperatorOptions) -> Result<Operand> {
        let call = self.begin(OpKind::GatherNd, &options.label, &[Some(input), Some(indices)])?;
        let out = v::gather_nd(&call, &input.descriptor, &indices.descriptor)?;
        self.finish_one(call, &[Some(input), Some(indices)], Attrs::None, out)
    }

    /// `scatterElements(input, indices, updates, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-scatterelements)).
    pub fn scatter_elements(
        &mut self,
        input: &Operand,
        indices: &Operand,
        updates: &Operand,
        options: &ScatterOptions,
    ) -> Result<Operand> {
        let call = self.begin(OpKind::ScatterElements, &options.label, &[Some(input), Some(indices), Some(updates)])?;
        let out =
            v::scatter_elements(&call, &input.descriptor, &indices.descriptor, &updates.descriptor, options.axis)?;
        self.finish_one(call, &[Some(input), Some(indices), Some(updates)], Attrs::Axis { axis: options.axis }, out)
    }

    /// `scatterND(input, indices, updates, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-scatternd)).
    pub fn scatter_nd(
        &mut self,
        input: &Operand,
        indices: &Operand,
        updates: &Operand,
        options: &OperatorOptions,
    ) -> Result<Operand> {
        let call = self.begin(OpKind::ScatterNd, &options.label, &[Some(input), Some(indices), Some(updates)])?;
        let out = v::scatter_nd(&call, &input.descriptor, &indices.descriptor, &updates.descriptor)?;
        self.finish_one(call, &[Some(input), Some(indices), Some(updates)], Attrs::None, out)
    }
}
