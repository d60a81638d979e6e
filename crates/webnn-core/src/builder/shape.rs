//! (filled in by the op-family work)
