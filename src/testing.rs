//! What the integration tests (`tests/`) and `examples/reflect_facts.rs` reach inside the
//! library, and nothing more: not a stable API. Everything else is `pub(crate)`, so rustc reports what nothing uses.

pub use crate::answer::AnswerRecord;
pub use crate::ask::{Missing, ReplayFile, ReplayPerson};
pub use crate::brief::{BRIEF_VERSION, BriefContext, BriefSubject, Round};
pub use crate::document::clarifications_section;
pub use crate::error::Result;
pub use crate::guard::{
    GuardScope, Snapshot, memo_claim_plain, memo_lists, memo_says_plain, restore,
    save_restore_copies, save_restore_copies_after,
};
pub use crate::interviewer::builtin::{decide, receipt_json};
pub use crate::protocol::SCHEMA;
pub use crate::protocol::wire::{Family, schema};
pub use crate::receipt::{CheckContext, Clarity, Done, Question, Receipt, parse_and_check};
pub use crate::subject::{
    GithubCli, IntentFacts, IntentRequest, Kind, Subject, WorkItemSource, intent_with,
};
pub use crate::sys::{alive, start_time};

/// `interview reflect`'s facts of a commit range (the function of that name gathers a subject).
pub mod reflect {
    pub use crate::subject::reflect::{
        FACTS_VERSION, FileEvent, MARKDOWN_MAX_LINES, ReflectFacts, civil_date, facts_markdown,
        gather, gather_cached, is_doc_path, is_test_path, reflect,
    };
}
pub use reflect::reflect;
