//! What touchmove's tests and load benchmarks need and the product does
//! not: a private Mosquitto on a loopback port. Never a dependency of the
//! release binary (the root package's `bench-hall` feature and the tests
//! bring it in).
pub mod mosquitto;
