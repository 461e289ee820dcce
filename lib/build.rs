//! The cds-build pipeline.
