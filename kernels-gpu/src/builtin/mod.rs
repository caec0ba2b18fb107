//! Built-in kernels: the harmonic oscillator, the performance card's workloads (Lorenz,
//! Lorenz-96, Kepler, the driven pendulum), and kernels that call every elementary function (for the
//! PTX and device tests).

pub mod elementary;
pub mod kepler;
pub mod lorenz;
pub mod lorenz96;
pub mod oscillator;
pub mod pendulum;

pub use elementary::{
    MathExpLog, MathExpLogF32, MathHyperbolic, MathHyperbolicF32, MathInverse, MathInverseF32,
    MathPow, MathPowF32, MathRounding, MathRoundingF32, MathTrig, MathTrigF32,
};
pub use kepler::{KeplerRk78, KeplerRk78Planes, kepler_rk78};
pub use lorenz::{
    LorenzRk4, LorenzRk4F32, LorenzRk4F32Planes, LorenzRk4Planes, LorenzRk78, LorenzRk78F32,
    LorenzRk78F32Planes, LorenzRk78Planes, lorenz_rk4, lorenz_rk4_f32, lorenz_rk78,
    lorenz_rk78_f32,
};
pub use lorenz96::{
    LORENZ96_N, Lorenz96Rk4, Lorenz96Rk4F32, Lorenz96Rk4F32Planes, Lorenz96Rk4Planes, lorenz96_rk4,
    lorenz96_rk4_f32,
};
pub use oscillator::{Oscillator, OscillatorPlanes, oscillator};
pub use pendulum::{
    PendulumRk4, PendulumRk4F32, PendulumRk4F32Planes, PendulumRk4Planes, pendulum_rk4,
    pendulum_rk4_f32,
};
