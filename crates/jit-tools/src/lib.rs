//! Path reporters for the standard agent tools.
//!
//! Skeleton: the reporters arrive with their own change.
#![deny(missing_docs)]
