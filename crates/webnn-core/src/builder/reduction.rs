//! Builder methods of argMin / argMax
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-argminmax)), cumulativeSum
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-cumulativesum)) and the reductions
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reduce)).

use super::GraphBuilder;
use crate::error::{Error, Result};
use crate::graph::Attrs;
use crate::operand::Operand;
use crate::ops::OpKind;
use crate::types::options::{ArgMinMaxOptions, CumulativeSumOptions, ReduceOptions};
use crate::validate::reduction as v;

impl GraphBuilder {
    /// *create an argMin/argMax operation*
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-argminmax)) by kind (`op` is ArgMin
    /// or ArgMax).
    pub fn arg_min_max(
        &mut self,
        op: OpKind,
        input: &Operand,
        axis: u32,
        options: &ArgMinMaxOptions,
    ) -> Result<Operand> {
        if op.builder_family() != Some("arg_min_max") {
            return Err(Error::type_error(format!("{op} is not argMin or argMax")));
        }
        let call = self.begin(op, &options.label, &[Some(input)])?;
        let out = v::arg_min_max(&call, &input.descriptor, axis, options.keep_dimensions, options.output_data_type)?;
        let attrs = Attrs::ArgMinMax { axis, keep_dimensions: options.keep_dimensions };
        self.finish_one(call, &[Some(input)], attrs, out)
    }

    /// `cumulativeSum(input, axis, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-cumulativesum))
    pub fn cumulative_sum(&mut self, input: &Operand, axis: u32, options: &CumulativeSumOptions) -> Result<Operand> {
        let call = self.begin(OpKind::CumulativeSum, &options.label, &[Some(input)])?;
        let out = v::cumulative_sum(&call, &input.descriptor, axis)?;
        let attrs = Attrs::CumulativeSum { axis, exclusive: options.exclusive, reversed: options.reversed };
        self.finish_one(call, &[Some(input)], attrs, out)
    }

    /// Any reduction of [spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reduce) by kind. The
    /// attributes hold the reduced axes sorted.
    pub fn reduce(&mut self, op: OpKind, input: &Operand, options: &ReduceOptions) -> Result<Operand> {
        if op.builder_family() != Some("reduce") {
            return Err(Error::type_error(format!("{op} is not a reduction")));
        }
        let call = self.begin(op, &options.label, &[Some(input)])?;
        let (out, axes) = v::reduce(&call, &input.descriptor, options.axes.as_deref(), options.keep_dimensions)?;
        self.finish_one(call, &[Some(input)], Attrs::Reduce { axes, keep_dimensions: options.keep_dimensions }, out)
    }
}
