//! The trained models: the move classifier (Burnham, seed 004: [`vector`] turns an
//! analysed ply into its feature vector, [`classifier`] into the probability that the
//! move was engine-chosen) and the [`assessment`] that combines every signal of a game
//! side or player into a calibrated probability of engine assistance.

pub mod assessment;
pub mod classifier;
pub mod vector;
