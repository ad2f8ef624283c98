//! Claude parser (stub; being written).

use crate::diag::Warning;
use crate::model::{Agent, Session};
use crate::parse::SourceFile;

pub fn parse(file: &SourceFile) -> Result<Session, Warning> {
    Ok(Session::new(Agent::Claude, file.path.display().to_string(), file.path.clone()))
}
