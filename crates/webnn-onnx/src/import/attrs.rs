//! Typed access to a node's attributes.

use super::{invalid, NResult};
use crate::proto::{attribute_type as at, AttributeProto, TensorProto};

/// A node's attributes.
#[derive(Clone, Copy)]
pub(crate) struct Attrs<'a> {
    list: &'a [AttributeProto],
}

impl<'a> Attrs<'a> {
    pub fn new(list: &'a [AttributeProto]) -> Self {
        Attrs { list }
    }

    fn get(&self, name: &str) -> Option<&'a AttributeProto> {
        self.list.iter().find(|a| a.name.as_deref() == Some(name))
    }

    /// True if the attribute is given.
    pub fn has(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    fn check_type(a: &AttributeProto, name: &str, want: i32, what: &str) -> NResult<()> {
        match a.r#type {
            Some(t) if t != want && t != at::UNDEFINED => {
                Err(invalid(format!("attribute '{name}' should be {what} (AttributeProto type {t})")))
            }
            _ => Ok(()),
        }
    }

    /// An INT attribute, or `default`.
    pub fn int(&self, name: &str, default: i64) -> NResult<i64> {
        Ok(self.opt_int(name)?.unwrap_or(default))
    }

    /// An INT attribute if given.
    pub fn opt_int(&self, name: &str) -> NResult<Option<i64>> {
        let Some(a) = self.get(name) else {
            return Ok(None);
        };
        Self::check_type(a, name, at::INT, "an int")?;
        a.i.map(Some).ok_or_else(|| invalid(format!("attribute '{name}' has no int value")))
    }

    /// A FLOAT attribute, or `default`.
    pub fn float(&self, name: &str, default: f32) -> NResult<f32> {
        Ok(self.opt_float(name)?.unwrap_or(default))
    }

    /// A FLOAT attribute if given.
    pub fn opt_float(&self, name: &str) -> NResult<Option<f32>> {
        let Some(a) = self.get(name) else {
            return Ok(None);
        };
        Self::check_type(a, name, at::FLOAT, "a float")?;
        a.f.map(Some).ok_or_else(|| invalid(format!("attribute '{name}' has no float value")))
    }

    /// A STRING attribute (UTF-8), or `default`.
    pub fn string(&self, name: &str, default: &str) -> NResult<String> {
        let Some(a) = self.get(name) else {
            return Ok(default.to_string());
        };
        Self::check_type(a, name, at::STRING, "a string")?;
        let bytes = a.s.as_deref().unwrap_or(b"");
        String::from_utf8(bytes.to_vec()).map_err(|_| invalid(format!("attribute '{name}' is not UTF-8")))
    }

    /// An INTS attribute if given.
    pub fn ints(&self, name: &str) -> NResult<Option<Vec<i64>>> {
        let Some(a) = self.get(name) else {
            return Ok(None);
        };
        Self::check_type(a, name, at::INTS, "a list of ints")?;
        Ok(Some(a.ints.clone()))
    }

    /// A FLOATS attribute if given.
    pub fn floats(&self, name: &str) -> NResult<Option<Vec<f32>>> {
        let Some(a) = self.get(name) else {
            return Ok(None);
        };
        Self::check_type(a, name, at::FLOATS, "a list of floats")?;
        Ok(Some(a.floats.clone()))
    }

    /// A STRINGS attribute if given.
    pub fn strings(&self, name: &str) -> NResult<Option<Vec<String>>> {
        let Some(a) = self.get(name) else {
            return Ok(None);
        };
        Self::check_type(a, name, at::STRINGS, "a list of strings")?;
        a.strings
            .iter()
            .map(|s| String::from_utf8(s.clone()).map_err(|_| invalid(format!("attribute '{name}' is not UTF-8"))))
            .collect::<NResult<Vec<_>>>()
            .map(Some)
    }

    /// A TENSOR attribute if given.
    pub fn tensor(&self, name: &str) -> NResult<Option<&'a TensorProto>> {
        let Some(a) = self.get(name) else {
            return Ok(None);
        };
        Self::check_type(a, name, at::TENSOR, "a tensor")?;
        a.t.as_ref().map(Some).ok_or_else(|| invalid(format!("attribute '{name}' has no tensor value")))
    }
}
