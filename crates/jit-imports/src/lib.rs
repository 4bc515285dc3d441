//! Extract and expand `@path` imports in rule files.
//!
//! Skeleton: extraction and expansion arrive with their own change.
#![deny(missing_docs)]
