//! The transcript: `transcript.jsonl`, append-only, one event a line, synced as written.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};

pub struct Transcript {
    file: File,
}

impl Transcript {
    pub fn open(path: &Path) -> Result<Transcript> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| Error::io(format!("cannot open {}", path.display()), e))?;
        Ok(Transcript { file })
    }

    /// Append one event and sync it: an answer is on disk before the next question is shown.
    pub fn event(&mut self, event: &str, data: serde_json::Value) -> Result<()> {
        let mut line = serde_json::json!({ "event": event, "at": super::state::now_iso() });
        if let (Some(obj), serde_json::Value::Object(extra)) = (line.as_object_mut(), data) {
            obj.extend(extra);
        }
        let mut bytes = serde_json::to_vec(&line).unwrap_or_default();
        bytes.push(b'\n');
        self.file
            .write_all(&bytes)
            .and_then(|_| self.file.sync_data())
            .map_err(|e| Error::io("cannot append to the transcript", e))
    }
}
