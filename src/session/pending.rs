//! Temporary stand-ins for parts being built in parallel (guard restore, receipt schema and
//! stdout extraction, telemetry). Removed as each lands.

use std::path::Path;

use crate::ask::RoundOutcome;
use crate::guard::{GuardError, GuardScope};
use crate::receipt::ReceiptError;

pub const SCHEMA: &str = "{}";

pub fn extract_from_stdout(_stdout: &str) -> Result<String, ReceiptError> {
    Err(ReceiptError::Invalid(
        "stdout receipts are not supported yet".into(),
    ))
}

pub fn save_restore_copies(_scope: &GuardScope, _dir: &Path) -> Result<(), GuardError> {
    Ok(())
}

pub fn restore(_scope: &GuardScope, _dir: &Path) -> Result<String, GuardError> {
    Ok("nothing".into())
}

pub fn record_round(_tier: &Path, _outcome: &RoundOutcome, _replayed: bool) -> std::io::Result<()> {
    Ok(())
}

/// A plain line prompt on the terminal, until the real entry gate and question loop land.
pub struct LinePerson;

impl LinePerson {
    fn read(&mut self) -> Result<String, crate::ask::AskError> {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        let start = crate::signals::count();
        let fd = std::io::stdin();
        let mut line = Vec::new();
        loop {
            if crate::signals::count() > start {
                return Err(crate::ask::AskError::Interrupted);
            }
            let mut fds = [nix::poll::PollFd::new(
                std::os::fd::AsFd::as_fd(&fd),
                nix::poll::PollFlags::POLLIN,
            )];
            match nix::poll::poll(&mut fds, nix::poll::PollTimeout::from(100u16)) {
                Ok(0) => continue,
                Ok(_) => {}
                Err(nix::errno::Errno::EINTR) => continue,
                Err(e) => return Err(crate::ask::AskError::Io(e.into())),
            }
            let mut b = [0u8; 1];
            match nix::unistd::read(&fd, &mut b) {
                Ok(0) => return Err(crate::ask::AskError::Closed),
                Ok(_) if b[0] == b'\n' => return Ok(String::from_utf8_lossy(&line).into_owned()),
                Ok(_) => line.push(b[0]),
                Err(nix::errno::Errno::EINTR) => continue,
                Err(e) => return Err(crate::ask::AskError::Io(e.into())),
            }
        }
    }
}

impl crate::ask::Person for LinePerson {
    fn gate(&mut self, count: usize) -> Result<String, crate::ask::AskError> {
        println!("{count} question(s). [Y]/[N]");
        self.read()
    }
    fn intro(&mut self, _total: usize) {}
    fn question(
        &mut self,
        index: usize,
        total: usize,
        _time_label: &str,
        question: &crate::receipt::Question,
    ) -> Result<String, crate::ask::AskError> {
        println!(
            "Question {} of {total}: {}",
            index + 1,
            question.question_text
        );
        self.read()
    }
    fn decide(&mut self, decision: &crate::ask::Decision) -> Result<String, crate::ask::AskError> {
        println!("DECISION REQUIRED: {}", decision.context);
        for (i, o) in decision.options.iter().enumerate() {
            println!(" {}) {o}", (b'A' + i as u8) as char);
        }
        self.read()
    }
    fn say(&mut self, text: &str) {
        println!("{text}");
    }
    fn replayed(&self) -> bool {
        false
    }
}
