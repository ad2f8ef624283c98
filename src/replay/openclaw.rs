//! OpenClaw replay (stub: being ported; currently the no-management baseline).

use crate::replay::settings::Spec;
use crate::replay::{Event, HistoryItem, RequestInfo, Strategy, StrategyContext, bytes4_tokens};

pub const SPECS: &[Spec] = &[Spec::number("soft_trim_ratio", 0.3, 0.0, 1.0, "stub")];

pub struct OpenClaw {
    full: u64,
}

impl OpenClaw {
    pub fn new(_ctx: &StrategyContext) -> Self {
        OpenClaw { full: 0 }
    }
}

impl Strategy for OpenClaw {
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
