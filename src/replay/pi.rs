//! Pi replay (stub: being ported; currently the no-management baseline).

use crate::replay::settings::Spec;
use crate::replay::{Event, HistoryItem, RequestInfo, Strategy, StrategyContext, bytes4_tokens};

pub const SPECS: &[Spec] = &[Spec::integer(
    "reserve_tokens",
    16384.0,
    0.0,
    1000000.0,
    "stub",
)];

pub struct Pi {
    full: u64,
}

impl Pi {
    pub fn new(_ctx: &StrategyContext) -> Self {
        Pi { full: 0 }
    }
}

impl Strategy for Pi {
    fn push(&mut self, item: &HistoryItem) {
        self.full += bytes4_tokens(item);
    }
    fn before_request(&mut self, _req: &RequestInfo) -> Vec<Event> {
        Vec::new()
    }
    fn full_tokens(&self) -> u64 {
        self.full
    }
    fn context_tokens(&self) -> u64 {
        self.full
    }
}
