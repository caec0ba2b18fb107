//! Built-in kernels: the seed's oscillator and the card's workloads.

pub mod oscillator;

pub use oscillator::{Oscillator, OscillatorPlanes, oscillator};
