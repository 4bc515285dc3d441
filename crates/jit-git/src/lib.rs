//! Git change signals for the startup rule load.
//!
//! Skeleton: the gix-backed change listing arrives with its own change.
#![deny(missing_docs)]
