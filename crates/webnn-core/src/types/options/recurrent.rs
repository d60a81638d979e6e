//! Options of gru (§8.9.25), gruCell (§8.9.26), lstm (§8.9.33) and lstmCell (§8.9.34).

use crate::operand::Operand;
use crate::types::{GruWeightLayout, LstmWeightLayout, RecurrentNetworkActivation, RecurrentNetworkDirection};

/// `MLGruOptions`
#[derive(Debug, Clone, PartialEq)]
pub struct GruOptions {
    /// `label`
    pub label: String,
    /// `bias` [numDirections, 3 * hiddenSize]
    pub bias: Option<Operand>,
    /// `recurrentBias` [numDirections, 3 * hiddenSize]
    pub recurrent_bias: Option<Operand>,
    /// `initialHiddenState` [numDirections, batchSize, hiddenSize]
    pub initial_hidden_state: Option<Operand>,
    /// `resetAfter`, default true.
    pub reset_after: bool,
    /// `returnSequence`, default false.
    pub return_sequence: bool,
    /// `direction`, default "forward".
    pub direction: RecurrentNetworkDirection,
    /// `layout`, default "zrn".
    pub layout: GruWeightLayout,
    /// `activations`; default ["sigmoid", "tanh"].
    pub activations: Option<Vec<RecurrentNetworkActivation>>,
}
impl Default for GruOptions {
    fn default() -> Self {
        GruOptions {
            label: String::new(),
            bias: None,
            recurrent_bias: None,
            initial_hidden_state: None,
            reset_after: true,
            return_sequence: false,
            direction: RecurrentNetworkDirection::Forward,
            layout: GruWeightLayout::Zrn,
            activations: None,
        }
    }
}

/// `MLGruCellOptions`
#[derive(Debug, Clone, PartialEq)]
pub struct GruCellOptions {
    /// `label`
    pub label: String,
    /// `bias` [3 * hiddenSize]
    pub bias: Option<Operand>,
    /// `recurrentBias` [3 * hiddenSize]
    pub recurrent_bias: Option<Operand>,
    /// `resetAfter`, default true.
    pub reset_after: bool,
    /// `layout`, default "zrn".
    pub layout: GruWeightLayout,
    /// `activations`; default ["sigmoid", "tanh"].
    pub activations: Option<Vec<RecurrentNetworkActivation>>,
}
impl Default for GruCellOptions {
    fn default() -> Self {
        GruCellOptions {
            label: String::new(),
            bias: None,
            recurrent_bias: None,
            reset_after: true,
            layout: GruWeightLayout::Zrn,
            activations: None,
        }
    }
}

/// `MLLstmOptions`
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LstmOptions {
    /// `label`
    pub label: String,
    /// `bias` [numDirections, 4 * hiddenSize]
    pub bias: Option<Operand>,
    /// `recurrentBias` [numDirections, 4 * hiddenSize]
    pub recurrent_bias: Option<Operand>,
    /// `peepholeWeight` [numDirections, 3 * hiddenSize]
    pub peephole_weight: Option<Operand>,
    /// `initialHiddenState` [numDirections, batchSize, hiddenSize]
    pub initial_hidden_state: Option<Operand>,
    /// `initialCellState` [numDirections, batchSize, hiddenSize]
    pub initial_cell_state: Option<Operand>,
    /// `returnSequence`, default false.
    pub return_sequence: bool,
    /// `direction`, default "forward".
    pub direction: RecurrentNetworkDirection,
    /// `layout`, default "iofg".
    pub layout: LstmWeightLayout,
    /// `activations`; default ["sigmoid", "tanh", "tanh"].
    pub activations: Option<Vec<RecurrentNetworkActivation>>,
}

/// `MLLstmCellOptions`
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LstmCellOptions {
    /// `label`
    pub label: String,
    /// `bias` [4 * hiddenSize]
    pub bias: Option<Operand>,
    /// `recurrentBias` [4 * hiddenSize]
    pub recurrent_bias: Option<Operand>,
    /// `peepholeWeight` [3 * hiddenSize]
    pub peephole_weight: Option<Operand>,
    /// `layout`, default "iofg".
    pub layout: LstmWeightLayout,
    /// `activations`; default ["sigmoid", "tanh", "tanh"].
    pub activations: Option<Vec<RecurrentNetworkActivation>>,
}
