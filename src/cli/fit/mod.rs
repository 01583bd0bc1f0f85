//! The commands that fit and measure the shipped models: `train` (sample games, fit the
//! move classifier: [`train`], [`train_fit`]), `calibrate` (Regan's rating calibration)
//! and `assess` (the assessment, fitted on the corpus).

pub mod assess;
pub mod calibrate;
pub mod train;
pub mod train_fit;
