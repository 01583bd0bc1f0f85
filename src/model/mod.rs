//! The move classifier (Burnham, seed 004): evaluation levels, per-move features and the
//! trained model that turns them into the probability that a move was engine-chosen.

pub mod assessment;
pub mod classifier;
pub mod features;
pub mod levels;
