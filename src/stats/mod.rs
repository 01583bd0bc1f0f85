//! Fair-play statistics beyond accuracy: time use and Haworth's reference fallible
//! player (Regan's model to come).

pub mod calibration;
pub mod haworth;
pub mod regan;
pub mod scan;
pub mod time;
