//! Time for the person's side: a monotonic millisecond clock and UTC timestamps, injectable so
//! the time label, response times and durations are tested exactly.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// A source of time. `now_ms` is monotonic: it never goes backwards.
pub(crate) trait Clock {
    /// Milliseconds since an arbitrary fixed point.
    fn now_ms(&self) -> u64;
    /// The current wall-clock time as ISO 8601 UTC, e.g. `2026-04-29T10:32:00Z`.
    fn now_iso(&self) -> String;
}

/// The real clock: [`Instant`] for durations, [`SystemTime`] for timestamps.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SystemClock {
    start: Instant,
}

impl SystemClock {
    pub(crate) fn new() -> SystemClock {
        SystemClock {
            start: Instant::now(),
        }
    }
}

impl Default for SystemClock {
    fn default() -> Self {
        SystemClock::new()
    }
}

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn now_iso(&self) -> String {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        iso_utc(secs)
    }
}

/// Format seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ`.
pub(crate) fn iso_utc(secs: u64) -> String {
    let t = i64::try_from(secs)
        .ok()
        .and_then(|s| jiff::Timestamp::from_second(s).ok())
        .unwrap_or(jiff::Timestamp::MAX);
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// True when `s` has the exact shape `iso_utc` produces.
pub(crate) fn is_iso_utc(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 20
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

/// A clock that only moves when told to: for tests of exact timings.
#[cfg(test)]
#[derive(Debug, Default)]
pub(crate) struct ManualClock {
    now: std::cell::Cell<u64>,
}

#[cfg(test)]
impl ManualClock {
    pub(crate) fn new(start_ms: u64) -> ManualClock {
        ManualClock {
            now: std::cell::Cell::new(start_ms),
        }
    }

    /// Move the clock forward by `ms`.
    pub(crate) fn advance(&self, ms: u64) {
        self.now.set(self.now.get().saturating_add(ms));
    }
}

#[cfg(test)]
impl Clock for ManualClock {
    fn now_ms(&self) -> u64 {
        self.now.get()
    }

    fn now_iso(&self) -> String {
        iso_utc(self.now.get() / 1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_utc_formats_the_epoch() {
        assert_eq!(iso_utc(0), "1970-01-01T00:00:00Z");
    }

    #[test]
    fn iso_utc_formats_a_leap_day() {
        // 2024-02-29T12:34:56Z
        assert_eq!(iso_utc(1_709_210_096), "2024-02-29T12:34:56Z");
    }

    #[test]
    fn iso_utc_survives_times_beyond_year_9999() {
        assert!(is_iso_utc(&iso_utc(u64::MAX)));
        assert!(iso_utc(u64::MAX).starts_with("9999-12-"));
    }

    #[test]
    fn is_iso_utc_accepts_only_the_exact_shape() {
        assert!(is_iso_utc("2026-04-29T10:32:00Z"));
        assert!(!is_iso_utc("2026-04-29 10:32:00Z"));
        assert!(!is_iso_utc("2026-04-29T10:32:00"));
        assert!(!is_iso_utc(""));
    }

    #[test]
    fn system_clock_is_monotonic() {
        let c = SystemClock::new();
        let a = c.now_ms();
        let b = c.now_ms();
        assert!(b >= a);
        assert!(is_iso_utc(&c.now_iso()));
    }
}
