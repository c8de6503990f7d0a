//! The one integration-test binary: the real `interview` executable against temporary git
//! repositories. One module per area.

mod util;

mod builtin;
mod subject;
mod ask;
mod turn_loop;
