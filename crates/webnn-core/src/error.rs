//! Errors carrying the spec's exception kind (WebNN [spec](https://www.w3.org/TR/webnn/#api):
//! TypeError, DOMException names).

use std::fmt;

/// The kind of exception the spec mandates for a failure.
///
/// The spec throws `TypeError` for argument errors and these `DOMException` names otherwise;
/// it never uses `DataError`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// ECMAScript `TypeError`.
    Type,
    /// `"InvalidStateError"` DOMException.
    InvalidState,
    /// `"NotSupportedError"` DOMException.
    NotSupported,
    /// `"OperationError"` DOMException.
    Operation,
    /// `"UnknownError"` DOMException.
    Unknown,
}

impl ErrorKind {
    /// The JavaScript name of the exception (`TypeError` or the DOMException name).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Type => "TypeError",
            ErrorKind::InvalidState => "InvalidStateError",
            ErrorKind::NotSupported => "NotSupportedError",
            ErrorKind::Operation => "OperationError",
            ErrorKind::Unknown => "UnknownError",
        }
    }
}

/// An error of the WebNN API: a spec exception kind and a message naming the op, the
/// `[label]` and the offending values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Error {
    /// The spec exception kind.
    pub kind: ErrorKind,
    /// Human-readable message, starting with `[label] ` when a label was given.
    pub message: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.name(), self.message)
    }
}

impl Error {
    /// Creates an error of the given kind.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, message: message.into() }
    }
    /// A `TypeError`.
    pub fn type_error(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Type, message)
    }
    /// An `"InvalidStateError"` DOMException.
    pub fn invalid_state(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidState, message)
    }
    /// A `"NotSupportedError"` DOMException.
    pub fn not_supported(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotSupported, message)
    }
    /// An `"OperationError"` DOMException.
    pub fn operation(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Operation, message)
    }
    /// An `"UnknownError"` DOMException.
    pub fn unknown(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unknown, message)
    }
}

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Formats a label prefix: `"[label] "` for a non-empty label (decisions.md D24), else `""`.
///
/// Bidi control characters are escaped so a label cannot reorder the rest of a log line
/// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder) note on labels).
pub fn label_prefix(label: &str) -> String {
    if label.is_empty() {
        return String::new();
    }
    let mut out = String::with_capacity(label.len() + 3);
    out.push('[');
    for c in label.chars() {
        match c {
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' => {
                out.push_str(&format!("\\u{{{:04X}}}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push_str("] ");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_prefix_escapes_bidi_controls() {
        assert_eq!(label_prefix(""), "");
        assert_eq!(label_prefix("conv1"), "[conv1] ");
        assert_eq!(label_prefix("a\u{202E}b"), "[a\\u{202E}b] ");
    }
}
