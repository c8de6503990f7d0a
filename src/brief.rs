//! Composing the brief.
