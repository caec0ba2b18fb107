//! eagle placeholder
