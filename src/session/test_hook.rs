//! A hook for the resume tests, compiled only into debug builds or with the `test-hooks`
//! feature: never into a release binary.
//!
//! `INTERVIEW_TEST_PAUSE=<sub-step>@<turn>` makes the tool stop still at that point (after saving
//! the state), touching `INTERVIEW_TEST_PAUSE_MARK`, until it is killed.

use super::state::SubStep;

#[cfg(any(debug_assertions, feature = "test-hooks"))]
pub(super) fn pause(step: SubStep, turn: u32) {
    let Ok(spec) = std::env::var("INTERVIEW_TEST_PAUSE") else {
        return;
    };
    let want = format!("{}@{turn}", super::history::sub_step_word(step));
    if spec != want {
        return;
    }
    if let Ok(mark) = std::env::var("INTERVIEW_TEST_PAUSE_MARK") {
        let _ = std::fs::write(mark, &want);
    }
    loop {
        std::thread::sleep(std::time::Duration::from_secs(1));
    }
}

#[cfg(not(any(debug_assertions, feature = "test-hooks")))]
#[inline(always)]
pub(super) fn pause(_step: SubStep, _turn: u32) {}
