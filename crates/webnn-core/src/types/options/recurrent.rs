//! Options of gru, gruCell, lstm and lstmCell.

use super::options_dict;
use crate::operand::Operand;
use crate::types::{GruWeightLayout, LstmWeightLayout, RecurrentNetworkActivation, RecurrentNetworkDirection};

options_dict! {
    /// `MLGruOptions`
    GruOptions = "MLGruOptions" {
        /// `bias` [numDirections, 3 * hiddenSize]
        bias: Option<Operand> = None, "bias": "operand";
        /// `recurrentBias` [numDirections, 3 * hiddenSize]
        recurrent_bias: Option<Operand> = None, "recurrentBias": "operand";
        /// `initialHiddenState` [numDirections, batchSize, hiddenSize]
        initial_hidden_state: Option<Operand> = None, "initialHiddenState": "operand";
        /// `resetAfter`, default true.
        reset_after: bool = true, "resetAfter": "boolean";
        /// `returnSequence`, default false.
        return_sequence: bool = false, "returnSequence": "boolean";
        /// `direction`, default "forward".
        direction: RecurrentNetworkDirection = RecurrentNetworkDirection::Forward,
            "direction": "enum:MLRecurrentNetworkDirection";
        /// `layout`, default "zrn".
        layout: GruWeightLayout = GruWeightLayout::Zrn, "layout": "enum:MLGruWeightLayout";
        /// `activations`; default ["sigmoid", "tanh"].
        activations: Option<Vec<RecurrentNetworkActivation>> = None, "activations": "activations";
    }
}

options_dict! {
    /// `MLGruCellOptions`
    GruCellOptions = "MLGruCellOptions" {
        /// `bias` [3 * hiddenSize]
        bias: Option<Operand> = None, "bias": "operand";
        /// `recurrentBias` [3 * hiddenSize]
        recurrent_bias: Option<Operand> = None, "recurrentBias": "operand";
        /// `resetAfter`, default true.
        reset_after: bool = true, "resetAfter": "boolean";
        /// `layout`, default "zrn".
        layout: GruWeightLayout = GruWeightLayout::Zrn, "layout": "enum:MLGruWeightLayout";
        /// `activations`; default ["sigmoid", "tanh"].
        activations: Option<Vec<RecurrentNetworkActivation>> = None, "activations": "activations";
    }
}

options_dict! {
    /// `MLLstmOptions`
    LstmOptions = "MLLstmOptions" {
        /// `bias` [numDirections, 4 * hiddenSize]
        bias: Option<Operand> = None, "bias": "operand";
        /// `recurrentBias` [numDirections, 4 * hiddenSize]
        recurrent_bias: Option<Operand> = None, "recurrentBias": "operand";
        /// `peepholeWeight` [numDirections, 3 * hiddenSize]
        peephole_weight: Option<Operand> = None, "peepholeWeight": "operand";
        /// `initialHiddenState` [numDirections, batchSize, hiddenSize]
        initial_hidden_state: Option<Operand> = None, "initialHiddenState": "operand";
        /// `initialCellState` [numDirections, batchSize, hiddenSize]
        initial_cell_state: Option<Operand> = None, "initialCellState": "operand";
        /// `returnSequence`, default false.
        return_sequence: bool = false, "returnSequence": "boolean";
        /// `direction`, default "forward".
        direction: RecurrentNetworkDirection = RecurrentNetworkDirection::Forward,
            "direction": "enum:MLRecurrentNetworkDirection";
        /// `layout`, default "iofg".
        layout: LstmWeightLayout = LstmWeightLayout::Iofg, "layout": "enum:MLLstmWeightLayout";
        /// `activations`; default ["sigmoid", "tanh", "tanh"].
        activations: Option<Vec<RecurrentNetworkActivation>> = None, "activations": "activations";
    }
}

options_dict! {
    /// `MLLstmCellOptions`
    LstmCellOptions = "MLLstmCellOptions" {
        /// `bias` [4 * hiddenSize]
        bias: Option<Operand> = None, "bias": "operand";
        /// `recurrentBias` [4 * hiddenSize]
        recurrent_bias: Option<Operand> = None, "recurrentBias": "operand";
        /// `peepholeWeight` [3 * hiddenSize]
        peephole_weight: Option<Operand> = None, "peepholeWeight": "operand";
        /// `layout`, default "iofg".
        layout: LstmWeightLayout = LstmWeightLayout::Iofg, "layout": "enum:MLLstmWeightLayout";
        /// `activations`; default ["sigmoid", "tanh", "tanh"].
        activations: Option<Vec<RecurrentNetworkActivation>> = None, "activations": "activations";
    }
}
