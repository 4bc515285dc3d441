//! Which files a shell command writes, for the high-certainty forms only.
//!
//! Skeleton: the extraction arrives with its own change. This crate will hold a
//! pure function from bash command text to the paths it writes, plus the words
//! it skipped and why.
#![deny(missing_docs)]
