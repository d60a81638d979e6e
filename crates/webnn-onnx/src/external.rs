//! External data (`TensorProto.data_location = EXTERNAL`): tensor bytes kept in a file beside
//! the model. Files are read only from inside the model's directory — after every symbolic
//! link is resolved — and only when they are regular files (never a FIFO, device or socket,
//! which could block or never end), within their real length.

use crate::error::{OnnxError, Result};
use crate::proto::{data_type as dt, TensorProto};
use crate::tensor::alloc_bytes;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Component, Path, PathBuf};

/// Reads the bytes of a tensor stored in an external file (`location`, `offset`, `length`)
/// relative to `base_dir`.
pub(crate) fn read_external(t: &TensorProto, base_dir: Option<&Path>, byte_len: usize, what: &str) -> Result<Vec<u8>> {
    let mut location = None;
    let mut offset: u64 = 0;
    let mut length: Option<u64> = None;
    for entry in &t.external_data {
        let value = entry.value.as_deref().unwrap_or("");
        let parse = |v: &str| {
            v.trim()
                .parse::<u64>()
                .map_err(|_| OnnxError::Malformed(format!("{what}: external data field has a bad number '{v}'")))
        };
        match entry.key.as_deref().unwrap_or("") {
            "location" => location = Some(value.to_string()),
            "offset" => offset = parse(value)?,
            "length" => length = Some(parse(value)?),
            _ => {}
        }
    }
    let location =
        location.ok_or_else(|| OnnxError::Malformed(format!("{what}: external data without a 'location'")))?;
    let base = base_dir.ok_or_else(|| {
        OnnxError::Invalid(format!(
            "{what} is stored in external file '{location}' but the model was not loaded from a file \
             (pass a base directory to OnnxModel::from_bytes)"
        ))
    })?;
    let path = resolve(base, &location, what)?;
    let io_err = |e: std::io::Error| OnnxError::Io { path: path.display().to_string(), message: e.to_string() };
    let (mut file, file_len) = open_regular(&path, &location, what)?;
    let length = length.unwrap_or(byte_len as u64);
    if length != byte_len as u64 {
        return Err(OnnxError::Malformed(format!(
            "{what}: external data length {length} does not match the {byte_len} bytes of its shape"
        )));
    }
    if offset.checked_add(length).is_none_or(|end| end > file_len) {
        return Err(OnnxError::Malformed(format!(
            "{what}: external data [{offset}, {offset}+{length}) is beyond the end of '{location}' ({file_len} bytes)"
        )));
    }
    file.seek(SeekFrom::Start(offset)).map_err(io_err)?;
    let mut bytes = alloc_bytes(byte_len, what)?;
    file.take(length).read_to_end(&mut bytes).map_err(io_err)?;
    if bytes.len() != byte_len {
        return Err(OnnxError::Malformed(format!(
            "{what}: '{location}' ended after {} of the {byte_len} bytes at offset {offset}",
            bytes.len()
        )));
    }
    if t.data_type == Some(dt::BOOL) {
        bytes.iter_mut().for_each(|b| *b = (*b != 0) as u8);
    }
    Ok(bytes)
}

/// The canonical path of `location` (relative to `base`), refused unless it lies inside the
/// canonical `base`: `..`, absolute paths and symbolic links leading out are all errors.
fn resolve(base: &Path, location: &str, what: &str) -> Result<PathBuf> {
    let rel = Path::new(location);
    if location.is_empty()
        || rel.is_absolute()
        || rel.components().any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(OnnxError::Invalid(format!(
            "{what}: external data location '{location}' must be a relative path inside the model's directory"
        )));
    }
    let canonical = |p: &Path| {
        p.canonicalize().map_err(|e| OnnxError::Io { path: p.display().to_string(), message: e.to_string() })
    };
    let base = canonical(base)?;
    let path = canonical(&base.join(rel))?;
    if !path.starts_with(&base) {
        return Err(OnnxError::Invalid(format!(
            "{what}: external data location '{location}' resolves to '{}', outside the model's directory '{}'",
            path.display(),
            base.display()
        )));
    }
    Ok(path)
}

/// Opens `path` for reading if it is a regular file, and returns it with its length. The
/// file is opened without blocking and without following a final symbolic link, and the
/// opened handle is checked again, so a file swapped for a FIFO after the first check cannot
/// hang the import.
fn open_regular(path: &Path, location: &str, what: &str) -> Result<(File, u64)> {
    let io_err = |e: std::io::Error| OnnxError::Io { path: path.display().to_string(), message: e.to_string() };
    let not_regular =
        || OnnxError::Invalid(format!("{what}: external data location '{location}' is not a regular file"));
    let before = std::fs::symlink_metadata(path).map_err(io_err)?;
    if !before.file_type().is_file() {
        return Err(not_regular());
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
    }
    let file = options.open(path).map_err(io_err)?;
    let after = file.metadata().map_err(io_err)?;
    if !after.file_type().is_file() {
        return Err(not_regular());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if (before.dev(), before.ino()) != (after.dev(), after.ino()) {
            return Err(OnnxError::Invalid(format!(
                "{what}: external data file '{location}' changed while it was being opened"
            )));
        }
    }
    Ok((file, after.len()))
}
